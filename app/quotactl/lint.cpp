// quotactl lint FILE... : diagnostics in the compiler format, or as JSON.
#include "commands.h"
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"
#include "optiontable.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <cstdio>

namespace qs::cli {

namespace {

OptionTable lintOptions(QString &format, QString &target, bool &verbose)
{
    QStringList targets;
    for (const Exporter *e : exporters())
        targets << e->id();
    targets << QStringLiteral("all");
    return OptionTable("lint",
        QStringLiteral("quotactl lint [--format text|json] [--target ID|all] [--verbose] FILE..."),
        QStringLiteral("Reads each policy file (YAML or JSON) and reports every problem at once. "
                       "With --target, also\nwhat exporting to that gateway would report: an "
                       "export fails exactly when lint --target\nreports an error.\n"),
        {
            opt::choice(QStringLiteral("--format"),
                {QStringLiteral("text"), QStringLiteral("json")},
                QStringLiteral("text (default): file:line:col: error|warning: field.path: "
                               "message, one per line\njson: one array of {file, line, column, "
                               "severity, path, message}"),
                &format),
            opt::choice(QStringLiteral("--target"), targets,
                QStringLiteral("also what exporting to this gateway (or all) would report"),
                &target),
            opt::flag(QStringLiteral("--verbose"),
                QStringLiteral("every warning on its own line; by default a warning that says "
                               "the same of\nmany routes is printed once, with their count "
                               "(json lists each)"),
                &verbose),
        },
        QStringLiteral(
            "Exit status: 0 no errors (warnings allowed), 1 at least one error, 2 usage error.\n"));
}

QJsonObject toJson(const Diagnostic &d)
{
    return QJsonObject{
        {QStringLiteral("file"), d.file},
        {QStringLiteral("line"), d.line},
        {QStringLiteral("column"), d.column},
        {QStringLiteral("severity"),
            d.severity == Diagnostic::Severity::Error ? QStringLiteral("error")
                                                      : QStringLiteral("warning")},
        {QStringLiteral("path"), d.path},
        {QStringLiteral("message"), d.message},
    };
}

} // namespace

int runLint(const QStringList &args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QString format = QStringLiteral("text");
    QString target;
    bool verbose = false;
    QStringList files;
    const OptionTable table = lintOptions(format, target, verbose);
    if (const std::optional<int> stop = table.parse(args, &files))
        return *stop;
    const std::vector<const Exporter *> targets = target.isEmpty() ? std::vector<const Exporter *>()
        : target == QLatin1String("all")                           ? exporters()
                                         : std::vector{exporterById(target)};
    if (files.isEmpty())
        return table.usage(QStringLiteral("name at least one policy file"));
    int errors = 0;
    int warnings = 0;
    QJsonArray all;
    for (const QString &file : files) {
        const PolicyReadResult read = readPolicyFile(file);
        Diagnostics found = read.diagnostics;
        // A policy with errors is not exported: its export findings would repeat them.
        if (!hasErrors(found))
            for (const Exporter *e : targets)
                for (Diagnostic d : e->exportPolicy(read.policy).diagnostics) {
                    d.file = file;
                    found.append(d);
                }
        for (const Diagnostic &d : found) {
            (d.severity == Diagnostic::Severity::Error ? errors : warnings)++;
            if (format == QLatin1String("json"))
                all.append(toJson(d));
            else if (verbose)
                out << d.toString() << '\n';
        }
        if (format != QLatin1String("json") && !verbose)
            for (const DiagnosticGroup &g : groupDiagnostics(found))
                out << g.toString() << '\n';
    }
    if (format == QLatin1String("json"))
        out << QJsonDocument(all).toJson(QJsonDocument::Indented);
    out.flush(); // before the summary on stderr, so that a terminal shows them in order
    std::fflush(stdout);
    if (format != QLatin1String("json"))
        err << files.size() << (files.size() == 1 ? " file: " : " files: ") << errors
            << (errors == 1 ? " error, " : " errors, ") << warnings
            << (warnings == 1 ? " warning\n" : " warnings\n");
    return errors > 0 ? 1 : 0;
}

} // namespace qs::cli
