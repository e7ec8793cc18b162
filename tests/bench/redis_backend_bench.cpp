// RedisBackend's own throughput with pipelining (to compare with redis-benchmark on the same
// script and depth), and Redis memory per key for each algorithm's state.
//   redis_backend_bench throughput PORT|SEEDS SECONDS CONNECTIONS PIPELINE KEYS [metrics]
//   [lua|module]
//     (SEEDS: host:port,host:port… of a Redis Cluster; metrics: the route counts per second;
//     lua|module: force the engine, else the module where the server has it)
//   redis_backend_bench several PORT SECONDS KEYS [module]
//     (one limit by acquire() against two by acquireAll(), same keys and run: Redis CPU per
//     request from INFO commandstats, and requests per second)
//   redis_backend_bench memory PORT
//   redis_backend_bench script ALGORITHM     (prints the embedded Lua script)
#include "limiter/redis/redisbackend.h"
#include "limiter/redis/redisscripts.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace qs::limiter;

namespace {

int throughput(const std::string &where, double seconds, int connections, int pipeline, int keys,
    bool metrics, RedisEngine engine)
{
    // The same bucket as the redis-benchmark runs: capacity high enough to admit everything.
    RedisRule rule{
        "bench:tb", TokenBucketConfig{1'000'000'000, Rate{1'000'000'000, kMicrosPerSecond}}};
    rule.metrics = metrics;
    RedisEndpoint endpoint;
    const RedisAddressList seeds
        = parseRedisAddresses(where.find(':') == std::string::npos ? "127.0.0.1:" + where : where);
    if (!seeds.error.empty()) {
        std::fprintf(stderr, "%s\n", seeds.error.c_str());
        return 2;
    }
    endpoint.setSeeds(seeds.addresses);
    endpoint.engine = engine;
    std::atomic<long> done{0}, errors{0};
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    std::vector<std::thread> threads;
    const auto begin = std::chrono::steady_clock::now();
    for (int c = 0; c < connections; ++c)
        threads.emplace_back([&, c] {
            RedisBackend backend(endpoint);
            if (!backend.connect()) {
                std::fprintf(stderr, "%s\n", backend.lastError().c_str());
                ++errors;
                return;
            }
            std::vector<std::string> names(static_cast<std::size_t>(pipeline));
            std::vector<RedisRequest> batch(static_cast<std::size_t>(pipeline));
            unsigned x = 12345u + unsigned(c);
            while (std::chrono::steady_clock::now() < end) {
                for (std::size_t i = 0; i < batch.size(); ++i) {
                    x = x * 1103515245u + 12345u;
                    names[i] = keys <= 1 ? std::string("hot") : std::to_string(x % unsigned(keys));
                    batch[i] = {&rule, names[i], 1, std::nullopt};
                }
                for (const Decision &d : backend.acquireBatch(batch))
                    errors += d.reason == Reason::StoreError;
                done += pipeline;
            }
        });
    for (auto &t : threads)
        t.join();
    const double elapsed
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    std::printf("%.0f\n", double(done.load()) / elapsed);
    return errors.load() == 0 ? 0 : 1;
}

long long memoryUsage(redisContext *c, const std::string &key)
{
    auto *r = static_cast<redisReply *>(
        redisCommand(c, "MEMORY USAGE %b SAMPLES 0", key.data(), key.size()));
    const long long bytes = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
    if (r)
        freeReplyObject(r);
    return bytes;
}

int memory(int port)
{
    RedisEndpoint e;
    e.port = port;
    RedisBackend backend(e);
    if (!backend.connect()) {
        std::fprintf(stderr, "%s\n", backend.lastError().c_str());
        return 1;
    }
    redisContext *c = redisConnect("127.0.0.1", port);
    FixedWindowConfig fw;
    fw.limit = 1000;
    fw.window = kMicrosPerMinute;
    SlidingWindowCounterConfig swc;
    swc.limit = 1000;
    swc.window = kMicrosPerMinute;
    SlidingWindowLogConfig log;
    log.limit = 1000;
    log.window = kMicrosPerMinute;
    const struct {
        const char *name;
        AlgorithmConfig config;
        int requests;
    } states[] = {
        {"token_bucket", TokenBucketConfig{100, Rate{10, kMicrosPerSecond}}, 3},
        {"leaky_bucket", LeakyBucketConfig{Rate{10, kMicrosPerSecond}, 100, LeakMode::Shape}, 3},
        {"fixed_window", fw, 3},
        {"sliding_window_counter", swc, 3},
        {"gcra", GcraConfig{Rate{10, kMicrosPerSecond}, 100}, 3},
        {"sliding_window_log (10 entries)", log, 10},
        {"sliding_window_log (1000 entries)", log, 1000},
    };
    int n = 0;
    for (const auto &s : states) {
        const RedisRule rule{"mem:" + std::to_string(n++), s.config};
        for (int i = 0; i < s.requests; ++i)
            backend.acquire(rule, "203.0.113.7");
        std::printf(
            "%-34s %lld bytes\n", s.name, memoryUsage(c, backend.stateKey(rule, "203.0.113.7")));
    }
    redisFree(c);
    return 0;
}

} // namespace

// `usec` and `calls` of a command so far ("evalsha", "qs.decide"), from INFO commandstats.
std::pair<long long, long long> commandStats(redisContext *c, const std::string &command)
{
    auto *r = static_cast<redisReply *>(redisCommand(c, "INFO commandstats"));
    long long usec = 0, calls = 0;
    const std::string name = "cmdstat_" + command + ":";
    if (r && r->type == REDIS_REPLY_STRING)
        if (const char *line = std::strstr(r->str, name.c_str()))
            std::sscanf(line + name.size(), "calls=%lld,usec=%lld", &calls, &usec);
    freeReplyObject(r);
    return {usec, calls};
}

// One request, one limit (token bucket) against one request, two limits (the token bucket and a
// daily fixed window), alternating phases of `seconds` so that a busy machine weighs on both.
// `module`: QS.DECIDE against QS.DECIDEALL (a server that loaded the module), else the scripts.
int several(int port, double seconds, int keys, bool module)
{
    const RedisRule burst{"bench:several:tb",
        TokenBucketConfig{1'000'000'000, Rate{1'000'000'000, kMicrosPerSecond}}};
    const RedisRule daily{"bench:several:fw", FixedWindowConfig{{1'000'000'000, kMicrosPerDay}}};
    RedisEndpoint endpoint;
    endpoint.port = port;
    endpoint.engine = module ? RedisEngine::Module : RedisEngine::Lua;
    RedisBackend backend(endpoint);
    redisContext *admin = redisConnect("127.0.0.1", port);
    const std::string commands[2]
        = {module ? "qs.decide" : "evalsha", module ? "qs.decideall" : "evalsha"};
    if (!backend.connect() || !admin || admin->err) {
        std::fprintf(
            stderr, "cannot connect to 127.0.0.1:%d: %s\n", port, backend.lastError().c_str());
        return 2;
    }
    unsigned x = 12345u;
    const auto key = [&] {
        x = x * 1103515245u + 12345u;
        return std::to_string(x % unsigned(std::max(1, keys)));
    };
    double usec[2] = {0, 0}, calls[2] = {0, 0}, requests[2] = {0, 0}, wall[2] = {0, 0};
    std::vector<Decision> out(2);
    for (int round = 0; round < 4; ++round)
        for (int phase = 0; phase < 2; ++phase) {
            const auto [usec0, calls0] = commandStats(admin, commands[phase]);
            const auto begin = std::chrono::steady_clock::now();
            const auto end = begin + std::chrono::duration<double>(seconds / 4);
            long n = 0;
            while (std::chrono::steady_clock::now() < end) {
                const std::string k = key();
                if (phase == 0) {
                    backend.acquire(burst, k);
                } else {
                    const RedisLimitRequest both[] = {{&burst, k, 1, false}, {&daily, k, 1, false}};
                    backend.acquireAll(both, out);
                }
                ++n;
            }
            wall[phase]
                += std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
            const auto [usec1, calls1] = commandStats(admin, commands[phase]);
            usec[phase] += double(usec1 - usec0);
            calls[phase] += double(calls1 - calls0);
            requests[phase] += double(n);
        }
    redisFree(admin);
    const double one = usec[0] / std::max(1.0, calls[0]), two = usec[1] / std::max(1.0, calls[1]);
    std::printf("%s, keys %d, %.0f s a side, one connection, no pipeline\n",
        module ? "module (QS.DECIDE / QS.DECIDEALL)" : "scripts (EVALSHA)", keys, seconds);
    std::printf("one limit  (acquire):    %.2f us Redis CPU per request, %.0f requests/s\n", one,
        requests[0] / wall[0]);
    std::printf("two limits (acquireAll): %.2f us Redis CPU per request, %.0f requests/s\n", two,
        requests[1] / wall[1]);
    std::printf("ratio two/one: CPU %.2fx, throughput %.2fx\n", two / one,
        (requests[1] / wall[1]) / (requests[0] / wall[0]));
    return 0;
}

int main(int argc, char **argv)
{
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "throughput" && argc >= 7 && argc <= 9) {
        bool metrics = false, known = true;
        RedisEngine engine = RedisEngine::Auto;
        for (int i = 7; i < argc; ++i) {
            const std::string option = argv[i];
            if (option == "metrics")
                metrics = true;
            else if (option == "lua")
                engine = RedisEngine::Lua;
            else if (option == "module")
                engine = RedisEngine::Module;
            else
                known = false;
        }
        if (known)
            return throughput(argv[2], std::atof(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]),
                std::atoi(argv[6]), metrics, engine);
    }
    if (mode == "several" && (argc == 5 || (argc == 6 && std::string(argv[5]) == "module")))
        return several(std::atoi(argv[2]), std::atof(argv[3]), std::atoi(argv[4]), argc == 6);
    if (mode == "memory" && argc == 3)
        return memory(std::atoi(argv[2]));
    if (mode == "script" && argc == 3) {
        // The script exactly as the library embeds it, for redis-bench to SCRIPT LOAD.
        if (const auto algorithm = algorithmFromName(argv[2])) {
            const std::string_view text = redisScript(*algorithm);
            std::fwrite(text.data(), 1, text.size(), stdout);
            return 0;
        }
    }
    std::fprintf(stderr,
        "usage: %s throughput PORT|SEEDS SECONDS CONNECTIONS PIPELINE KEYS [metrics] "
        "[lua|module]\n"
        "       %s several PORT SECONDS KEYS [module]\n"
        "       %s memory PORT\n"
        "       %s script ALGORITHM\n",
        argv[0], argv[0], argv[0], argv[0]);
    return 2;
}
