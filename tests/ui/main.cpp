// Widget tests need one QApplication for the whole program; settings go to a throw-away
// location (QStandardPaths test mode), never the operator's own.
#include "ui/common/icons.h"

#include <QApplication>
#include <QStandardPaths>

#include <gtest/gtest.h>

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Quota Studio Tests"));
    QApplication::setApplicationName(QStringLiteral("ui_tests"));
    qs::initResources();
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
