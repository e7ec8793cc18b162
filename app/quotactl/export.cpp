// quotactl export FILE --target ID|all [-o DIR]: gateway configuration files.
#include "commands.h"
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"

#include <QDir>
#include <QSaveFile>
#include <QTextStream>

namespace qs::cli {

namespace {

QString targetList()
{
    QStringList ids;
    for (const Exporter *e : exporters())
        ids << e->id();
    return ids.join(QLatin1Char('|'));
}

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

// Files in `dir` that look like an export's (a name some target writes, or a bundle's script)
// but that this export did not write: left by an earlier one, they would be deployed with it.
QStringList staleFiles(const QString &dir, const std::vector<ExportedFile> &written)
{
    QStringList ours;
    for (const Exporter *e : exporters())
        ours << e->suggestedFileNames();
    QStringList stale;
    const QStringList present = QDir(dir).entryList(QDir::Files, QDir::Name);
    for (const QString &name : present) {
        const bool exportLike = ours.contains(name) || name.endsWith(QLatin1String(".lua"));
        const bool fresh = std::any_of(
            written.begin(), written.end(), [&](const ExportedFile &f) { return f.name == name; });
        if (exportLike && !fresh)
            stale << name;
    }
    return stale;
}

} // namespace

int runExport(const QStringList &args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QString file, target, dir;
    bool prune = false;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a == QLatin1String("--prune")) {
            prune = true;
            continue;
        }
        if (a == QLatin1String("-h") || a == QLatin1String("--help")) {
            out << "Usage: quotactl export FILE --target " << targetList()
                << "|all [-o DIR [--prune]]\n\n"
                << "Writes the files a gateway loads. Warnings (where the gateway cannot express\n"
                   "the design exactly, and what changes) go to stderr; errors stop the export.\n"
                   "Without -o a target that writes one file prints it to stdout; `all`\n"
                   "writes one folder per target under DIR. Files an earlier export left in\n"
                   "DIR that this one did not write are listed as stale (--prune removes\n"
                   "them). Files per target:\n"
                << targetFiles()
                << "Exit status: 0 written, 1 errors in the policy or the export, 2 usage error.\n";
            return 0;
        }
        if ((a == QLatin1String("--target") || a == QLatin1String("-o")) && i + 1 < args.size())
            (a == QLatin1String("-o") ? dir : target) = args[++i];
        else if (a.startsWith(QLatin1Char('-')))
            return usage(QStringLiteral("unknown option '%1'").arg(a));
        else if (file.isEmpty())
            file = a;
        else
            return usage(QStringLiteral("one policy file only"));
    }
    if (file.isEmpty() || target.isEmpty())
        return usage(QStringLiteral("FILE and --target are required"));
    std::vector<const Exporter *> chosen;
    if (target == QLatin1String("all"))
        chosen = exporters();
    else if (const Exporter *e = exporterById(target))
        chosen.push_back(e);
    else
        return usage(
            QStringLiteral("unknown target '%1'; available: %2").arg(target, targetList()));

    const std::optional<Policy> policy = readPolicyOrReport(file);
    if (!policy)
        return 1;
    int status = 0;
    for (const Exporter *exporter : chosen) {
        const ExportResult result = exporter->exportPolicy(*policy);
        for (Diagnostic d : result.diagnostics) {
            d.file = file;
            err << d.toString() << '\n';
        }
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
        const QString targetDir = chosen.size() > 1 ? QDir(dir).filePath(exporter->id()) : dir;
        if (!QDir().mkpath(targetDir)) {
            err << "quotactl export: cannot create " << targetDir << '\n';
            return 1;
        }
        for (const ExportedFile &f : result.files) {
            QSaveFile save(QDir(targetDir).filePath(f.name));
            if (!save.open(QIODevice::WriteOnly) || save.write(f.content) != f.content.size()
                || !save.commit()) {
                err << "quotactl export: cannot write " << save.fileName() << ": "
                    << save.errorString() << '\n';
                return 1;
            }
            err << "wrote " << QDir(targetDir).filePath(f.name) << '\n';
        }
        for (const QString &name : staleFiles(targetDir, result.files)) {
            const QString path = QDir(targetDir).filePath(name);
            if (prune && QFile::remove(path))
                err << "removed stale " << path << '\n';
            else
                err << "quotactl export: warning: " << path
                    << " is stale (an earlier export's; this one did not write it): remove it "
                       "or pass --prune before deploying the folder\n";
        }
    }
    return status;
}

} // namespace qs::cli
