// quotactl lint FILE... : diagnostics in the compiler format, or as JSON.
#include "commands.h"
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <cstdio>

namespace qs::cli {

namespace {

const char kLintHelp[] = R"(Usage: quotactl lint [--format text|json] [--target ID|all] FILE...

Reads each policy file (YAML or JSON) and reports every problem at once. With --target, also
what exporting to that gateway (nginx, haproxy, envoy, traefik, kong, redis-bundle, or all)
would report: an export fails exactly when lint --target reports an error.
  text (default)  file:line:col: error|warning: field.path: message   (one per line)
  json            one array of {file, line, column, severity, path, message}
Exit status: 0 no errors (warnings allowed), 1 at least one error, 2 usage error.
)";

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
    QStringList files;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a == QLatin1String("-h") || a == QLatin1String("--help")) {
            out << kLintHelp;
            return 0;
        }
        if (a == QLatin1String("--format") && i + 1 < args.size()) {
            format = args[++i];
        } else if (a.startsWith(QLatin1String("--format="))) {
            format = a.mid(9);
        } else if (a == QLatin1String("--target") && i + 1 < args.size()) {
            target = args[++i];
        } else if (a.startsWith(QLatin1Char('-')) && a != QLatin1String("-")) {
            err << "quotactl lint: unknown option '" << a << "'\n" << kLintHelp;
            return 2;
        } else {
            files << a;
        }
    }
    if (format != QLatin1String("text") && format != QLatin1String("json")) {
        err << "quotactl lint: --format takes text or json, not '" << format << "'\n";
        return 2;
    }
    std::vector<const Exporter *> targets;
    if (target == QLatin1String("all"))
        targets = exporters();
    else if (const Exporter *e = exporterById(target))
        targets.push_back(e);
    else if (!target.isEmpty()) {
        err << "quotactl lint: unknown target '" << target << "'\n" << kLintHelp;
        return 2;
    }
    if (files.isEmpty()) {
        err << "quotactl lint: name at least one policy file\n" << kLintHelp;
        return 2;
    }
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
            else
                out << d.toString() << '\n';
        }
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
