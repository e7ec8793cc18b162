#include "model/policyreader.h"
#include "screenshot.h"
#include "ui/mainwindow.h"

#include <QFileInfo>
#include <QImage>
#include <QTabWidget>
#include <QTest>

#include <gtest/gtest.h>

using namespace qs;

TEST(MainWindow, ShowsThePolicyNameAndTheFiveActivities)
{
    const QString file = QStringLiteral(QS_EXAMPLES_DIR "/public-api.yaml");
    const PolicyReadResult r = readPolicyFile(file);
    ASSERT_FALSE(hasErrors(r.diagnostics));
    MainWindow window;
    window.setPolicy(r.policy, file);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));

    EXPECT_TRUE(window.windowTitle().startsWith(QStringLiteral("public-api")))
        << window.windowTitle().toStdString();
    QStringList tabs;
    for (int i = 0; i < window.tabs()->count(); ++i)
        tabs << window.tabs()->tabText(i).remove(QLatin1Char('&'));
    EXPECT_EQ(tabs, (QStringList{"Design", "Simulate", "Export", "Monitor", "Probe"}));

    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
        window.resize(size);
        QTest::qWait(20);
        const QString path = test::saveScreenshot(
            &window, QStringLiteral("main-window-%1x%2").arg(size.width()).arg(size.height()));
        ASSERT_FALSE(path.isEmpty());
        const QImage image(path);
        EXPECT_EQ(image.size(), size);
    }
}
