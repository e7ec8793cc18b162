// The monitor at a million keys, as issue "The monitor tells the truth" measured it: a Redis with
// N tutorial token-bucket hashes (`rate_limit:<n>`, read with HMGET + PTTL) and N unrelated keys.
//
// 1. Without a budget (--budget 0), default interval (1 s) and read timeout (2 s): the time until
//    every tutorial key has been read once, against the floor of the same work done by the
//    simplest clients in the same run — a synchronous SCAN MATCH COUNT 1000 loop (hiredis) and
//    one pipelined HMGET + PTTL batch of every key it found through `redis-cli --pipe`. Also how
//    often the monitor lost its connection (it must not) and the commands it sent per second.
// 2. Budgets held on the server's side: at --budget B the server's own counters (INFO
//    commandstats, sampled every 100 ms from another connection) over every 1 s window, and the
//    Redis CPU the monitor costs per second.
//
//   build-bench/tests/bench/monitor_million_bench [N]      (N default 1 000 000)
#include "model/monitor/quotamonitor.h"
#include "model/policy/policyreader.h"
#include "tests/bench/benchredis.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>

#include <hiredis/hiredis.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

using namespace qs;

namespace {

const QByteArray kPolicy = R"(quota_studio: 1
name: million
redis:
  layouts:
    - { route: api, key: "rate_limit:{key}", time_unit: s }
routes:
  - { id: api, match: { path: /api }, limit: { algorithm: token_bucket, capacity: 10, refill: 2/s } }
)";

double secondsSince(const std::chrono::steady_clock::time_point &start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void load(redisContext *c, long n)
{
    // One script per 100 000 keys: the server writes them without a round trip each.
    for (long from = 1; from <= n; from += 100'000) {
        const long to = std::min(n, from + 99'999);
        auto *r = static_cast<redisReply *>(redisCommand(c, "EVAL %s 0 %ld %ld",
            "local now = redis.call('TIME')[1] "
            "for i = tonumber(ARGV[1]), tonumber(ARGV[2]) do "
            "redis.call('HSET', 'rate_limit:' .. i, 'tokens', i % 11, 'last_updated', now) "
            "redis.call('EXPIRE', 'rate_limit:' .. i, 7200) "
            "redis.call('SET', 'session:' .. i, 'x') end return 1",
            from, to));
        freeReplyObject(r);
    }
}

// The floor: SCAN with the smallest client, then one pipelined batch with redis-cli --pipe.
double floorSeconds(redisContext *c, int port, const std::string &dir, long *found)
{
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::string> keys;
    std::string cursor = "0";
    do {
        auto *r = static_cast<redisReply *>(
            redisCommand(c, "SCAN %s MATCH rate_limit:* COUNT 1000", cursor.c_str()));
        cursor = r->element[0]->str;
        for (size_t i = 0; i < r->element[1]->elements; ++i)
            keys.emplace_back(r->element[1]->element[i]->str, r->element[1]->element[i]->len);
        freeReplyObject(r);
    } while (cursor != "0");
    const double scan = secondsSince(start);
    *found = long(keys.size());
    const std::string file = dir + "/batch.resp";
    {
        std::ofstream out(file, std::ios::binary);
        for (const std::string &k : keys) {
            out << "*4\r\n$5\r\nHMGET\r\n$" << k.size() << "\r\n"
                << k << "\r\n$6\r\ntokens\r\n$12\r\nlast_updated\r\n";
            out << "*2\r\n$4\r\nPTTL\r\n$" << k.size() << "\r\n" << k << "\r\n";
        }
    }
    const auto batchStart = std::chrono::steady_clock::now();
    std::system(
        ("redis-cli -p " + std::to_string(port) + " --pipe < " + file + " > /dev/null").c_str());
    const double batch = secondsSince(batchStart);
    std::printf("floor: SCAN COUNT 1000 loop %.2f s (%ld keys) + redis-cli --pipe HMGET+PTTL "
                "batch %.2f s = %.2f s\n",
        scan, *found, batch, scan + batch);
    return scan + batch;
}

struct FullPass {
    double seconds = 0;
    int lostConnections = 0;
    quint64 commands = 0;
};

FullPass monitorFullPass(const Policy &policy, int port, long keys)
{
    QuotaMonitor monitor(policy);
    MonitorOptions o;
    o.connection.port = quint16(port);
    o.budgetPerSecond = 0; // the defaults otherwise: 1 s interval, 2 s read timeout
    FullPass pass;
    QObject::connect(&monitor.client(), &RespClient::stateChanged, [&](RespClient::State s) {
        pass.lostConnections += s == RespClient::State::Unreachable ? 1 : 0;
    });
    bool done = false;
    QElapsedTimer clock;
    QObject::connect(&monitor, &QuotaMonitor::refreshed, [&](const MonitorSnapshot &s) {
        if (std::getenv("QS_BENCH_VERBOSE"))
            std::printf("  %.2f s: %lld read, %lld tracked, scan %s\n",
                double(clock.nsecsElapsed()) / 1e9, (long long)s.keysRead,
                (long long)monitor.trackedKeys(), s.scanComplete ? "complete" : "going on");
        if (done || !s.scanComplete || monitor.trackedKeys() < keys)
            return;
        if (qint64(monitor.keyRows().size()) < keys)
            return;
        done = true;
        pass.seconds = double(clock.nsecsElapsed()) / 1e9;
        pass.commands = s.commandsSent;
    });
    clock.start();
    monitor.start(o);
    while (!done && clock.elapsed() < 600'000)
        QCoreApplication::processEvents(
            QEventLoop::WaitForMoreEvents); // as exec() would: no spinning
    monitor.stop();
    return pass;
}

// Runs the monitor at `budget` for `seconds` while another connection samples the server's
// counters every 100 ms; prints the busiest 1 s window and the CPU per second.
void budgetOnTheServer(const Policy &policy, int port, qint64 budget, int seconds)
{
    std::atomic<bool> stop = false;
    std::vector<std::pair<double, long long>> samples; // (s, calls of every command but INFO)
    long long usecBefore = 0, usecAfter = 0;
    std::thread sampler([&] {
        redisContext *c = redisConnect("127.0.0.1", port);
        const auto start = std::chrono::steady_clock::now();
        bool first = true;
        while (!stop) {
            long long calls = 0, usec = 0;
            for (const auto &[command, figures] : bench::commandStats(c))
                if (command != "config|resetstat") {
                    calls += figures.first;
                    usec += figures.second;
                }
            samples.emplace_back(secondsSince(start), calls);
            if (first)
                usecBefore = usec;
            usecAfter = usec;
            first = false;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        redisFree(c);
    });
    QuotaMonitor monitor(policy);
    MonitorOptions o;
    o.connection.port = quint16(port);
    o.budgetPerSecond = budget;
    monitor.start(o);
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < seconds * 1000)
        QCoreApplication::processEvents(
            QEventLoop::WaitForMoreEvents); // as exec() would: no spinning
    monitor.stop();
    stop = true;
    sampler.join();
    // Every window of ten sampling intervals, i.e. about a second; a window whose samples lie
    // further apart than 1.05 s is left out (the sampler was late).
    long long worst = 0;
    int windows = 0, over = 0;
    for (size_t i = 0; i + 10 < samples.size(); ++i) {
        const double span = samples[i + 10].first - samples[i].first;
        if (span > 1.05)
            continue;
        const long long calls = samples[i + 10].second - samples[i].second;
        worst = std::max(worst, calls);
        ++windows;
        over += calls > budget ? 1 : 0;
    }
    const double elapsed = samples.empty() ? 1 : samples.back().first;
    std::printf("budget %lld/s for %d s: busiest 1 s window on the server %lld commands (%.2fx "
                "the budget); %d of %d windows over it; Redis CPU %.1f ms per second\n",
        (long long)budget, seconds, worst, double(worst) / double(budget), over, windows,
        double(usecAfter - usecBefore) / 1000 / elapsed);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const long keys = argc > 1 ? std::atol(argv[1]) : 1'000'000;
    const std::string dir = [] {
        char tmpl[] = "/tmp/qs-million-XXXXXX";
        return std::string(mkdtemp(tmpl));
    }();
    const int port = bench::startRedis(dir);
    if (port == 0)
        return 2;
    redisContext *admin = redisConnect("127.0.0.1", port);
    std::printf("loading %ld tutorial hashes and %ld unrelated keys...\n", keys, keys);
    load(admin, keys);
    const Policy policy = readPolicy(kPolicy, QStringLiteral("bench.yaml")).policy;

    long found = 0;
    if (std::getenv("QS_BENCH_PASS_ONLY")) { // for a profiler: the monitor's pass alone
        const FullPass pass = monitorFullPass(policy, port, keys);
        std::printf("monitor --budget 0: every key read once after %.2f s\n", pass.seconds);
        redisFree(admin);
        std::system(("kill $(cat " + dir + "/redis.pid); rm -rf " + dir).c_str());
        return 0;
    }
    const double floorBefore = floorSeconds(admin, port, dir, &found);
    const FullPass pass = monitorFullPass(policy, port, keys);
    const double floorAfter = floorSeconds(admin, port, dir, &found);
    const double floor = (floorBefore + floorAfter) / 2;
    std::printf("monitor --budget 0: every key read once after %.2f s; lost the connection %d "
                "times; %.0f commands/s\n",
        pass.seconds, pass.lostConnections, double(pass.commands) / std::max(0.001, pass.seconds));
    std::printf("ratio: %.2fx the floor (mean of %.2f s before and %.2f s after; target <= "
                "1.3x)\n",
        pass.seconds / floor, floorBefore, floorAfter);

    budgetOnTheServer(policy, port, 200'000, 15);
    budgetOnTheServer(policy, port, 5'000, 15);
    redisFree(admin);
    std::system(("kill $(cat " + dir + "/redis.pid); rm -rf " + dir).c_str());
    return 0;
}
