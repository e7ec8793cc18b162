// The monitor end to end against a local redis-server holding N Quota Studio keys (default
// 1 000 000): keys decoded per second (SCAN + pipelined reads + decode, no budget) as a ratio to
// redis-benchmark doing pipelined GETs of the same keys on one connection in the same run; the
// monitor's memory per tracked key, with 10 minutes of per-route history; and what the monitor
// costs Redis per refresh at the default budget (INFO commandstats usec).
//
//   build-bench/tests/bench/monitor_bench [KEYS]
#include "limiter/redis/packeddoubles.h"
#include "model/monitor/quotamonitor.h"
#include "model/policy/policyreader.h"
#include "tests/bench/benchredis.h"
#include "tests/bench/memoryprobe.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>

#include <hiredis/hiredis.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

using namespace qs;

namespace {

const QByteArray kPolicy = R"(quota_studio: 1
name: monitor-bench
routes:
  - { id: api, match: { path: /api }, limit: { algorithm: token_bucket, capacity: 10, refill: 1/min } }
)";

std::string shell(const std::string &command)
{
    std::string out;
    if (FILE *p = popen(command.c_str(), "r")) {
        char buffer[4096];
        while (size_t n = fread(buffer, 1, sizeof buffer, p))
            out.append(buffer, n);
        pclose(p);
    }
    return out;
}

std::string keyName(long i)
{
    char name[32];
    std::snprintf(name, sizeof name, "qs:api:%012ld", i); // redis-benchmark's __rand_int__ form
    return name;
}

void load(redisContext *c, long keys, long long nowUs)
{
    const double state[2] = {7.0, double(nowUs)};
    const std::string value = limiter::packDoubles(state);
    for (long i = 0; i < keys; ++i) {
        const std::string k = keyName(i);
        redisAppendCommand(
            c, "SET %b %b PX 3600000", k.data(), k.size(), value.data(), value.size());
        if (i % 10'000 == 9'999 || i + 1 == keys)
            for (long j = i / 10'000 * 10'000; j <= i; ++j) {
                void *r = nullptr;
                redisGetReply(c, &r);
                freeReplyObject(r);
            }
    }
}

double redisBenchmarkGets(int port, long keys)
{
    // One connection, as the monitor has, pipelining 64 GETs of random existing keys.
    const std::string csv = shell("redis-benchmark -p " + std::to_string(port) + " -c 1 -P 64 -n "
        + std::to_string(keys) + " -r " + std::to_string(keys)
        + " --csv GET qs:api:__rand_int__ 2>/dev/null");
    // "test","rps",… then "GET qs:api:__rand_int__","123456.78",…
    const auto line = csv.find('\n');
    const auto q1 = csv.find("\",\"", line);
    return q1 == std::string::npos ? 0 : std::atof(csv.c_str() + q1 + 3);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const long keys = argc > 1 ? std::atol(argv[1]) : 1'000'000;
    const std::string dir = shell("mktemp -d | tr -d '\\n'");
    const int port = bench::startRedis(dir);
    if (port == 0)
        return 2;
    redisContext *admin = redisConnect("127.0.0.1", port);
    const long long nowUs = bench::redisTimeUs(admin);
    std::printf("loading %ld Quota Studio token-bucket keys...\n", keys);
    load(admin, keys, nowUs);

    // The reference runs before and after the monitor: this machine's throughput drifts by
    // tens of percent between runs, so the ratio is taken against the mean of the two.
    const double referenceBefore = redisBenchmarkGets(port, keys);

    const Policy policy = readPolicy(kPolicy, QStringLiteral("bench.yaml")).policy;
    const std::size_t heapBefore = bench::heapInUse();
    QuotaMonitor monitor(policy);
    MonitorOptions o;
    o.connection.port = quint16(port);
    o.connection.readTimeoutMs = 30'000;
    o.budgetPerSecond = 0;
    o.intervalMs = 60'000; // one refresh on connection, then the ones this program asks for
    o.scanCount = 1000;
    o.historySeconds = 600;
    std::vector<double> refreshSeconds;
    std::vector<MonitorSnapshot> last;
    QElapsedTimer clock;
    QObject::connect(&monitor, &QuotaMonitor::refreshed, [&](const MonitorSnapshot &s) {
        if (s.keysRead > 0) {
            refreshSeconds.push_back(double(clock.nsecsElapsed()) / 1e9);
            last = {s};
        }
    });
    clock.start();
    monitor.start(o);
    while (refreshSeconds.empty())
        QCoreApplication::processEvents(
            QEventLoop::WaitForMoreEvents); // as exec() would: no spinning
    const double firstSeconds = refreshSeconds[0];
    const qint64 firstRead = last[0].keysRead;
    const std::size_t heapTracked = bench::heapInUse();

    // 10 minutes of history at 1 Hz is 600 snapshots: measured by keeping 600 of the real ones.
    std::deque<MonitorSnapshot> history(600, last[0]);
    const std::size_t heapHistory = bench::heapInUse();
    history.clear();

    const double referenceAfter = redisBenchmarkGets(port, keys);
    const double reference = (referenceBefore + referenceAfter) / 2;

    // The default budget: Redis' CPU per refresh, from its own accounting.
    const auto statsBefore = bench::commandStats(admin);
    const std::size_t refreshesBefore = refreshSeconds.size();
    monitor.stop();
    MonitorOptions slow = o;
    slow.budgetPerSecond = 5000;
    slow.intervalMs = 1000;
    monitor.start(slow);
    clock.restart();
    while (refreshSeconds.size() < refreshesBefore + 5)
        QCoreApplication::processEvents(
            QEventLoop::WaitForMoreEvents); // as exec() would: no spinning
    const auto statsAfter = bench::commandStats(admin);
    monitor.stop();
    long long usecTotal = 0;
    std::string breakdown;
    for (const auto &[command, figures] : statsAfter) {
        const auto before = statsBefore.count(command) ? statsBefore.at(command)
                                                       : std::pair<long long, long long>{0, 0};
        const long long calls = figures.first - before.first, usec = figures.second - before.second;
        if (calls == 0 || command == "set")
            continue;
        usecTotal += usec;
        breakdown += "  " + command + ": " + std::to_string(calls / 5) + " calls, "
            + std::to_string(usec / 5) + " us per refresh\n";
    }
    const long long usecPerRefresh = usecTotal / 5;

    const double keysPerSecond = double(firstRead) / firstSeconds;
    std::printf("\nfirst refresh: %lld keys found and decoded in %.2f s = %.0f keys/s "
                "(SCAN COUNT %d + pipelined GET + decode, no budget)\n",
        (long long)firstRead, firstSeconds, keysPerSecond, o.scanCount);
    std::printf(
        "reference: redis-benchmark -c 1 -P 64 GET of the same keys: %.0f requests/s before, "
        "%.0f after\n",
        referenceBefore, referenceAfter);
    std::printf("ratio: %.2fx (target >= 0.7x)\n", reference > 0 ? keysPerSecond / reference : 0);
    std::printf("memory: %.0f bytes per tracked key; 10 minutes of history (600 snapshots): "
                "%.1f bytes per key; together %.0f bytes per key (target <= 300)\n",
        double(heapTracked - heapBefore) / double(keys),
        double(heapHistory - heapTracked) / double(keys),
        double(heapHistory - heapBefore) / double(keys));
    std::printf("Redis CPU at the default budget (5000 commands/s): %lld us per refresh "
                "(INFO commandstats usec, mean of 5 refreshes)\n",
        usecPerRefresh);
    std::printf("%s", breakdown.c_str());
    redisFree(admin);
    std::system(("kill $(cat " + dir + "/redis.pid); rm -rf " + dir).c_str());
    return 0;
}
