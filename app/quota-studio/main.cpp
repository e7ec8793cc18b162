// quota-studio: the desktop workbench. Thin: parse the command line, open the policy, show.
#include "app/version.h"
#include "ui/common/icons.h"
#include "ui/document/policydocument.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTextStream>
#include <QTimer>

#include <csignal>
#include <cstring>

namespace {

struct Options {
    QCommandLineOption measureStartup{QStringLiteral("measure-startup"),
        QStringLiteral("Print the milliseconds from process start to the first painted window, "
                       "then quit (docs/benchmarks.md).")};
    QCommandLineOption demo{QStringLiteral("monitor-demo"),
        QStringLiteral("Open the Monitor tab and start the local demo: a redis-server of its own "
                       "on a free loopback port with traffic for the policy's routes.")};
    QCommandLineOption clusterDemo{QStringLiteral("monitor-demo-cluster"),
        QStringLiteral("The same on a Redis Cluster of three masters of its own (needs "
                       "redis-cli).")};
};

void describe(QCommandLineParser &parser, const Options &options)
{
    parser.setApplicationDescription(
        QStringLiteral("Design, live-test, export and monitor API rate-limit policies."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("policy"),
        QStringLiteral("Policy file to open (YAML or JSON). Without one: a new policy."),
        QStringLiteral("[policy]"));
    parser.addOption(options.measureStartup);
    parser.addOption(options.demo);
    parser.addOption(options.clusterDemo);
}

void nameApplication()
{
    QCoreApplication::setApplicationName(QStringLiteral("Quota Studio"));
    QCoreApplication::setOrganizationName(QStringLiteral("Quota Studio"));
    QCoreApplication::setApplicationVersion(QStringLiteral(QS_VERSION));
}

// --help and --version answer without a display: a QApplication would abort on a machine with
// none (a server, a package build, an ssh session), so they are handled by a QCoreApplication.
bool onlyAsksForHelpOrVersion(int argc, char *argv[])
{
    for (int i = 1; i < argc; ++i)
        for (const char *flag : {"-h", "--help", "-?", "--help-all", "-v", "--version"})
            if (std::strcmp(argv[i], flag) == 0)
                return true;
    return false;
}

} // namespace

int main(int argc, char *argv[])
{
    QElapsedTimer sinceStart;
    sinceStart.start();
    // hiredis writes with write(): a Redis that closed the connection (max clients, a restart)
    // would raise SIGPIPE and end the program; the write's EPIPE is handled as an error instead.
    std::signal(SIGPIPE, SIG_IGN);
    const Options options;
    if (onlyAsksForHelpOrVersion(argc, argv)) {
        QCoreApplication core(argc, argv);
        nameApplication();
        QCommandLineParser parser;
        describe(parser, options);
        parser.process(core); // prints and exits
        return 0;
    }
    QApplication app(argc, argv);
    nameApplication();
    qs::initResources();
    QCommandLineParser parser;
    describe(parser, options);
    parser.process(app);

    qs::MainWindow window;
    if (const QStringList files = parser.positionalArguments(); !files.isEmpty()) {
        window.openFile(files.first(), false);
        QTextStream err(stderr);
        for (const qs::Diagnostic &d : window.document()->diagnostics())
            err << d.toString() << '\n';
    }
    window.show();
    if (parser.isSet(options.demo))
        window.showMonitorDemo();
    else if (parser.isSet(options.clusterDemo))
        window.showMonitorDemo(3);
    if (!parser.isSet(options.measureStartup))
        QTimer::singleShot(0, &window, [&window] { window.offerRecovery(); });
    if (parser.isSet(options.measureStartup)) {
        // A zero timer fires once the event loop has processed the show and the first paint.
        QTimer::singleShot(0, &app, [&] {
            window.repaint();
            QTextStream(stdout) << "startup_ms " << sinceStart.elapsed() << '\n';
            app.quit();
        });
    }
    return app.exec();
}
