// The Probe tab as an operator meets it: a real NGINX runs the policy's own export, the URL is
// typed, F5 pressed; the chart fills while the traffic runs, the report lands in the table, and
// the saved report and chart are read back. Offscreen; screenshots land in the build tree.
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"
#include "screenshot.h"
#include "tests/support/livegateway.h"
#include "tests/support/planfiles.h"
#include "tests/support/testsupport.h"
#include "ui/design/quantityedit.h"
#include "ui/mainwindow.h"
#include "ui/probe/probepage.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QXYSeries>

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;

namespace {

const QByteArray kPolicy = R"(quota_studio: 1
name: probe-ui
defaults: { key: header:X-Api-Key }
routes:
  - id: api
    match: { path: /api/** }
    limit: { algorithm: gcra, rate: 10/s, burst: 5 }
  - id: window
    match: { path: /window }
    limit: { algorithm: fixed_window, limit: 5, window: 1s }
)";

struct LiveSetup {
    QTemporaryDir dir;
    std::unique_ptr<LiveGateway> nginx;
    int port = 0;
    QString policyPath;
};

// The policy on disk and NGINX on its export, as the docs tell an operator to run it.
bool start(LiveSetup &s)
{
    const std::string nginx = requireTool("nginx", QS_NGINX);
    if (nginx.empty())
        return false;
    s.policyPath = s.dir.filePath(QStringLiteral("probe-ui.yaml"));
    QFile f(s.policyPath);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(kPolicy);
    f.close();
    const ExportResult result = exporterById(QStringLiteral("nginx"))
                                    ->exportPolicy(readPolicy(kPolicy, s.policyPath).policy);
    std::map<std::string, std::string> files;
    for (const ExportedFile &e : result.files)
        files[e.name.toStdString()] = e.content.toStdString();
    s.nginx = std::make_unique<LiveGateway>(files, std::vector<int>{8080, 8081});
    EXPECT_EQ(s.nginx->startNginx(nginx, "nginx.conf"), "");
    s.port = s.nginx->port(8080);
    return true;
}

// Replaces a line edit's text the way a person does: select all, type.
// Writes kPolicy into `dir`, shows `window` active (keys go to it) and opens the policy.
bool openActive(MainWindow &window, const QTemporaryDir &dir)
{
    const QString path = dir.filePath(QStringLiteral("p.yaml"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(kPolicy) != kPolicy.size())
        return false;
    f.close();
    window.show();
    window.activateWindow();
    return QTest::qWaitForWindowActive(&window) && window.openFile(path, false);
}

void typeInto(QLineEdit *edit, const QString &text)
{
    edit->setFocus();
    QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(edit, text);
}

QString tableText(QTableWidget *t)
{
    QString out;
    for (int r = 0; r < t->rowCount(); ++r)
        out += t->item(r, 0)->text() + QStringLiteral(": ") + t->item(r, 1)->text() + '\n';
    return out;
}

} // namespace

TEST(ProbePage, TypedUrlF5AndTheGatewayIsFoundToEnforceTheDesign)
{
    LiveSetup s;
    if (!start(s))
        GTEST_SKIP() << "nginx missing";
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
    ASSERT_TRUE(window.openFile(s.policyPath, false));
    ProbePage *page = window.probePage();
    auto *tabs = window.findChild<QTabWidget *>();
    ASSERT_TRUE(tabs);
    QTest::keyClick(&window, Qt::Key_5, Qt::ControlModifier);
    ASSERT_EQ(tabs->currentWidget(), page) << "Ctrl+5 opens the Probe tab";

    EXPECT_EQ(page->routeBox()->currentText(), QStringLiteral("api"));
    EXPECT_EQ(page->trafficEdit()->text(), QStringLiteral("steady:20/s")) << "twice the rate";
    typeInto(page->urlEdit(), QStringLiteral("http://127.0.0.1:%1").arg(s.port));
    page->gatewayBox()->setCurrentIndex(page->gatewayBox()->findData(QStringLiteral("nginx")));
    page->durationEdit()->countBox()->setValue(3);

    QSignalSpy done(page, &ProbePage::finished);
    QTest::keyClick(page->urlEdit(), Qt::Key_F5);
    // A button's shortcut clicks it after a short animation.
    EXPECT_TRUE(QTest::qWaitFor([&] { return page->isRunning(); }, 1000));
    // While it runs, the chart follows.
    QTest::qWait(1500);
    const auto live = page->chart()->chart()->series();
    ASSERT_GE(live.size(), 2);
    EXPECT_GT(static_cast<QXYSeries *>(live.front())->count(), 0) << "the chart fills live";
    ASSERT_TRUE(done.wait(20000));

    ASSERT_TRUE(page->lastReport());
    const ProbeReport &r = *page->lastReport();
    EXPECT_GE(r.agreement, 0.99) << tableText(page->reportTable()).toStdString();
    EXPECT_GT(r.responses - r.observedAllowed, 0);
    EXPECT_TRUE(page->statusLabel()->text().contains(QLatin1String("enforces the design")))
        << page->statusLabel()->text().toStdString();
    const QString table = tableText(page->reportTable());
    EXPECT_TRUE(table.contains(QLatin1String("Agreement: 100"))) << table.toStdString();
    EXPECT_TRUE(table.contains(QLatin1String("retry_after_missing")))
        << "NGINX sends no Retry-After: " << table.toStdString();
    const QChart *chart = page->chart()->chart();
    EXPECT_FALSE(chart->title().isEmpty());
    EXPECT_EQ(chart->axes(Qt::Horizontal).size(), 1);
    EXPECT_TRUE(chart->legend()->isVisible());
    // Per-second buckets, said in the title: a steady 10/s reads as about 10, not 0-4 swings
    // of quarter seconds.
    EXPECT_TRUE(chart->title().contains(QLatin1String("averaged over 1 s")))
        << chart->title().toStdString();
    for (QAbstractSeries *series : chart->series()) {
        auto *line = qobject_cast<QLineSeries *>(series);
        if (line && line->count() > 1) {
            EXPECT_DOUBLE_EQ(line->at(1).x() - line->at(0).x(), 1.0) << line->name().toStdString();
            EXPECT_GT(line->at(line->count() - 1).y(), 5.0)
                << "no last bucket holding the last request alone";
        }
    }

    // The report as JSON and CSV, the chart as PNG, read back.
    QTemporaryDir out;
    ASSERT_TRUE(page->saveReport(out.filePath(QStringLiteral("r.json"))).hasValue());
    QFile json(out.filePath(QStringLiteral("r.json")));
    ASSERT_TRUE(json.open(QIODevice::ReadOnly));
    const QJsonObject j = QJsonDocument::fromJson(json.readAll()).object();
    EXPECT_EQ(j[QStringLiteral("requests")].toInteger(), r.requests);
    EXPECT_EQ(j[QStringLiteral("route")].toString(), QStringLiteral("api"));
    ASSERT_TRUE(page->saveReport(out.filePath(QStringLiteral("r.csv"))).hasValue());
    QFile csv(out.filePath(QStringLiteral("r.csv")));
    ASSERT_TRUE(csv.open(QIODevice::ReadOnly));
    EXPECT_EQ(csv.readAll().count('\n'), r.requests + 1);
    ASSERT_TRUE(page->saveChart(out.filePath(QStringLiteral("c.png"))).hasValue());
    const QImage png(out.filePath(QStringLiteral("c.png")));
    ASSERT_FALSE(png.isNull());
    EXPECT_GT(png.width(), 300);
    EXPECT_GT(png.height(), 200);
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
        window.resize(size);
        QTest::qWait(200);
        EXPECT_FALSE(saveScreenshot(
            &window, QStringLiteral("probe-%1x%2").arg(size.width()).arg(size.height()))
                         .isEmpty());
    }
}

TEST(ProbePage, ApproximationIsExplainedAndAPlainUpstreamFailsTheVerdict)
{
    LiveSetup s;
    if (!start(s))
        GTEST_SKIP() << "nginx missing";
    MainWindow window;
    ASSERT_TRUE(window.openFile(s.policyPath, false));
    ProbePage *page = window.probePage();
    page->routeBox()->setCurrentIndex(1); // window
    typeInto(page->trafficEdit(), QStringLiteral("steady:20/s"));
    typeInto(page->urlEdit(), QStringLiteral("http://127.0.0.1:%1").arg(s.port));
    page->gatewayBox()->setCurrentIndex(page->gatewayBox()->findData(QStringLiteral("nginx")));
    page->durationEdit()->countBox()->setValue(3);
    QSignalSpy done(page, &ProbePage::finished);
    page->run();
    ASSERT_TRUE(done.wait(20000));
    EXPECT_GT(page->lastReport()->explained, 0);
    EXPECT_EQ(page->lastReport()->unexplained, 0);

    // The stand-in backend behind NGINX limits nothing.
    typeInto(
        page->urlEdit(), QStringLiteral("http://127.0.0.1:%1/window").arg(s.nginx->port(8081)));
    page->run();
    ASSERT_TRUE(done.wait(20000));
    EXPECT_GT(page->lastReport()->unexplained, 0);
    EXPECT_TRUE(page->statusLabel()->text().contains(QLatin1String("does NOT enforce")))
        << page->statusLabel()->text().toStdString();
    EXPECT_TRUE(tableText(page->reportTable()).contains(QLatin1String("First divergence")));
}

TEST(ProbePage, RefusesAHostThatIsNotLoopbackAndCancelStopsARun)
{
    QTemporaryDir dir;
    MainWindow window;
    ASSERT_TRUE(openActive(window, dir));
    ProbePage *page = window.probePage();
    QTest::keyClick(&window, Qt::Key_5, Qt::ControlModifier);
    typeInto(page->urlEdit(), QStringLiteral("http://example.com/"));
    page->run();
    EXPECT_FALSE(page->isRunning());
    EXPECT_TRUE(page->statusLabel()->text().contains(QLatin1String("--allow-host")))
        << page->statusLabel()->text().toStdString();

    // A silent listener: requests hang until cancelled.
    const int port = freeLoopbackPort();
    QTcpServer silent;
    ASSERT_TRUE(silent.listen(QHostAddress::LocalHost, quint16(port)));
    typeInto(page->urlEdit(), QStringLiteral("http://127.0.0.1:%1").arg(port));
    QSignalSpy done(page, &ProbePage::finished);
    page->run();
    ASSERT_TRUE(page->isRunning());
    QTest::qWait(300);
    // Esc wherever the focus is: the inputs are disabled while the probe runs.
    QTest::keyClick(
        QApplication::focusWidget() ? QApplication::focusWidget() : page, Qt::Key_Escape);
    ASSERT_TRUE(done.wait(5000)) << "focus on "
                                 << (QApplication::focusWidget()
                                            ? QApplication::focusWidget()->metaObject()->className()
                                            : "nothing");
    EXPECT_FALSE(page->isRunning());
    EXPECT_TRUE(page->lastReport()->cancelled);
}

// A gateway that is not running: the report says it did not answer and judges nothing (it
// showed 0.00 % divergences and "no issue found").
TEST(ProbePage, AStoppedGatewayIsSaidNotToAnswerAndNothingIsJudged)
{
    QTemporaryDir dir;
    MainWindow window;
    ASSERT_TRUE(openActive(window, dir));
    ProbePage *page = window.probePage();
    window.tabs()->setCurrentWidget(page);
    typeInto(page->urlEdit(), QStringLiteral("http://127.0.0.1:%1").arg(freeLoopbackPort()));
    QSignalSpy done(page, &ProbePage::finished);
    page->run();
    ASSERT_TRUE(done.wait(20000));
    ASSERT_TRUE(page->lastReport());
    EXPECT_FALSE(page->lastReport()->unreachable.isEmpty());
    EXPECT_TRUE(page->statusLabel()->text().contains(QStringLiteral("could not be reached")))
        << page->statusLabel()->text().toStdString();
    QStringList rows;
    const QTableWidget *table = page->reportTable();
    for (int r = 0; r < table->rowCount(); ++r)
        rows << table->item(r, 0)->text() + QStringLiteral(": ") + table->item(r, 1)->text();
    const QString all = rows.join(QLatin1Char('\n'));
    EXPECT_TRUE(all.contains(QStringLiteral("Gateway: did not answer"))) << all.toStdString();
    EXPECT_FALSE(all.contains(QStringLiteral("Agreement"))) << all.toStdString();
    EXPECT_FALSE(all.contains(QStringLiteral("no issue found"))) << all.toStdString();
    EXPECT_FALSE(all.contains(QStringLiteral("%"))) << all.toStdString();
}

// A policy with plans from X-Plan, its NGINX export running: the plan mix typed into the
// traffic, F5, and the table has a row per plan, each decided on its own numbers.
TEST(ProbePage, APlanMixInTheTrafficIsProbedPlanByPlan)
{
    const std::string nginx = requireTool("nginx", QS_NGINX);
    if (nginx.empty())
        GTEST_SKIP() << "nginx missing";
    const QByteArray policy = kHeaderPlansPolicy;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("plans.yaml"));
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly) && f.write(policy) == policy.size());
    f.close();
    std::map<std::string, std::string> files;
    for (const ExportedFile &e :
        exporterById(QStringLiteral("nginx"))->exportPolicy(readPolicyFile(path).policy).files)
        files[e.name.toStdString()] = e.content.toStdString();
    LiveGateway gateway(files, std::vector<int>{8080, 8081});
    ASSERT_EQ(gateway.startNginx(nginx, "nginx.conf"), "");

    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
    ASSERT_TRUE(window.openFile(path, false));
    ProbePage *page = window.probePage();
    QTest::keyClick(&window, Qt::Key_5, Qt::ControlModifier);
    typeInto(page->trafficEdit(), QStringLiteral("poisson:60/s,clients=6,plans=free:1/pro:1"));
    typeInto(page->urlEdit(), QStringLiteral("http://127.0.0.1:%1").arg(gateway.port(8080)));
    page->gatewayBox()->setCurrentIndex(page->gatewayBox()->findData(QStringLiteral("nginx")));
    page->durationEdit()->countBox()->setValue(3);
    QSignalSpy done(page, &ProbePage::finished);
    QTest::keyClick(page->urlEdit(), Qt::Key_F5);
    ASSERT_TRUE(done.wait(20000));

    ASSERT_TRUE(page->lastReport());
    const QString table = tableText(page->reportTable());
    EXPECT_GE(page->lastReport()->agreement, 0.99) << table.toStdString();
    EXPECT_TRUE(table.contains(
        QRegularExpression(QStringLiteral("Plan free: 100(\\.0+)? % agreement on \\d+ responses"))))
        << table.toStdString();
    EXPECT_TRUE(table.contains(
        QRegularExpression(QStringLiteral("Plan pro: 100(\\.0+)? % agreement on \\d+ responses"))))
        << table.toStdString();
    EXPECT_TRUE(table.contains(QLatin1String("Plan enterprise: no request of the probe")))
        << "the traffic put no client on enterprise: " << table.toStdString();
    EXPECT_TRUE(table.contains(QLatin1String("Limit default@pro:"))) << table.toStdString();
    for (const QSize size : {QSize(1024, 640), QSize(1280, 800), QSize(1920, 1080)}) {
        window.resize(size);
        QTest::qWait(200);
        EXPECT_FALSE(saveScreenshot(
            &window, QStringLiteral("probe-plans-%1x%2").arg(size.width()).arg(size.height()))
                         .isEmpty());
    }
}
