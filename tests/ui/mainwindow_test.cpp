// The window as a whole: title, tabs, settings that persist, files that open by drop, and a
// screenshot of every tab at both target sizes for a person to look at.
#include "screenshot.h"
#include "ui/design/designpage.h"
#include "ui/design/testconsole.h"
#include "ui/document/policydocument.h"
#include "ui/document/recoverystore.h"
#include "ui/export/exportpage.h"
#include "ui/mainwindow.h"
#include "ui/probe/probepage.h"
#include "ui/simulate/simulatepage.h"

#include "ui/common/icons.h"
#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QToolButton>

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QLayout>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QXYSeries>

#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <set>

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
    std::map<QString, QList<int>> moved;
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
        window.tabs()->setCurrentIndex(2);
        // Drag every splitter somewhere it would never start: a third of its first pane.
        for (QSplitter *s : window.splitters()) {
            QList<int> sizes = s->sizes();
            ASSERT_GE(sizes.size(), 2) << s->objectName().toStdString();
            const int shift = sizes[0] / 3;
            sizes[0] -= shift;
            sizes[1] += shift;
            s->setSizes(sizes);
            moved[s->objectName()] = s->sizes();
        }
        window.close();
    }
    MainWindow again;
    again.resize(1280, 800);
    again.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&again));
    EXPECT_EQ(again.tabs()->currentIndex(), 2);
    ASSERT_GE(moved.size(), 5u) << "design (2), simulate, export, probe";
    // A page that is not on screen lays out at its own size: compare the proportions.
    const auto shares = [](const QList<int> &sizes) {
        const double total = std::accumulate(sizes.begin(), sizes.end(), 0.0);
        QList<double> out;
        for (const int s : sizes)
            out.append(total > 0 ? s / total : 0.0);
        return out;
    };
    for (QSplitter *s : again.splitters()) {
        const QList<double> want = shares(moved.at(s->objectName()));
        const QList<double> got = shares(s->sizes());
        ASSERT_EQ(got.size(), want.size()) << s->objectName().toStdString();
        for (qsizetype i = 0; i < got.size(); ++i)
            EXPECT_NEAR(got[i], want[i], 0.01) << s->objectName().toStdString() << " pane " << i;
    }
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

TEST(MainWindow, ScreenshotsOfEveryTabAtThreeSizes)
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
    // The other two chart tabs, once each.
    window.resize(1280, 800);
    window.simulatePage()->chartTabs()->setCurrentIndex(1);
    QTest::qWait(30);
    EXPECT_FALSE(
        test::saveScreenshot(&window, QStringLiteral("simulate-hottest-key-1280x800")).isEmpty());
    window.simulatePage()->run(true);
    ASSERT_TRUE(simulated.wait(30000));
    QTest::qWait(30);
    EXPECT_FALSE(
        test::saveScreenshot(&window, QStringLiteral("simulate-compare-1280x800")).isEmpty());
    window.simulatePage()->run();
    ASSERT_TRUE(simulated.wait(20000));
    window.simulatePage()->chartTabs()->setCurrentIndex(0);

    QSignalSpy exported(window.exportPage(), &ExportPage::finished);
    window.exportPage()->setTargetChecked(QStringLiteral("envoy"), true);
    window.exportPage()->refreshNow();
    ASSERT_TRUE(exported.wait(20000));

    TestConsole *console = window.designPage()->console();
    console->useManualClock(true);
    console->sendMany(12, 10);

    for (const QSize size : {QSize(1024, 640), QSize(1280, 800), QSize(1920, 1080)}) {
        window.resize(size);
        window.tabs()->setCurrentWidget(window.designPage());
        window.designPage()->bottomTabs()->setCurrentIndex(1);
        QTest::qWait(30);
        if (size.height() >= 800) { // the decision's response shows its status and headers
            auto *response = console->findChild<QPlainTextEdit *>(QStringLiteral("response"));
            ASSERT_TRUE(response);
            EXPECT_GE(response->viewport()->height() / response->fontMetrics().lineSpacing(), 5)
                << size.width() << "x" << size.height();
        }
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

// Every input of every page is reached by pressing Tab: nothing needs a mouse. Tab is pressed
// for real, from the tab bar, until focus comes round again; every visible, enabled input of
// the page must have had the focus on the way.
TEST(MainWindow, EveryInputIsReachableFromTheKeyboard)
{
    MainWindow window;
    ASSERT_TRUE(window.openFile(kPublicApi, false));
    window.resize(1280, 800);
    window.show();
    window.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
    int inputs = 0;
    for (int tab = 0; tab < window.tabs()->count(); ++tab) {
        window.tabs()->setCurrentIndex(tab);
        QWidget *page = window.tabs()->currentWidget();
        QTest::qWait(20);
        std::vector<QWidget *> expected;
        for (QWidget *w : page->findChildren<QWidget *>()) {
            const bool input = qobject_cast<QLineEdit *>(w) || qobject_cast<QAbstractSpinBox *>(w)
                || qobject_cast<QComboBox *>(w) || qobject_cast<QAbstractButton *>(w);
            // Tool buttons have their shortcuts; the table corner button is a table's internal;
            // an editable combo box's line edit is the combo box's.
            if (!input || qobject_cast<QToolButton *>(w) || !w->isEnabled()
                || !w->isVisibleTo(&window) || w->inherits("QTableCornerButton")
                || qobject_cast<QComboBox *>(w->parentWidget())
                || qobject_cast<QAbstractSpinBox *>(w->parentWidget()))
                continue;
            expected.push_back(w);
        }
        std::set<QWidget *> reached;
        window.tabs()->tabBar()->setFocus();
        for (int i = 0; i < 400; ++i) {
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
            QWidget *f = QApplication::focusWidget();
            if (f == window.tabs()->tabBar() && i > 0)
                break; // round
            reached.insert(f);
        }
        const QString name = window.tabs()->tabText(tab).remove(QLatin1Char('&'));
        for (QWidget *w : expected)
            EXPECT_TRUE(reached.count(w))
                << name.toStdString() << ": " << w->metaObject()->className() << " '"
                << w->objectName().toStdString() << "' " << w->toolTip().left(60).toStdString();
        inputs += int(expected.size());
    }
    EXPECT_GT(inputs, 40);
}

// A dark system palette: icons are tinted to the text colour, charts take the dark theme.
TEST(MainWindow, FollowsADarkPalette)
{
    const QPalette light = QApplication::palette();
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::AlternateBase, QColor(0x33, 0x33, 0x33));
    dark.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Button, QColor(0x3a, 0x3a, 0x3a));
    dark.setColor(QPalette::ButtonText, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Highlight, QColor(0x3d, 0x7a, 0xd6));
    QApplication::setPalette(dark);
    {
        MainWindow window;
        ASSERT_TRUE(window.openFile(kPublicApi, false));
        window.resize(1280, 800);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
        // The charts take the dark theme: a dark plot, light axis labels.
        window.tabs()->setCurrentWidget(window.simulatePage());
        QSignalSpy simulated(window.simulatePage(), &SimulatePage::finished);
        window.simulatePage()->run();
        ASSERT_TRUE(simulated.wait(20000));
        for (QChartView *view :
            {window.simulatePage()->trafficChart(), window.probePage()->chart()}) {
            const QChart *chart = view->chart();
            EXPECT_LT(chart->backgroundBrush().color().lightness(), 100)
                << chart->title().toStdString();
            ASSERT_FALSE(chart->axes(Qt::Horizontal).isEmpty());
            EXPECT_GT(chart->axes(Qt::Horizontal).front()->labelsBrush().color().lightness(), 150)
                << chart->title().toStdString();
            EXPECT_GT(chart->titleBrush().color().lightness(), 150) << chart->title().toStdString();
        }
        const QImage undo = icon(QStringLiteral("add")).pixmap(24).toImage();
        int light = 0;
        for (int y = 0; y < undo.height(); ++y)
            for (int x = 0; x < undo.width(); ++x)
                if (qAlpha(undo.pixel(x, y)) > 200 && qGray(undo.pixel(x, y)) > 200)
                    ++light;
        EXPECT_GT(light, 10) << "monochrome icons are drawn in the light text colour";
        for (const QSize size : {QSize(1024, 640), QSize(1280, 800), QSize(1920, 1080)}) {
            window.resize(size);
            for (int tab = 0; tab < window.tabs()->count(); ++tab) {
                window.tabs()->setCurrentIndex(tab);
                QTest::qWait(30);
                const QString name = window.tabs()->tabText(tab).remove(QLatin1Char('&')).toLower();
                EXPECT_FALSE(test::saveScreenshot(&window,
                    QStringLiteral("%1-dark-%2x%3").arg(name).arg(size.width()).arg(size.height()))
                                 .isEmpty());
            }
        }
    }
    QApplication::setPalette(light);
}

TEST(MainWindow, MenusAnOperatorExpects)
{
    QSettings().remove(QStringLiteral("recentFiles"));
    MainWindow window;
    QTemporaryDir dir;
    const QString a = dir.filePath(QStringLiteral("one/policy.yaml"));
    const QString b = dir.filePath(QStringLiteral("two/policy.yaml"));
    for (const QString &p : {a, b}) {
        QDir().mkpath(QFileInfo(p).absolutePath());
        ASSERT_TRUE(QFile::copy(QStringLiteral(QS_EXAMPLES_DIR "/gcra.yaml"), p));
        ASSERT_TRUE(window.openFile(p, false));
    }
    // Other test processes share these settings: look for our entries, not at positions.
    const auto recentTexts = [&] {
        QStringList texts;
        for (QAction *action : window.recentMenu()->actions())
            texts << action->text();
        return texts;
    };
    QStringList recent = recentTexts();
    const auto listed = [&](const QString &part) {
        return std::any_of(
            recent.begin(), recent.end(), [&](const QString &t) { return t.contains(part); });
    };
    EXPECT_TRUE(
        listed(QStringLiteral("one/policy.yaml")) && listed(QStringLiteral("two/policy.yaml")))
        << "the path tells the two policy.yaml apart: " << recent.join(", ").toStdString();
    EXPECT_EQ(recent.last(), QStringLiteral("&Clear list"));
    window.recentMenu()->actions().last()->trigger();
    recent = recentTexts();
    EXPECT_FALSE(
        listed(QStringLiteral("one/policy.yaml")) || listed(QStringLiteral("two/policy.yaml")));

    const auto keys = window.keyboardReference();
    const auto has = [&](const QString &what, const QKeySequence &key) {
        return std::any_of(keys.begin(), keys.end(), [&](const auto &row) {
            return row.second == what && row.first == key.toString(QKeySequence::NativeText);
        });
    };
    EXPECT_TRUE(has(QStringLiteral("Save As"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)));
    EXPECT_TRUE(has(QStringLiteral("Close"), QKeySequence(Qt::CTRL | Qt::Key_W)));
    EXPECT_TRUE(has(QStringLiteral("Undo"), QKeySequence(Qt::CTRL | Qt::Key_Z)));
    EXPECT_TRUE(QFileInfo::exists(MainWindow::docsDirectory() + QStringLiteral("/README.md")));

    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    QTest::keyClick(&window, Qt::Key_W, Qt::ControlModifier);
    EXPECT_FALSE(window.isVisible()) << "Ctrl+W closes the (unmodified) policy's window";
}

// Open asks about unsaved changes only after the file was chosen: a cancelled file dialog
// costs no prompt, a chosen file one. (The modal file dialog itself is not driven here: its
// file system model fills on a thread and made this test hang now and then.)
TEST(MainWindow, OpenAsksAboutUnsavedChangesOnlyOnceAFileWasChosen)
{
    for (const RecoveryStore::Entry &e : RecoveryStore().entries())
        RecoveryStore().remove(e.id); // no recovery offer from an earlier run in between
    MainWindow window;
    ASSERT_TRUE(window.openFile(QStringLiteral(QS_EXAMPLES_DIR "/gcra.yaml"), false));
    Route edited = window.document()->policy().routes[0];
    edited.id = QStringLiteral("edited");
    window.document()->replaceRoute(0, edited, QStringLiteral("rename"));
    ASSERT_TRUE(window.isWindowModified());
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));

    int prompts = 0;
    QTimer answer;
    answer.setInterval(20);
    QObject::connect(&answer, &QTimer::timeout, [&] {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        if (box && box->button(QMessageBox::Discard)) {
            ++prompts;
            box->button(QMessageBox::Discard)->click();
        }
    });
    answer.start();
    EXPECT_FALSE(window.openChosenFile(QString())) << "a cancelled dialog";
    EXPECT_EQ(prompts, 0);
    EXPECT_TRUE(window.isWindowModified());
    EXPECT_TRUE(window.openChosenFile(QStringLiteral(QS_EXAMPLES_DIR "/token-bucket.yaml")));
    EXPECT_EQ(prompts, 1);
    EXPECT_EQ(window.document()->policy().name, QStringLiteral("example-token-bucket"));
}

namespace {

// What a reviewer would see wrong on the page in sight, found from geometry and text rather
// than pixels: a label or button whose text does not fit it, widgets of one layout on top of
// each other, a chart with nothing in it that does not say why.
QStringList layoutProblems(QWidget *root)
{
    QStringList problems;
    const auto name = [](const QWidget *w) {
        return QStringLiteral("%1 '%2'").arg(
            QString::fromLatin1(w->metaObject()->className()), w->objectName());
    };
    for (QLabel *l : root->findChildren<QLabel *>()) {
        if (!l->isVisible() || l->text().isEmpty() || l->textFormat() == Qt::RichText
            || Qt::mightBeRichText(l->text()))
            continue;
        if (l->wordWrap()) {
            if (l->heightForWidth(l->width()) > l->height() + 1)
                problems << QStringLiteral("label '%1' wraps to %2 px in %3")
                                .arg(l->text().left(40))
                                .arg(l->heightForWidth(l->width()))
                                .arg(l->height());
            continue;
        }
        QString text = l->text();
        text.remove(QLatin1Char('&'));
        const int need = l->fontMetrics().horizontalAdvance(text.split(QLatin1Char('\n')).first());
        if (need > l->contentsRect().width() + 1)
            problems << QStringLiteral("label '%1' needs %2 px, has %3")
                            .arg(text.left(40))
                            .arg(need)
                            .arg(l->contentsRect().width());
    }
    for (QPushButton *b : root->findChildren<QPushButton *>())
        if (b->isVisible() && !b->text().isEmpty() && b->sizeHint().width() > b->width() + 1)
            problems << QStringLiteral("button '%1' needs %2 px, has %3")
                            .arg(b->text())
                            .arg(b->sizeHint().width())
                            .arg(b->width());
    QList<QWidget *> containers = root->findChildren<QWidget *>();
    containers.prepend(root);
    for (QWidget *w : containers) {
        if (!w->isVisible() || !w->layout())
            continue;
        QList<QWidget *> items;
        for (int i = 0; i < w->layout()->count(); ++i)
            if (QWidget *c = w->layout()->itemAt(i)->widget(); c && c->isVisible())
                items << c;
        for (int a = 0; a < items.size(); ++a)
            for (int b = a + 1; b < items.size(); ++b)
                if (items[a]->geometry().intersects(items[b]->geometry()))
                    problems << QStringLiteral("%1 and %2 overlap in %3")
                                    .arg(name(items[a]), name(items[b]), name(w));
    }
    for (QChartView *v : root->findChildren<QChartView *>()) {
        if (!v->isVisible() || !v->chart())
            continue;
        bool points = false;
        for (QAbstractSeries *series : v->chart()->series())
            if (auto *xy = qobject_cast<QXYSeries *>(series); xy && xy->count() > 0)
                points = true;
        if (!points && v->chart()->title().isEmpty())
            problems << QStringLiteral("%1 is empty and says nothing").arg(name(v));
        if (v->chart()->axes().isEmpty())
            problems << QStringLiteral("%1 has no axes").arg(name(v));
    }
    return problems;
}

} // namespace

// Issue 47, point 7: every tab at 1280x800 and 1920x1080 (Simulate after a run, Export after a
// refresh, Monitor and Probe not yet used), checked for clipped text, overlapping widgets and
// charts that are empty without saying why.
TEST(MainWindow, EveryTabShowsItsTextWholeAndNoEmptyChartAtBothSizes)
{
    QSettings().clear();
    MainWindow window;
    ASSERT_TRUE(window.openFile(kPublicApi, false));
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    QSignalSpy simulated(window.simulatePage(), &SimulatePage::finished);
    window.simulatePage()->run();
    ASSERT_TRUE(simulated.wait(20000));
    QSignalSpy exported(window.exportPage(), &ExportPage::finished);
    window.exportPage()->refreshNow();
    ASSERT_TRUE(exported.wait(20000));
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
        window.resize(size);
        for (int tab = 0; tab < window.tabs()->count(); ++tab) {
            window.tabs()->setCurrentIndex(tab);
            QTest::qWait(50);
            const QStringList problems = layoutProblems(&window);
            EXPECT_TRUE(problems.isEmpty()) << size.width() << "x" << size.height() << ", tab "
                                            << window.tabs()->tabText(tab).toStdString() << ":\n  "
                                            << problems.join(QStringLiteral("\n  ")).toStdString();
        }
    }
}

// A calendar limit adds the Calendar, Time zone and Next resets rows and a long boundary
// warning under Algorithm: the Design tab still shows every text whole at both sizes (the
// editor scrolls rather than squeezing the warning).
TEST(MainWindow, ACalendarLimitsRowsAndWarningShowWhole)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("calendar.yaml"));
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("quota_studio: 1\nname: calendar\nroutes:\n  - id: search\n    match: { path: "
            "/v1/search }\n    limit: { algorithm: fixed_window, limit: 1000, calendar: month, "
            "time_zone: Europe/Berlin }\n");
    f.close();
    MainWindow window;
    ASSERT_TRUE(window.openFile(path, false));
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
        window.resize(size);
        QTest::qWait(50);
        const QStringList problems = layoutProblems(&window);
        EXPECT_TRUE(problems.isEmpty()) << size.width() << "x" << size.height() << ":\n  "
                                        << problems.join(QStringLiteral("\n  ")).toStdString();
    }
}

// The checker above finds what it looks for: a label too narrow for its text, a button cut
// short, two widgets of a layout placed on each other, a chart empty without a word.
TEST(MainWindow, TheLayoutCheckerFindsClippedTextOverlapsAndSilentEmptyCharts)
{
    QWidget page;
    auto *layout = new QHBoxLayout(&page);
    auto *label = new QLabel(QStringLiteral("A label far wider than the room it gets"));
    label->setFixedWidth(40);
    auto *button = new QPushButton(QStringLiteral("A button with a long caption"));
    button->setFixedWidth(40);
    auto *chart = new QChartView(new QChart);
    layout->addWidget(label);
    layout->addWidget(button);
    layout->addWidget(chart);
    page.resize(600, 300);
    page.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&page));
    button->move(label->pos()); // on top of the label
    const QString found = layoutProblems(&page).join(QLatin1Char('\n'));
    EXPECT_TRUE(found.contains(QLatin1String("label 'A label far"))) << found.toStdString();
    EXPECT_TRUE(found.contains(QLatin1String("button 'A button"))) << found.toStdString();
    EXPECT_TRUE(found.contains(QLatin1String("overlap"))) << found.toStdString();
    EXPECT_TRUE(found.contains(QLatin1String("empty and says nothing"))) << found.toStdString();
}
