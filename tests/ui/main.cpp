// Widget tests need one QApplication for the whole program; settings and the crash-recovery
// store go to a throw-away location (QStandardPaths test mode), never the operator's own — and
// one per process: ctest runs each test in its own process, in parallel, and a recovery copy
// left by one must not be offered to another. The location is removed at exit.
#include "ui/common/icons.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>

#include <gtest/gtest.h>

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Quota Studio Tests"));
    // A child this process starts (the crash-recovery test) shares its parent's location.
    const QString shared = qEnvironmentVariable("QS_UI_TEST_APP_NAME");
    QApplication::setApplicationName(shared.isEmpty()
            ? QStringLiteral("ui_tests-%1").arg(QCoreApplication::applicationPid())
            : shared);
    qs::initResources();
    ::testing::InitGoogleTest(&argc, argv);
    const int status = RUN_ALL_TESTS();
    if (!shared.isEmpty())
        return status; // the parent's location: the parent removes it
    QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).removeRecursively();
    const QString settings = QSettings().fileName();
    QFile::remove(settings);
    return status;
}
