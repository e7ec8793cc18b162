// The window as a whole: title, tabs, settings that persist, files that open by drop, and a
// screenshot of every tab at both target sizes for a person to look at.
#include "screenshot.h"
#include "ui/designpage.h"
#include "ui/exportpage.h"
#include "ui/mainwindow.h"
#include "ui/policydocument.h"
#include "ui/simulatepage.h"
#include "ui/testconsole.h"

#include <QComboBox>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

using namespace qs;

namespace {
const QString kPublicApi = QStringLiteral(QS_EXAMPLES_DIR "/public-api.yaml");
}

TEST(MainWindow, OpensAPolicyAndShowsNameFileAndValidation)
{
    MainWindow window;
    ASSERT_TRUE(window.openFile(kPublicApi, false));
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    EXPECT_TRUE(window.windowTitle().startsWith(QStringLiteral("public-api (public-api.yaml)")))
        << window.windowTitle().toStdString();
    EXPECT_FALSE(window.isWindowModified());
    QStringList tabs;
    for (int i = 0; i < window.tabs()->count(); ++i)
        tabs << window.tabs()->tabText(i).remove(QLatin1Char('&'));
    EXPECT_EQ(tabs, (QStringList{"Design", "Simulate", "Export", "Monitor", "Probe"}));
    EXPECT_TRUE(window.validationLabel()->text().contains(QStringLiteral("valid")))
        << window.validationLabel()->text().toStdString();
}

TEST(MainWindow, AFileWithErrorsStillOpensAndShowsThem)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("broken.yaml"));
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("quota_studio: 1\nname: broken\nroutes:\n  - id: ok\n    match: { path: /ok }\n"
            "    limit: { algorithm: gcra, rate: 5/s, burst: 5 }\n"
            "  - id: bad\n    match: { path: /bad }\n"
            "    limit: { algorithm: token_bucket, capacity: 0, refill: 2/s }\n");
    f.close();
    MainWindow window;
    ASSERT_TRUE(window.openFile(path, false));
    EXPECT_EQ(window.document()->policy().routes.size(), 2) << "what can be shown is shown";
    EXPECT_GT(window.document()->errorCount(), 0);
    EXPECT_TRUE(window.validationLabel()->text().contains(QStringLiteral("error")));
    EXPECT_EQ(window.tabs()->currentWidget(), window.designPage());
}

TEST(MainWindow, RestoresTabAndSplittersFromSettings)
{
    QSettings().clear();
    {
        MainWindow window;
        window.tabs()->setCurrentIndex(2);
        window.close();
    }
    MainWindow again;
    EXPECT_EQ(again.tabs()->currentIndex(), 2);
    QSettings().clear();
}

TEST(MainWindow, ADroppedPolicyFileOpens)
{
    MainWindow window;
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(kPublicApi)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    enter.setAccepted(false);
    QApplication::sendEvent(&window, &enter);
    EXPECT_TRUE(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    EXPECT_EQ(window.document()->policy().name, QStringLiteral("public-api"));

    QMimeData other;
    other.setUrls({QUrl::fromLocalFile(QStringLiteral("/etc/hostname"))});
    QDragEnterEvent refuse(QPoint(10, 10), Qt::CopyAction, &other, Qt::LeftButton, Qt::NoModifier);
    refuse.setAccepted(false);
    QApplication::sendEvent(&window, &refuse);
    EXPECT_FALSE(refuse.isAccepted()) << "only policy files are accepted";
}

TEST(MainWindow, ScreenshotsOfEveryTabAtBothSizes)
{
    QSettings().clear(); // the default layout, not whatever an earlier test left
    MainWindow window;
    ASSERT_TRUE(window.openFile(kPublicApi, false));
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    // Give the Simulate and Export tabs something to show.
    window.tabs()->setCurrentWidget(window.simulatePage());
    QSignalSpy simulated(window.simulatePage(), &SimulatePage::finished);
    window.simulatePage()->run();
    ASSERT_TRUE(simulated.wait(20000));
    QSignalSpy exported(window.exportPage(), &ExportPage::finished);
    window.exportPage()->setTargetChecked(QStringLiteral("envoy"), true);
    window.exportPage()->refreshNow();
    ASSERT_TRUE(exported.wait(20000));

    TestConsole *console = window.designPage()->console();
    console->useManualClock(true);
    console->findChild<QComboBox *>()->setCurrentText(QStringLiteral("POST"));
    for (int i = 0; i < 12; ++i)
        console->sendOnce();

    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
        window.resize(size);
        window.tabs()->setCurrentWidget(window.designPage());
        window.designPage()->bottomTabs()->setCurrentIndex(1);
        QTest::qWait(30);
        EXPECT_FALSE(test::saveScreenshot(
            &window, QStringLiteral("design-console-%1x%2").arg(size.width()).arg(size.height()))
                         .isEmpty());
        window.designPage()->bottomTabs()->setCurrentIndex(0);
        for (int tab = 0; tab < window.tabs()->count(); ++tab) {
            window.tabs()->setCurrentIndex(tab);
            QTest::qWait(30);
            const QString name = window.tabs()->tabText(tab).remove(QLatin1Char('&')).toLower();
            const QString path = test::saveScreenshot(
                &window, QStringLiteral("%1-%2x%3").arg(name).arg(size.width()).arg(size.height()));
            ASSERT_FALSE(path.isEmpty());
            EXPECT_EQ(QImage(path).size(), size);
        }
    }
}
