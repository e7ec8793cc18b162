// quotactl: the headless twin of Quota Studio, for CI pipelines and servers.
#include "app/version.h"
#include "commands.h"

#include <QCoreApplication>
#include <QTextStream>

#include <csignal>

namespace {

void printHelp(QTextStream &out)
{
    out << "Usage: quotactl <command> [options]\n"
           "       quotactl --help | --version\n\n"
           "Design, test, export and monitor API rate-limit policies without a display.\n\n"
           "Commands:\n";
    for (const qs::cli::Command &c : qs::cli::commands())
        out << "  "
            << QString::fromLatin1(c.name.data(), qsizetype(c.name.size())).leftJustified(10)
            << QString::fromLatin1(c.summary.data(), qsizetype(c.summary.size())) << '\n';
    out << "\nExit codes: 0 success, 1 findings (e.g. lint errors), 2 usage error or "
           "unavailable.\n";
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    // hiredis writes with write(): a Redis that closed the connection (max clients, a restart)
    // would raise SIGPIPE and end the program; the write's EPIPE is handled as an error instead.
    std::signal(SIGPIPE, SIG_IGN);
    QCoreApplication::setApplicationName(QStringLiteral("quotactl"));
    QCoreApplication::setApplicationVersion(QStringLiteral(QS_VERSION));

    QStringList args = QCoreApplication::arguments().mid(1);
    QTextStream out(stdout);
    QTextStream err(stderr);
    if (args.isEmpty()) {
        printHelp(err);
        return 2;
    }
    const QString first = args.takeFirst();
    if (first == QLatin1String("--help") || first == QLatin1String("-h")
        || first == QLatin1String("help")) {
        printHelp(out);
        return 0;
    }
    if (first == QLatin1String("--version") || first == QLatin1String("-V")) {
        out << "quotactl " << QS_VERSION << '\n';
        return 0;
    }
    for (const qs::cli::Command &c : qs::cli::commands())
        if (first == QLatin1String(c.name.data(), qsizetype(c.name.size())))
            return c.run(args);
    err << "quotactl: unknown command '" << first << "'; run 'quotactl --help' for the list\n";
    return 2;
}
