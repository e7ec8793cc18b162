// The Monitor tab as an operator meets it: typed into, clicked, against a real redis-server fed
// by the real load generator. Offscreen; screenshots land in the build tree for review.
#include "limiter/redis/redisaddress.h"
#include "model/redis/loadgenerator.h"
#include "model/redis/localcluster.h"
#include "model/redis/localdemo.h"
#include "screenshot.h"
#include "tests/integration/monitor/monitorfixture.h"
#include "tests/support/redisprocess.h"
#include "tests/support/testsupport.h"
#include "ui/common/chartfiles.h"
#include "ui/common/livechart.h"
#include "ui/document/policydocument.h"
#include "ui/mainwindow.h"
#include "ui/monitor/connectionpanel.h"
#include "ui/monitor/discoverdialog.h"
#include "ui/monitor/hotkeysmodel.h"
#include "ui/monitor/monitorpage.h"

#include <QAction>
#include <QApplication>
#include <QAreaSeries>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStyleFactory>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <QValueAxis>

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <limits>
#include <thread>

using namespace qs;
using namespace qs::test;

namespace {

// Three routes with small limits, so that the hottest clients are throttled within seconds;
// metrics on, so that the requests chart has the deployment's own counts.
const QByteArray kPolicy = R"(quota_studio: 1
name: monitor-ui
redis: { prefix: qs, metrics: true }
routes:
  - { id: login, match: { path: /login }, limit: { algorithm: token_bucket, capacity: 5, refill: 1/s } }
  - { id: search, match: { path: /search }, limit: { algorithm: sliding_window_counter, limit: 20, window: 10s } }
  - { id: orders, match: { path: /orders }, limit: { algorithm: gcra, rate: 5/s, burst: 10 } }
)";

QString writePolicy(const QTemporaryDir &dir, const QByteArray &yaml = kPolicy)
{
    const QString path = dir.filePath(QStringLiteral("monitor-ui.yaml"));
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(yaml);
    return path;
}

// The load generator in a thread, as a fleet of gateways would write the keys.
class Traffic {
public:
    Traffic(const Policy &policy, int port, double rps = 400, int clients = 60,
        const std::vector<limiter::RedisAddress> &cluster = {})
    {
        LoadPlan plan;
        plan.endpoint.port = port;
        plan.endpoint.setSeeds(cluster);
        plan.routes = *loadRoutesFor(policy, {});
        plan.rps = rps;
        plan.clients = clients;
        plan.pattern = LoadPlan::Pattern::Zipf;
        plan.durationSeconds = 120;
        plan.connections = 1;
        plan.pipeline = 8;
        m_thread = std::thread([plan, this] { runLoad(plan, m_stop); });
    }
    ~Traffic()
    {
        m_stop = true;
        m_thread.join();
    }

private:
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

// The page's widgets as a person finds them: by what they are and their object name.
template <class W>
W *widget(const QWidget *page, const char *name)
{
    W *w = page->findChild<W *>(QString::fromLatin1(name));
    EXPECT_NE(w, nullptr) << "no " << name;
    return w;
}

QLabel *stateLabel(const MonitorPage *page)
{
    return widget<QLabel>(page, "connectionState");
}

LiveChart *chart(const MonitorPage *page, const char *name)
{
    return widget<LiveChart>(page, name);
}

QTableView *hotKeysView(const MonitorPage *page)
{
    return widget<QTableView>(page, "hotKeys");
}

QAbstractItemModel *hotKeysFilter(const MonitorPage *page)
{
    return hotKeysView(page)->model();
}

HotKeysModel *hotKeys(const MonitorPage *page)
{
    return qobject_cast<HotKeysModel *>(
        qobject_cast<QSortFilterProxyModel *>(hotKeysFilter(page))->sourceModel());
}

ConnectionPanel *connectionPanel(const MonitorPage *page)
{
    return page->findChild<ConnectionPanel *>();
}

// Typed and clicked like a person: host, port and password into the panel, then Connect.
void connectThroughPanel(MonitorPage *page, int port, const QString &password = {})
{
    ConnectionPanel *panel = connectionPanel(page);
    auto *host = panel->findChild<QLineEdit *>(QStringLiteral("host"));
    auto *portBox = panel->findChild<QSpinBox *>(QStringLiteral("port"));
    auto *pass = panel->findChild<QLineEdit *>(QStringLiteral("password"));
    host->selectAll();
    QTest::keyClicks(host, QStringLiteral("127.0.0.1"));
    portBox->selectAll();
    QTest::keyClicks(portBox, QString::number(port));
    pass->clear();
    if (!password.isEmpty())
        QTest::keyClicks(pass, password);
    QTest::mouseClick(panel->findChild<QPushButton *>(QStringLiteral("connect")), Qt::LeftButton);
}

bool waitForState(MonitorPage *page, const QString &words, int ms = 10000)
{
    return QTest::qWaitFor([&] { return stateLabel(page)->text().contains(words); }, ms);
}

size_t points(const LiveChart *chart, const QString &series)
{
    for (const Series &s : chart->series())
        if (s.name == series)
            return s.t.size();
    return 0;
}

double lastValue(const LiveChart *chart, const QString &series)
{
    for (const Series &s : chart->series())
        if (s.name == series && !s.value.empty())
            return s.value.back();
    return -1;
}

bool processAlive(qint64 pid)
{
    return pid > 0 && ::kill(pid_t(pid), 0) == 0;
}

// The routes the hot-keys table shows keys of.
QSet<QString> routesOfHotKeys(const MonitorPage *page)
{
    const HotKeysModel *model = hotKeys(page);
    QSet<QString> routes;
    for (int r = 0; r < model->rowCount(); ++r)
        routes.insert(
            model->data(model->index(r, HotKeysModel::Route), Qt::DisplayRole).toString());
    return routes;
}

struct Window {
    QTemporaryDir dir;
    MainWindow window;
    MonitorPage *page = nullptr;
    explicit Window(const QByteArray &policy = kPolicy)
    {
        EXPECT_TRUE(window.openFile(writePolicy(dir, policy), false));
        window.show();
        EXPECT_TRUE(QTest::qWaitForWindowExposed(&window));
        page = window.monitorPage();
        window.findChild<QTabWidget *>()->setCurrentWidget(page);
    }
};

} // namespace

TEST(MonitorPage, ConnectedToALoadedServerTheChartsAndHotKeysFill)
{
    RedisProcess server;
    ASSERT_TRUE(server.start());
    Window w;
    Traffic traffic(w.window.document()->policy(), server.port());
    connectThroughPanel(w.page, server.port());
    ASSERT_TRUE(waitForState(w.page, QStringLiteral("Connected")))
        << stateLabel(w.page)->text().toStdString();
    // A few refreshes: keys read, metrics counted, a point per refresh on each chart.
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return hotKeys(w.page)->rowCount() > 0
                && points(chart(w.page, "keysChart"), "keys seen") >= 3
                && points(chart(w.page, "requestsChart"), "allowed") >= 2;
        },
        20000));
    // The keys chart's last point is the last refresh's count over all routes (the chart is
    // drawn from the refresh it has just recorded).
    qint64 seen = 0;
    for (const RouteStatus &r : w.page->monitor()->history().back().routes)
        seen += r.keys;
    EXPECT_EQ(lastValue(chart(w.page, "keysChart"), "keys seen"), double(seen));
    EXPECT_GT(seen, 0);
    EXPECT_GT(lastValue(chart(w.page, "requestsChart"), "allowed")
            + lastValue(chart(w.page, "requestsChart"), "denied"),
        0);
    // Zipf traffic at 400/s over 60 clients: the hottest login client is over 5 + 1/s. The
    // table fills a moment after the chart (its rows are sorted on a worker thread): wait for a
    // throttled row in it, then the sort must have put one first.
    HotKeysModel *model = hotKeys(w.page);
    const auto anyThrottled = [&] {
        for (int r = 0; r < model->rowCount(); ++r)
            if (model->row(r).throttled)
                return true;
        return false;
    };
    ASSERT_TRUE(QTest::qWaitFor(anyThrottled, 10000));
    EXPECT_TRUE(model->row(0).throttled) << "sorted by % used, keys over their limit come first";
    EXPECT_TRUE(model->data(model->index(0, 0), Qt::BackgroundRole).isValid())
        << "a key over its limit is highlighted";

    // Pause freezes what is shown while collecting goes on; Resume shows what came meanwhile.
    QTest::mouseClick(w.page->findChild<QPushButton *>(QStringLiteral("pause")), Qt::LeftButton);
    const size_t shown = points(chart(w.page, "keysChart"), "keys seen");
    const size_t recorded = w.page->timeline().points();
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.page->timeline().points() >= recorded + 2; }, 5000));
    EXPECT_EQ(points(chart(w.page, "keysChart"), "keys seen"), shown)
        << "paused charts do not move";
    QTest::mouseClick(w.page->findChild<QPushButton *>(QStringLiteral("pause")), Qt::LeftButton);
    EXPECT_GE(points(chart(w.page, "keysChart"), "keys seen"), shown + 2)
        << "resumed: the gap filled";

    // The CSV holds the window's series on one time base, a row per refresh.
    const QByteArray csv = seriesCsv(w.page->windowSeries());
    const QList<QByteArray> lines = csv.trimmed().split('\n');
    ASSERT_GE(lines.size(), 4);
    EXPECT_TRUE(lines[0].startsWith("t_s,keys seen (keys),")) << lines[0].toStdString();
    EXPECT_TRUE(lines[0].contains("allowed (requests/s)")) << lines[0].toStdString();
    EXPECT_EQ(size_t(lines.size() - 1), w.page->windowSeries().front().t.size());

    // Filter by route and text, as typed.
    widget<QComboBox>(w.page, "keyRoute")
        ->setCurrentIndex(widget<QComboBox>(w.page, "keyRoute")->findText(QStringLiteral("login")));
    for (int r = 0; r < hotKeysFilter(w.page)->rowCount(); ++r)
        EXPECT_EQ(hotKeysFilter(w.page)->index(r, HotKeysModel::Route).data().toString(), "login");
    QTest::keyClicks(widget<QLineEdit>(w.page, "keyFilter"), QStringLiteral("CLIENT-1"));
    ASSERT_GT(hotKeysFilter(w.page)->rowCount(), 0);
    for (int r = 0; r < hotKeysFilter(w.page)->rowCount(); ++r)
        EXPECT_TRUE(
            hotKeysFilter(w.page)->index(r, 0).data().toString().startsWith("qs:login:client-1"));

    // Selecting a key charts its remaining quota; the selection stays across refreshes.
    QTableView *table = hotKeysView(w.page);
    const QRect first = table->visualRect(hotKeysFilter(w.page)->index(0, 0));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, first.center());
    const QString selected = table->currentIndex().data().toString();
    ASSERT_FALSE(selected.isEmpty());
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return points(chart(w.page, "keyChart"), "remaining") >= 3; }, 10000));
    EXPECT_EQ(table->currentIndex().data().toString(), selected);
}

// A Redis Cluster of its own (tests/integration/cluster-fixture, three masters): the first
// master typed as Host/Port, the others as "More seeds", and the tab reads all three.
TEST(MonitorPage, ReadsEveryMasterOfARedisClusterFromTheSeedsTyped)
{
    QTemporaryDir state;
    const std::string fixture = QS_CLUSTER_FIXTURE;
    const std::string dir = state.filePath(QStringLiteral("cluster")).toStdString();
    ASSERT_EQ(
        std::system(("QS_CLUSTER_REPLICAS=0 " + fixture + " start " + dir + " >/dev/null").c_str()),
        0);
    struct Stop {
        std::string command;
        ~Stop() { std::system(command.c_str()); }
    } stop{fixture + " stop " + dir + " >/dev/null 2>&1"};
    QFile seedsFile(QString::fromStdString(dir + "/seeds"));
    ASSERT_TRUE(seedsFile.open(QIODevice::ReadOnly));
    const QString seeds = QString::fromUtf8(seedsFile.readAll()).trimmed();
    const auto masters = limiter::parseRedisAddresses(seeds.toStdString()).addresses;
    ASSERT_EQ(masters.size(), 3u);

    Window w;
    Traffic traffic(w.window.document()->policy(), masters[0].port, 400, 60, masters);
    ConnectionPanel *panel = connectionPanel(w.page);
    auto *more = panel->findChild<QLineEdit *>(QStringLiteral("seeds"));
    ASSERT_TRUE(more);
    QTest::keyClicks(more, seeds.section(QLatin1Char(','), 1));
    connectThroughPanel(w.page, masters[0].port);
    const auto allThree = [&] {
        const auto &history = w.page->monitor()->history();
        if (history.empty() || history.back().nodes.size() != 3 || !history.back().scanComplete)
            return false;
        for (const NodeStatus &n : history.back().nodes)
            if (n.state != RespClient::State::Connected || n.keys == 0)
                return false;
        return hotKeys(w.page)->rowCount() > 0;
    };
    ASSERT_TRUE(QTest::qWaitFor(allThree, 20000))
        << w.page->findChild<QLabel *>(QStringLiteral("summary"))->text().toStdString();
    EXPECT_TRUE(w.page->monitor()->isCluster());
    const QLabel *summary = w.page->findChild<QLabel *>(QStringLiteral("summary"));
    ASSERT_TRUE(summary);
    EXPECT_TRUE(summary->text().contains(QStringLiteral("cluster: 3 of 3 nodes read")))
        << summary->text().toStdString();
    for (const auto &m : masters)
        EXPECT_TRUE(summary->toolTip().contains(QString::fromStdString(m.text())))
            << summary->toolTip().toStdString();
    // The rows are every master's keys: as many as the keys chart counts.
    qint64 seen = 0;
    for (const NodeStatus &n : w.page->monitor()->history().back().nodes)
        seen += n.keys;
    EXPECT_GT(seen, 0);
    // The deployment's per-second metrics, summed over the masters, reach the requests chart.
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return points(chart(w.page, "keysChart"), "keys seen") >= 4
                && lastValue(chart(w.page, "requestsChart"), "allowed") > 0;
        },
        15000));
    w.window.resize(1280, 800);
    EXPECT_FALSE(saveScreenshot(&w.window, QStringLiteral("monitor-cluster-1280x800")).isEmpty());
}

TEST(MonitorPage, AKilledServerShowsUnreachableThenConnectedWithoutARestart)
{
    RedisProcess server;
    ASSERT_TRUE(server.start());
    Window w;
    connectThroughPanel(w.page, server.port());
    ASSERT_TRUE(waitForState(w.page, QStringLiteral("Connected")));
    LiveChart *keys = chart(w.page, "keysChart");
    ASSERT_TRUE(QTest::qWaitFor([&] { return points(keys, "keys seen") >= 2; }, 10000));
    server.stop();
    ASSERT_TRUE(waitForState(w.page, QStringLiteral("Unreachable")))
        << stateLabel(w.page)->text().toStdString();
    ASSERT_TRUE(waitForState(w.page, QStringLiteral("retrying in"), 3000))
        << "the state says when it tries again: " << stateLabel(w.page)->text().toStdString();
    ASSERT_TRUE(server.start());
    ASSERT_TRUE(waitForState(w.page, QStringLiteral("Connected"), 20000))
        << stateLabel(w.page)->text().toStdString();
    // The outage is a gap in the chart, not a line from before to after: a NaN point with
    // points on either side, and a shaded "not connected" band over it.
    const auto gapThenPoints = [&] {
        for (const Series &s : keys->series())
            if (s.name == QStringLiteral("keys seen")) {
                const auto gap = std::find_if(
                    s.value.begin(), s.value.end(), [](double v) { return std::isnan(v); });
                return gap != s.value.begin() && gap != s.value.end() && s.value.end() - gap >= 3;
            }
        return false;
    };
    ASSERT_TRUE(QTest::qWaitFor(gapThenPoints, 10000));
    int bands = 0;
    for (QAbstractSeries *s : keys->chart()->series())
        bands += qobject_cast<QAreaSeries *>(s) != nullptr;
    EXPECT_EQ(bands, 1);
}

// A new connection starts new series; data kept after a disconnection says whose it is; an
// empty chart says why it is empty.
TEST(MonitorPage, ANewConnectionStartsNewSeriesAndEmptyChartsSayWhy)
{
    RedisProcess server;
    ASSERT_TRUE(server.start());
    Admin admin(server.port());
    admin.run({"SET", "qs:login:alice", "1"});
    Window w;
    LiveChart *keys = chart(w.page, "keysChart");
    EXPECT_TRUE(keys->chart()->title().contains(QStringLiteral("not connected")))
        << keys->chart()->title().toStdString();
    connectThroughPanel(w.page, server.port());
    ASSERT_TRUE(QTest::qWaitFor([&] { return points(keys, "keys seen") >= 2; }, 10000));
    QTest::mouseClick(
        connectionPanel(w.page)->findChild<QPushButton *>(QStringLiteral("disconnect")),
        Qt::LeftButton);
    EXPECT_GE(points(keys, "keys seen"), 2u) << "the data stays to be read";
    EXPECT_TRUE(keys->chart()->title().contains(QStringLiteral("the last data of 127.0.0.1:")))
        << keys->chart()->title().toStdString();
    // Another server, which does not answer: none of the last server's points under its name.
    connectThroughPanel(w.page, freeLoopbackPort());
    ASSERT_TRUE(waitForState(w.page, QStringLiteral("Unreachable")));
    EXPECT_EQ(points(keys, "keys seen"), 0u);
    EXPECT_TRUE(keys->chart()->title().contains(QStringLiteral("not connected")))
        << keys->chart()->title().toStdString();
    EXPECT_FALSE(keys->chart()->title().contains(QStringLiteral("last data")));
}

TEST(MonitorPage, AWrongPasswordSaysSoAndNoPasswordReachesTheSettings)
{
    RedisProcess server({"--requirepass", "s3cret-for-test"});
    ASSERT_TRUE(server.start());
    Window w;
    connectThroughPanel(w.page, server.port(), QStringLiteral("not-the-password"));
    ASSERT_TRUE(waitForState(w.page, QStringLiteral("Authentication failed")))
        << stateLabel(w.page)->text().toStdString();
    EXPECT_FALSE(stateLabel(w.page)->text().contains(QStringLiteral("not-the-password")));
    connectThroughPanel(w.page, server.port(), QStringLiteral("s3cret-for-test"));
    ASSERT_TRUE(waitForState(w.page, QStringLiteral("Connected")));

    // A saved profile keeps everything but the password: not in the settings file, in clear
    // or otherwise (the keychain may or may not be there; either way the file never has it).
    const QString profile = QStringLiteral("prod-%1").arg(QCoreApplication::applicationPid());
    connectionPanel(w.page)
        ->findChild<QCheckBox *>(QStringLiteral("keepPassword"))
        ->setChecked(true);
    connectionPanel(w.page)->saveProfile(profile);
    QTest::qWait(200); // the keychain answers asynchronously
    QSettings settings;
    settings.sync();
    QFile file(settings.fileName());
    ASSERT_TRUE(file.open(QIODevice::ReadOnly)) << settings.fileName().toStdString();
    const QByteArray stored = file.readAll();
    EXPECT_TRUE(stored.contains(profile.toUtf8()));
    EXPECT_TRUE(stored.contains(QByteArray::number(server.port())));
    EXPECT_FALSE(stored.contains("s3cret"))
        << "the password reached " << settings.fileName().toStdString();
    connectionPanel(w.page)->deleteProfile(profile);
}

TEST(MonitorPage, TheLocalDemoFillsTheChartsAndStopsLeavingNoProcess)
{
    if (LocalDemo::redisServerPath().isEmpty())
        GTEST_SKIP() << "redis-server not installed";
    Window w;
    QElapsedTimer clock;
    clock.start();
    QTest::mouseClick(widget<QPushButton>(w.page, "demo"), Qt::LeftButton);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return points(chart(w.page, "requestsChart"), "allowed") >= 2
                && hotKeys(w.page)->rowCount() > 0;
        },
        15000))
        << stateLabel(w.page)->text().toStdString();
    RecordProperty(
        "seconds_to_moving_charts", QString::number(clock.elapsed() / 1000.0).toStdString());
    const qint64 pid = w.page->demo()->serverPid();
    ASSERT_TRUE(processAlive(pid));
    EXPECT_TRUE(widget<QPushButton>(w.page, "demo")->text().contains(QStringLiteral("Stop")));
    QSignalSpy stopped(w.page, &MonitorPage::demoStateChanged);
    QTest::mouseClick(widget<QPushButton>(w.page, "demo"), Qt::LeftButton);
    ASSERT_TRUE(stopped.wait(10000));
    EXPECT_FALSE(w.page->demoRunning());
    EXPECT_TRUE(QTest::qWaitFor([&] { return !processAlive(pid); }, 5000))
        << "the demo's redis-server " << pid << " is still running";
    EXPECT_TRUE(widget<QPushButton>(w.page, "demo")->text().contains(QStringLiteral("Start")));
    const QString summary = widget<QLabel>(w.page, "summary")->text();
    EXPECT_FALSE(summary.contains(QStringLiteral("Stopping"))) << "stopped, and says so";
    EXPECT_TRUE(summary.contains(QStringLiteral("stopped"))) << summary.toStdString();

    // Closing the window (the app's exit) stops a running demo too.
    auto window = std::make_unique<MainWindow>();
    window->show();
    window->monitorPage()->startDemo();
    ASSERT_TRUE(QTest::qWaitFor([&] { return window->monitorPage()->demoRunning(); }, 10000));
    const qint64 second = window->monitorPage()->demo()->serverPid();
    ASSERT_TRUE(processAlive(second));
    window->close();
    window.reset();
    EXPECT_TRUE(QTest::qWaitFor([&] { return !processAlive(second); }, 5000))
        << "the demo's redis-server " << second << " outlived its window";
}

// A policy whose route has two limits plays in the local demo (loadgen decides both with one
// call) and each limit is a route of its own in the Monitor tab, with its own keys.
TEST(MonitorPage, TheLocalDemoPlaysSeveralLimitsAndShowsEachLimitsKeys)
{
    if (LocalDemo::redisServerPath().isEmpty())
        GTEST_SKIP() << "redis-server not installed";
    Window w(R"(quota_studio: 1
name: several
defaults: { key: header:X-Api-Key }
routes:
  - id: search
    match: { path: /v1/search }
    limits:
      - { name: burst, algorithm: token_bucket, capacity: 5, refill: 1/s }
      - { name: daily, algorithm: fixed_window, limit: 30, window: 1d }
)");
    QTest::mouseClick(widget<QPushButton>(w.page, "demo"), Qt::LeftButton);
    const auto routesShown = [&] { return routesOfHotKeys(w.page); };
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            const QSet<QString> routes = routesShown();
            return routes.contains(QStringLiteral("search/burst"))
                && routes.contains(QStringLiteral("search/daily"))
                && points(chart(w.page, "requestsChart"), "allowed") >= 2;
        },
        15000))
        << stateLabel(w.page)->text().toStdString();
    // Each request counted once, for the route, whichever of its limits decided it.
    EXPECT_GT(lastValue(chart(w.page, "requestsChart"), "allowed")
            + lastValue(chart(w.page, "requestsChart"), "denied"),
        0);
    w.window.resize(1280, 800);
    QTest::qWait(300);
    EXPECT_FALSE(
        saveScreenshot(&w.window, QStringLiteral("monitor-several-limits-1280x800")).isEmpty());
    QSignalSpy stopped(w.page, &MonitorPage::demoStateChanged);
    QTest::mouseClick(widget<QPushButton>(w.page, "demo"), Qt::LeftButton);
    ASSERT_TRUE(stopped.wait(10000));
}

// A policy with plans plays in the local demo: each plan's keys are a route of their own, and the
// chart of one plan's target, picked with the keyboard, shows that plan's share of the requests.
TEST(MonitorPage, TheLocalDemoPlaysEachPlanAndChartsAPlansRequests)
{
    if (LocalDemo::redisServerPath().isEmpty())
        GTEST_SKIP() << "redis-server not installed";
    Window w(R"(quota_studio: 1
name: plans
redis: { metrics: true }
defaults: { key: header:X-Api-Key }
plans: { names: [free, pro, enterprise], from: header:X-Plan }
routes:
  - id: search
    match: { path: /v1/search }
    limit: { algorithm: token_bucket, capacity: 5, refill: 1/s, plans: { pro: { capacity: 50, refill: 10/s }, enterprise: unlimited } }
)");
    QTest::mouseClick(widget<QPushButton>(w.page, "demo"), Qt::LeftButton);
    const auto routesShown = [&] { return routesOfHotKeys(w.page); };
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            const QSet<QString> routes = routesShown();
            return routes.contains(QStringLiteral("search@free"))
                && routes.contains(QStringLiteral("search@pro"));
        },
        15000))
        << stateLabel(w.page)->text().toStdString();
    auto *route = widget<QComboBox>(w.page, "chartRoute");
    route->setFocus();
    while (route->currentText() != QLatin1String("search@free")
        && route->currentIndex() < route->count() - 1)
        QTest::keyClick(route, Qt::Key_Down);
    ASSERT_EQ(route->currentText(), QStringLiteral("search@free"));
    LiveChart *requests = chart(w.page, "requestsChart");
    ASSERT_TRUE(QTest::qWaitFor([&] { return points(requests, "denied (free)") >= 2; }, 10000));
    EXPECT_GT(lastValue(requests, "denied (free)"), 0) << "free's 1/s denies the demo's traffic";
    for (const QSize size : {QSize(1024, 640), QSize(1280, 800), QSize(1920, 1080)}) {
        w.window.resize(size);
        QTest::qWait(300);
        EXPECT_FALSE(saveScreenshot(
            &w.window, QStringLiteral("monitor-plans-%1x%2").arg(size.width()).arg(size.height()))
                         .isEmpty());
    }
    QSignalSpy stopped(w.page, &MonitorPage::demoStateChanged);
    QTest::mouseClick(widget<QPushButton>(w.page, "demo"), Qt::LeftButton);
    ASSERT_TRUE(stopped.wait(10000));
}

// The Monitor menu's cluster demo: three masters of its own, traffic on all of them, every
// master read; stopping it leaves no process.
TEST(MonitorPage, TheLocalClusterDemoReadsEveryMasterAndStopsLeavingNoProcess)
{
    if (LocalDemo::redisServerPath().isEmpty() || LocalCluster::redisCliPath().isEmpty())
        GTEST_SKIP() << "redis-server or redis-cli not installed";
    Window w;
    QAction *start = nullptr;
    for (QAction *a : w.window.findChildren<QAction *>())
        if (a->text().remove(QLatin1Char('&')) == QStringLiteral("Start local cluster demo"))
            start = a;
    ASSERT_TRUE(start);
    start->trigger();
    const auto allRead = [&] {
        if (!w.page->monitor() || w.page->monitor()->history().empty())
            return false;
        const MonitorSnapshot &s = w.page->monitor()->history().back();
        if (s.nodes.size() != 3)
            return false;
        for (const NodeStatus &n : s.nodes)
            if (n.state != RespClient::State::Connected || n.keys == 0)
                return false;
        return points(chart(w.page, "requestsChart"), "allowed") >= 2;
    };
    ASSERT_TRUE(QTest::qWaitFor(allRead, 25000))
        << w.page->findChild<QLabel *>(QStringLiteral("summary"))->text().toStdString();
    const QList<qint64> pids = w.page->demo()->serverPids();
    ASSERT_EQ(pids.size(), 3);
    QSignalSpy stopped(w.page, &MonitorPage::demoStateChanged);
    QTest::mouseClick(widget<QPushButton>(w.page, "demo"), Qt::LeftButton);
    ASSERT_TRUE(stopped.wait(10000));
    EXPECT_FALSE(w.page->demoRunning());
    for (qint64 pid : pids)
        EXPECT_TRUE(QTest::qWaitFor([&] { return !processAlive(pid); }, 5000)) << pid;
}

TEST(MonitorPage, ResetIsDisabledWhileReadOnlyAndThenDeletesExactlyTheConfirmedKey)
{
    RedisProcess server;
    ASSERT_TRUE(server.start());
    Admin admin(server.port());
    // Hour-long windows and no metrics: the keys stay put, so that DBSIZE counts the deletion.
    QTemporaryDir dir;
    MainWindow window;
    ASSERT_TRUE(window.openFile(writePolicy(dir, R"(quota_studio: 1
name: reset-ui
routes:
  - { id: reports, match: { path: /r }, limit: { algorithm: fixed_window, limit: 100, window: 1h } }
)"),
        false));
    window.show();
    struct {
        MonitorPage *page;
    } w{window.monitorPage()};
    {
        Traffic traffic(window.document()->policy(), server.port(), 200, 5);
        ASSERT_TRUE(QTest::qWaitFor([&] { return admin.run({"DBSIZE"}) == "5"; }, 10000));
    }
    connectThroughPanel(w.page, server.port());
    ASSERT_TRUE(QTest::qWaitFor([&] { return hotKeys(w.page)->rowCount() >= 5; }, 15000));
    QTableView *table = hotKeysView(w.page);
    table->selectRow(0);
    const QString key = table->currentIndex().siblingAtColumn(0).data().toString();
    ASSERT_FALSE(key.isEmpty());
    EXPECT_FALSE(widget<QCheckBox>(w.page, "allowWrites")->isChecked())
        << "read-only is the default";
    EXPECT_FALSE(widget<QPushButton>(w.page, "resetKey")->isEnabled());

    QString asked;
    w.page->setConfirm([&](const QString &, const QString &question) {
        asked = question;
        return true;
    });
    // On the box itself: a check box takes clicks on its indicator and label only.
    QTest::mouseClick(widget<QCheckBox>(w.page, "allowWrites"), Qt::LeftButton, {},
        QPoint(6, widget<QCheckBox>(w.page, "allowWrites")->height() / 2));
    ASSERT_TRUE(widget<QCheckBox>(w.page, "allowWrites")->isChecked());
    ASSERT_TRUE(widget<QPushButton>(w.page, "resetKey")->isEnabled())
        << stateLabel(w.page)->text().toStdString() << " current " << table->currentIndex().row();
    const int before = std::stoi(admin.run({"DBSIZE"}));
    QTest::mouseClick(widget<QPushButton>(w.page, "resetKey"), Qt::LeftButton);
    EXPECT_TRUE(asked.contains(key)) << asked.toStdString();
    EXPECT_TRUE(asked.contains(QStringLiteral("127.0.0.1:%1").arg(server.port())))
        << asked.toStdString();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return admin.run({"EXISTS", key.toStdString()}) == "0";
        },
        5000));
    EXPECT_EQ(std::stoi(admin.run({"DBSIZE"})), before - 1) << "exactly one key deleted";

    // Declining the question deletes nothing.
    w.page->setConfirm([](const QString &, const QString &) { return false; });
    table->selectRow(1);
    const std::string other
        = table->currentIndex().siblingAtColumn(0).data().toString().toStdString();
    QTest::mouseClick(widget<QPushButton>(w.page, "resetKey"), Qt::LeftButton);
    QTest::qWait(300);
    EXPECT_EQ(admin.run({"EXISTS", other}), "1");
}

TEST(MonitorPage, DiscoverOffersThePythonLimitsLayoutAndUndoTakesItBack)
{
    RedisProcess server;
    ASSERT_TRUE(server.start());
    std::string output;
    ASSERT_EQ(run("/usr/bin/python3 " + std::string(QS_MONITOR_TEST_DATA)
                      + "/python_limits_keys.py " + std::to_string(server.port()) + " 2>&1",
                  &output),
        0)
        << output;
    Window w;
    connectionPanel(w.page)->findChild<QSpinBox *>(QStringLiteral("port"))->setValue(server.port());
    QTest::mouseClick(widget<QPushButton>(w.page, "discover"), Qt::LeftButton);
    DiscoverDialog *dialog = w.page->findChild<DiscoverDialog *>();
    ASSERT_NE(dialog, nullptr);
    QSignalSpy surveyed(dialog, &DiscoverDialog::surveyed);
    ASSERT_TRUE(surveyed.wait(15000));
    ASSERT_TRUE(dialog->selectPreset(QStringLiteral("python-limits")))
        << "families: " << dialog->families()->rowCount();
    dialog->route()->setCurrentIndex(dialog->route()->findText(QStringLiteral("search")));
    ASSERT_TRUE(dialog->addButton()->isEnabled());
    const Policy before = w.window.document()->policy();
    QTest::mouseClick(dialog->addButton(), Qt::LeftButton);
    const Policy &after = w.window.document()->policy();
    ASSERT_EQ(after.redis.layouts.size(), before.redis.layouts.size() + 1);
    EXPECT_EQ(after.redis.layouts.back().routeId, QStringLiteral("search"));
    EXPECT_EQ(
        after.redis.layouts.back().preset.value_or(QString()), QStringLiteral("python-limits"));
    EXPECT_TRUE(after.redis.layouts.back().keyTemplate.startsWith(QStringLiteral("LIMITER/")));
    EXPECT_TRUE(w.window.document()->isModified());
    w.window.document()->undoStack()->undo(); // Edit ▸ Undo
    EXPECT_EQ(w.window.document()->policy().redis.layouts, before.redis.layouts);
    EXPECT_FALSE(w.window.document()->isModified());

    // Redo and Save: the file is the original text with the one edited line, the redis map, now
    // holding the layout in the file's own flow style; every other byte as it was.
    const QString path = w.window.document()->filePath();
    QFile original(path);
    ASSERT_TRUE(original.open(QIODevice::ReadOnly));
    const QByteArray originalText = original.readAll();
    original.close();
    w.window.document()->undoStack()->redo();
    const QString key = w.window.document()->policy().redis.layouts.back().keyTemplate;
    ASSERT_TRUE(w.window.save());
    QFile saved(path);
    ASSERT_TRUE(saved.open(QIODevice::ReadOnly));
    QByteArray expected = originalText;
    expected.replace("redis: { prefix: qs, metrics: true }",
        "redis: { prefix: qs, metrics: true, layouts: [{ route: search, preset: python-limits, "
        "key: \""
            + key.toUtf8() + "\" }] }");
    EXPECT_EQ(saved.readAll().toStdString(), expected.toStdString());
}

TEST(MonitorPage, ScreenshotsInLightAndDarkAtBothSizes)
{
    if (LocalDemo::redisServerPath().isEmpty())
        GTEST_SKIP() << "redis-server not installed";
    Window w;
    w.window.resize(1280, 800);
    w.page->startDemo();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return points(chart(w.page, "keysChart"), "keys seen") >= 6
                && hotKeys(w.page)->rowCount() > 0;
        },
        20000));
    hotKeysView(w.page)->selectRow(0);
    QTest::qWait(3000); // the selected key's chart gathers a few points
    const QPalette light = QApplication::palette();
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::WindowText, Qt::white);
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::AlternateBase, QColor(0x2f, 0x2f, 0x2f));
    dark.setColor(QPalette::Text, Qt::white);
    dark.setColor(QPalette::Button, QColor(0x3a, 0x3a, 0x3a));
    dark.setColor(QPalette::ButtonText, Qt::white);
    dark.setColor(QPalette::Highlight, QColor(0x2a, 0x82, 0xda));
    for (const auto role : {QPalette::Text, QPalette::ButtonText, QPalette::WindowText})
        dark.setColor(QPalette::Disabled, role, QColor(0x80, 0x80, 0x80));
    for (const auto &[name, palette] : {std::pair{"light", light}, std::pair{"dark", dark}}) {
        QApplication::setPalette(palette);
        for (const QSize size : {QSize(1024, 640), QSize(1280, 800), QSize(1920, 1080)}) {
            w.window.resize(size);
            QTest::qWait(1200); // a refresh at the new size
            if (size.width() >= 1280) { // every column of the hot keys in sight, the key readable
                QTableView *table = hotKeysView(w.page);
                const QHeaderView *header = table->horizontalHeader();
                const int last = HotKeysModel::LastChange;
                EXPECT_LE(header->sectionViewportPosition(last) + header->sectionSize(last),
                    table->viewport()->width())
                    << size.width() << "x" << size.height();
                EXPECT_GE(header->sectionSize(HotKeysModel::Key), 120);
            }
            EXPECT_FALSE(saveScreenshot(&w.window,
                QStringLiteral("monitor-%1-%2x%3")
                    .arg(QLatin1String(name))
                    .arg(size.width())
                    .arg(size.height()))
                             .isEmpty());
        }
    }
    QApplication::setPalette(light);
}

TEST(HotKeysModel, SortsByShareFiltersByRouteAndTextAndKeepsTheSelectedKey)
{
    HotKeysModel model;
    model.setRoutes({QStringLiteral("a"), QStringLiteral("b")});
    HotKeysFilter filter(&model);
    const auto row = [](const char *key, int route, qint64 remaining, bool throttled = false) {
        KeyRow r;
        r.key = key;
        r.route = route;
        r.limit = 10;
        r.remaining = remaining;
        r.throttled = throttled;
        return r;
    };
    model.update({row("k1", 0, 9), row("k2", 1, 2), row("k3", 0, 0, true), row("k4", 1, 5)}, 0);
    ASSERT_EQ(model.rowCount(), 4);
    EXPECT_EQ(model.row(0).key, "k3") << "throttled first";
    EXPECT_EQ(model.row(1).key, "k2");
    EXPECT_EQ(model.row(3).key, "k1");
    EXPECT_EQ(model.index(1, HotKeysModel::Used).data().toString(), QStringLiteral("80 %"));

    // Same keys, new numbers: rows move, a persistent index (a selection) follows its key.
    QPersistentModelIndex selected(filter.index(1, 0)); // k2
    model.update({row("k1", 0, 0), row("k2", 1, 2), row("k3", 0, 0, true), row("k4", 1, 5)}, 0);
    EXPECT_EQ(selected.data().toString(), QStringLiteral("k2"));
    EXPECT_EQ(model.row(1).key, "k1");

    filter.setRoute(1);
    ASSERT_EQ(filter.rowCount(), 2);
    filter.setText(QStringLiteral("K4"));
    ASSERT_EQ(filter.rowCount(), 1);
    EXPECT_EQ(filter.index(0, 0).data().toString(), QStringLiteral("k4"));

    filter.setText({});
    filter.setRoute(-1);
    filter.sort(HotKeysModel::Key, Qt::AscendingOrder); // the header's click, through the proxy
    EXPECT_EQ(filter.index(0, 0).data().toString(), QStringLiteral("k1"));
    EXPECT_EQ(filter.index(3, 0).data().toString(), QStringLiteral("k4"));

    // A shadow route's key over its limit would be throttled, and is not: said in the route
    // column and the tooltip, in another colour than an enforced route's throttled key.
    model.setRoutes({QStringLiteral("a"), QStringLiteral("b")}, {false, true});
    model.update({row("enforced", 0, 0, true), row("shadowed", 1, 0, true)}, 0);
    const int enforced = model.rowOf("enforced"), shadowed = model.rowOf("shadowed");
    EXPECT_EQ(
        model.index(shadowed, HotKeysModel::Route).data().toString(), QStringLiteral("b (shadow)"));
    EXPECT_TRUE(model.index(shadowed, HotKeysModel::Key)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("would be refused")));
    EXPECT_NE(model.index(shadowed, 0).data(Qt::BackgroundRole),
        model.index(enforced, 0).data(Qt::BackgroundRole));
}

// A dynamic-tick axis builds one item per tick at once: going from 0–1 to 0–1 000 000 with the
// interval changed after the range would build a million ticks and hang the GUI (it did, on
// the first refresh of 100 000 keys). With the coarse setting first this returns at once; the
// broken order runs into ctest's timeout.
TEST(LiveChart, AJumpToAMillionKeepsAFewRoundTicks)
{
    LiveChart chart(
        {QStringLiteral("Keys"), QStringLiteral("time before now (s)"), QStringLiteral("keys")});
    chart.resize(600, 300);
    chart.show({}, 60);
    Series keys{
        QStringLiteral("keys seen"), QStringLiteral("keys"), {-1, 0}, {0, 1e6}, {0, 1e6}, {0, 1e6}};
    chart.show({keys}, 60);
    auto *y = qobject_cast<QValueAxis *>(chart.chart()->axes(Qt::Vertical).first());
    ASSERT_NE(y, nullptr);
    EXPECT_GE(y->max(), 1e6);
    EXPECT_LE(y->max() / y->tickInterval(), 10) << "about eight round ticks";
    chart.show({}, 3600); // and back down, to an hour in minutes
    EXPECT_LE(y->max() / y->tickInterval(), 10);
}

// A gap (NaN) breaks the line and is shaded once, "not connected" in the legend; each series
// keeps one legend entry however many segments it has.
TEST(LiveChart, AGapBreaksTheLineAndIsShadedOnce)
{
    LiveChart chart(
        {QStringLiteral("Keys"), QStringLiteral("time before now (s)"), QStringLiteral("keys")});
    chart.resize(600, 300);
    chart.QWidget::show(); // legend markers are visible only on a shown chart
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> t{-11, -10, -5.5, -1, 0};
    Series keys{
        QStringLiteral("keys seen"), QStringLiteral("keys"), t, {200, 200, nan, 0, 0}, {}, {}};
    Series throttled{
        QStringLiteral("throttled now"), QStringLiteral("keys"), t, {5, 5, nan, 0, 0}, {}, {}};
    chart.show({keys, throttled}, 60);
    QList<QLineSeries *> lines;
    QList<QAreaSeries *> bands;
    for (QAbstractSeries *s : chart.chart()->series()) {
        if (auto *line = qobject_cast<QLineSeries *>(s))
            lines << line;
        if (auto *band = qobject_cast<QAreaSeries *>(s))
            bands << band;
    }
    ASSERT_EQ(lines.size(), 4) << "two segments per series";
    ASSERT_EQ(bands.size(), 1) << "one band for the one outage";
    EXPECT_EQ(bands[0]->name(), QStringLiteral("not connected"));
    EXPECT_EQ(bands[0]->upperSeries()->at(0).x(), -10);
    EXPECT_EQ(bands[0]->upperSeries()->at(1).x(), -1);
    for (QLineSeries *line : lines)
        for (const QPointF &p : line->points())
            EXPECT_FALSE(std::isnan(p.y()));
    QTest::qWait(100); // the legend lays its markers out on the next turn of the event loop
    int visibleMarkers = 0;
    for (QLegendMarker *m : chart.chart()->legend()->markers())
        visibleMarkers += m->isVisible() ? 1 : 0;
    EXPECT_EQ(visibleMarkers, 3) << "keys seen, throttled now, not connected";
    EXPECT_FALSE(saveScreenshot(&chart, QStringLiteral("livechart-gap")).isEmpty());
    chart.show({}, 60); // gone again: no line, no band left behind
    EXPECT_TRUE(chart.chart()->series().isEmpty());
}
