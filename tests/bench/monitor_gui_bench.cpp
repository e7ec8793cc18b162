// The Monitor tab under load: the real main window connected to a local redis-server holding N
// Quota Studio keys (default 100 000), every key read every second (no read budget), the
// hot-keys table holding all of them. Prints the GUI thread's worst gap between 5 ms timer
// ticks while it runs, against the same probe on the same window before connecting (the
// reference, in the same run), and the process' memory with the keys tracked and the history
// the run accumulated (run it for 900 s to measure 15 minutes of history).
//
// A writer thread changes CHANGES keys per second meanwhile (default 20 000: new token counts,
// so rows change places in the table sorted by % used, as in a live deployment).
//
//   build-bench-gui/tests/bench/monitor_gui_bench [KEYS] [SECONDS] [CHANGES]
#include "limiter/redis/packeddoubles.h"
#include "tests/bench/benchredis.h"
#include "tests/bench/memoryprobe.h"
#include "ui/common/icons.h"
#include "ui/mainwindow.h"
#include "ui/monitor/connectionpanel.h"
#include "ui/monitor/hotkeysmodel.h"
#include "ui/monitor/monitorpage.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <hiredis/hiredis.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace qs;

namespace {

const QByteArray kPolicy = R"(quota_studio: 1
name: monitor-gui-bench
routes:
  - { id: api, match: { path: /api }, limit: { algorithm: token_bucket, capacity: 10, refill: 1/min } }
)";

// The gaps between the ticks of a 5 ms timer: a busy GUI thread shows as a long gap.
class StallProbe {
public:
    StallProbe()
    {
        m_timer.setInterval(5);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const qint64 gap = m_clock.restart();
            m_gaps.push_back(gap);
        });
        m_clock.start();
        m_timer.start();
    }
    qint64 worst() const
    {
        return m_gaps.empty() ? 0 : *std::max_element(m_gaps.begin(), m_gaps.end());
    }
    qint64 percentile(double p) const
    {
        if (m_gaps.empty())
            return 0;
        std::vector<qint64> sorted = m_gaps;
        std::sort(sorted.begin(), sorted.end());
        return sorted[std::min(sorted.size() - 1, size_t(p / 100 * double(sorted.size())))];
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    std::vector<qint64> m_gaps;
};

long rssKiB()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLong();
    return 0;
}

void load(redisContext *c, long keys, long long nowUs)
{
    const double state[2] = {7.0, double(nowUs)};
    const std::string value = limiter::packDoubles(state);
    for (long i = 0; i < keys; ++i) {
        char name[48];
        std::snprintf(name, sizeof name, "qs:api:client-%07ld", i);
        redisAppendCommand(c, "SET %s %b PX 7200000", name, value.data(), value.size());
        if (i % 10'000 == 9'999 || i + 1 == keys)
            for (long j = i / 10'000 * 10'000; j <= i; ++j) {
                void *r = nullptr;
                redisGetReply(c, &r);
                freeReplyObject(r);
            }
    }
}

// Rewrites random keys with random token counts (0–10) at `perSecond`, until `stop`.
void churn(int port, long keys, long perSecond, const std::atomic<bool> &stop)
{
    redisContext *c = redisConnect("127.0.0.1", port);
    std::mt19937_64 rng(7);
    const auto begin = std::chrono::steady_clock::now();
    long written = 0;
    while (!stop) {
        const double elapsed
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        if (double(written) > elapsed * double(perSecond)) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            continue;
        }
        const double nowUs = double(bench::redisTimeUs(c));
        for (int i = 0; i < 500; ++i) {
            const double state[2] = {double(rng() % 11), nowUs};
            const std::string value = limiter::packDoubles(state);
            char name[48];
            std::snprintf(name, sizeof name, "qs:api:client-%07ld", long(rng() % keys));
            redisAppendCommand(c, "SET %s %b PX 7200000", name, value.data(), value.size());
        }
        for (int i = 0; i < 500; ++i) {
            void *r = nullptr;
            redisGetReply(c, &r);
            freeReplyObject(r);
        }
        written += 500;
    }
    redisFree(c);
}

// The event loop as the app runs it (exec, idle when there is nothing to do), for `ms`.
void runFor(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    initResources();
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // progress shows as it happens, also in a pipe
    const long keys = argc > 1 ? std::atol(argv[1]) : 100'000;
    const int seconds = argc > 2 ? std::atoi(argv[2]) : 30;
    const long changes = argc > 3 ? std::atol(argv[3]) : 20'000;

    QTemporaryDir dir;
    const int port = bench::startRedis(dir.path().toStdString());
    if (port == 0)
        return 2;
    redisContext *admin = redisConnect("127.0.0.1", port);
    const long long nowUs = bench::redisTimeUs(admin);
    std::printf("loading %ld Quota Studio token-bucket keys...\n", keys);
    load(admin, keys, nowUs);

    QFile policy(dir.filePath(QStringLiteral("bench.yaml")));
    policy.open(QIODevice::WriteOnly);
    policy.write(kPolicy);
    policy.close();
    MainWindow window;
    window.openFile(policy.fileName(), false);
    window.resize(1920, 1080);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        return 2;
    MonitorPage *page = window.monitorPage();
    window.findChild<QTabWidget *>()->setCurrentWidget(page);

    // The reference: the same window, same probe, not connected.
    long idleWorst = 0;
    {
        StallProbe idle;
        runFor(5000);
        idleWorst = long(idle.worst());
    }
    const long rssBefore = rssKiB();
    const size_t heapBefore = bench::heapInUse();

    auto *panel = page->findChild<ConnectionPanel *>();
    panel->findChild<QSpinBox *>(QStringLiteral("port"))->setValue(port);
    panel->findChild<QSpinBox *>(QStringLiteral("budget"))->setValue(0);
    const QAbstractItemModel *table
        = page->findChild<QTableView *>(QStringLiteral("hotKeys"))->model();
    QElapsedTimer untilFull;
    untilFull.start();
    page->connectToServer();
    while (table->rowCount() < keys && untilFull.elapsed() < 120'000)
        runFor(100);
    std::printf("hot-keys table holds %d keys after %.1f s\n", table->rowCount(),
        double(untilFull.elapsed()) / 1000);

    std::vector<qint64> readPerRefresh;
    QObject::connect(page->monitor(), &QuotaMonitor::refreshed,
        [&](const MonitorSnapshot &s) { readPerRefresh.push_back(s.keysRead); });
    std::atomic<bool> stopChurn{false};
    std::thread writer(churn, port, keys, changes, std::cref(stopChurn));
    StallProbe busy;
    runFor(seconds * 1000);
    stopChurn = true;
    writer.join();
    std::sort(readPerRefresh.begin(), readPerRefresh.end());
    const qint64 medianRead
        = readPerRefresh.empty() ? 0 : readPerRefresh[readPerRefresh.size() / 2];
    const long rssAfter = rssKiB();
    const size_t heapAfter = bench::heapInUse();

    std::printf("\n%ld keys (%ld changed per second), %d s, %zu refreshes, median keys read per "
                "refresh %lld (%.0f%% of the keys every refresh)\n",
        keys, changes, seconds, readPerRefresh.size(), (long long)medianRead,
        100.0 * double(medianRead) / double(keys));
    std::printf("GUI thread gap between 5 ms ticks: worst %lld ms, p99 %lld ms, p50 %lld ms\n",
        (long long)busy.worst(), (long long)busy.percentile(99), (long long)busy.percentile(50));
    std::printf("reference (same window, not connected, 5 s): worst %ld ms\n", idleWorst);
    std::printf("ratio worst/50 ms target: %.2f\n", double(busy.worst()) / 50.0);
    std::printf("memory: RSS %ld MiB before connecting, %ld MiB after %d s with %ld keys "
                "(+%ld MiB); heap +%.1f MiB; history %zu points\n",
        rssBefore / 1024, rssAfter / 1024, seconds, keys, (rssAfter - rssBefore) / 1024,
        double(heapAfter - heapBefore) / (1024.0 * 1024.0), page->timeline().points());
    page->disconnectFromServer();
    redisCommand(admin, "SHUTDOWN NOSAVE");
    redisFree(admin);
    return 0;
}
