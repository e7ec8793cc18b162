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

int main(int argc, char *argv[])
{
    QElapsedTimer sinceStart;
    sinceStart.start();
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Quota Studio"));
    QApplication::setOrganizationName(QStringLiteral("Quota Studio"));
    QApplication::setApplicationVersion(QStringLiteral(QS_VERSION));
    qs::initResources();

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Design, live-test, export and monitor API rate-limit policies."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("policy"),
        QStringLiteral("Policy file to open (YAML or JSON). Without one: a new policy."),
        QStringLiteral("[policy]"));
    const QCommandLineOption measureStartup(QStringLiteral("measure-startup"),
        QStringLiteral("Print the milliseconds from process start to the first painted window, "
                       "then quit (docs/benchmarks.md)."));
    parser.addOption(measureStartup);
    const QCommandLineOption demo(QStringLiteral("monitor-demo"),
        QStringLiteral("Open the Monitor tab and start the local demo: a redis-server of its own "
                       "on a free loopback port with traffic for the policy's routes."));
    parser.addOption(demo);
    parser.process(app);

    qs::MainWindow window;
    if (const QStringList files = parser.positionalArguments(); !files.isEmpty()) {
        window.openFile(files.first(), false);
        QTextStream err(stderr);
        for (const qs::Diagnostic &d : window.document()->diagnostics())
            err << d.toString() << '\n';
    }
    window.show();
    if (parser.isSet(demo))
        window.showMonitorDemo();
    if (!parser.isSet(measureStartup))
        QTimer::singleShot(0, &window, [&window] { window.offerRecovery(); });
    if (parser.isSet(measureStartup)) {
        // A zero timer fires once the event loop has processed the show and the first paint.
        QTimer::singleShot(0, &app, [&] {
            window.repaint();
            QTextStream(stdout) << "startup_ms " << sinceStart.elapsed() << '\n';
            app.quit();
        });
    }
    return app.exec();
}
