// quotactl export FILE --target ID|all [-o DIR]: gateway configuration files.
#include "commands.h"
#include "model/export/exporter.h"
#include "model/export/exportfolder.h"
#include "model/policy/policyreader.h"
#include "optiontable.h"

#include <QTextStream>

namespace qs::cli {

namespace {

QString targetFiles()
{
    QString text;
    for (const Exporter *e : exporters())
        text += QStringLiteral("  %1 %2\n")
                    .arg(e->id(), -13)
                    .arg(e->suggestedFileNames().join(QStringLiteral(", ")));
    return text;
}

int usage(const QString &message)
{
    return usageError("export", message);
}

// Writes a plan and says what it did to each file; false (after saying why) when a file could
// not be written.
bool writePlan(const ExportPlan &plan, bool prune, QTextStream &err)
{
    if (const Expected<void> written = writeExport(plan, prune); !written) {
        err << "quotactl export: " << written.error() << '\n';
        return false;
    }
    for (const PlannedFile &f : plan.files) {
        switch (f.change) {
        case PlannedFile::Change::New:
        case PlannedFile::Change::Changed:
            err << "wrote " << f.path << '\n';
            break;
        case PlannedFile::Change::Unchanged:
            err << "unchanged " << f.path << '\n';
            break;
        case PlannedFile::Change::Stale:
            if (prune)
                err << "removed stale " << f.path << '\n';
            else
                err << "quotactl export: warning: " << f.path
                    << " is stale (an earlier export's; this one did not write it): remove it "
                       "or pass --prune before deploying the folder\n";
            break;
        }
    }
    return true;
}

} // namespace

OptionTable exportOptions(QString &target, QString &dir, bool &prune, bool &verbose)
{
    QStringList targets;
    for (const Exporter *e : exporters())
        targets << e->id();
    targets << QStringLiteral("all");
    return OptionTable("export",
        QStringLiteral("quotactl export FILE --target %1 [-o DIR [--prune]] [--verbose]")
            .arg(targets.join(QLatin1Char('|'))),
        QStringLiteral("Writes the files a gateway loads. Warnings (where the gateway cannot "
                       "express\nthe design exactly, and what changes) go to stderr; errors stop "
                       "the export.\nWithout -o a target that writes one file prints it to "
                       "stdout; `all`\nwrites one folder per target under DIR. Files an earlier "
                       "export left in\nDIR that this one did not write are listed as stale "
                       "(--prune removes\nthem). Files per target:\n")
            + targetFiles(),
        {
            opt::choice(QStringLiteral("--target"), targets,
                QStringLiteral("the gateway, or all of them; required"), &target),
            {QStringLiteral("-o"), {}, QStringLiteral("DIR"),
                QStringLiteral("the folder to write into (one sub-folder per target with all)"),
                [&dir](const QString &v) {
                    dir = v;
                    return std::optional<QString>();
                }},
            opt::flag(QStringLiteral("--prune"),
                QStringLiteral("remove the stale files of an earlier export from DIR"), &prune),
            opt::flag(QStringLiteral("--verbose"),
                QStringLiteral("every warning on its own line; by default a warning that says "
                               "the same of\nmany routes is printed once, with their count"),
                &verbose),
        },
        QStringLiteral(
            "Exit status: 0 written, 1 errors in the policy or the export, 2 usage error.\n"));
}

int runExport(const QStringList &args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QString target, dir;
    bool prune = false, verbose = false;
    QStringList files;
    if (const std::optional<int> stop
        = exportOptions(target, dir, prune, verbose).parse(args, &files))
        return *stop;
    if (files.size() > 1)
        return usage(QStringLiteral("one policy file only"));
    const QString file = files.value(0);
    if (file.isEmpty() || target.isEmpty())
        return usage(QStringLiteral("FILE and --target are required"));
    const std::vector<const Exporter *> chosen = target == QLatin1String("all")
        ? exporters()
        : std::vector<const Exporter *>{exporterById(target)};

    const std::optional<Policy> policy = readPolicyOrReport(file);
    if (!policy)
        return 1;
    int status = 0;
    // One target at a time, written before the next is made: `all` holds one target's files,
    // not six (1.4 GB at 100 000 routes when they were held together).
    for (const Exporter *exporter : chosen) {
        ExportResult result = exporter->exportPolicy(*policy);
        for (Diagnostic &d : result.diagnostics)
            d.file = file;
        if (verbose)
            for (const Diagnostic &d : result.diagnostics)
                err << d.toString() << '\n';
        else
            for (const DiagnosticGroup &g : groupDiagnostics(result.diagnostics))
                err << g.toString() << '\n';
        if (hasErrors(result.diagnostics)) {
            status = 1;
            continue;
        }
        if (dir.isEmpty()) {
            if (chosen.size() != 1 || result.files.size() != 1)
                return usage(QStringLiteral("%1 writes %2 files: give -o DIR")
                                 .arg(exporter->id())
                                 .arg(result.files.size()));
            out << result.files.front().content;
            continue;
        }
        // The same folder rule and plan as the workbench's Export page (exportfolder.h).
        const ExportPlan plan
            = planTargetExport(dir, {exporter->id(), std::move(result.files)}, chosen.size());
        result = {};
        if (!writePlan(plan, prune, err))
            return 1;
    }
    return status;
}

} // namespace qs::cli
