// quota-studio: the desktop workbench. Thin: parse the command line, open the policy, show.
#include "app/version.h"
#include "model/policyreader.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTextStream>

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Quota Studio"));
    QApplication::setOrganizationName(QStringLiteral("Quota Studio"));
    QApplication::setApplicationVersion(QStringLiteral(QS_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Design, live-test, export and monitor API rate-limit policies."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("policy"),
        QStringLiteral("Policy file to open (YAML or JSON)."), QStringLiteral("[policy]"));
    parser.process(app);

    qs::MainWindow window;
    if (const QStringList files = parser.positionalArguments(); !files.isEmpty()) {
        const qs::PolicyReadResult result = qs::readPolicyFile(files.first());
        QTextStream err(stderr);
        for (const qs::Diagnostic &d : result.diagnostics)
            err << d.toString() << '\n';
        window.setPolicy(result.policy, files.first());
    }
    window.show();
    return app.exec();
}
