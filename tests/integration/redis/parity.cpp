#include "tests/integration/redis/parity.h"

#include "limiter/engine/engine.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <map>
#include <random>
#include <set>

namespace qs::limiter::test {

std::string uniquePrefix(const char *test)
{
    static std::atomic<int> n{0};
    return std::string("t:") + test + ":" + std::to_string(::getpid()) + "-" + std::to_string(n++);
}

AlgorithmConfig randomSmallConfig(std::mt19937_64 &rng)
{
    std::uniform_int_distribution<int> small(1, 6);
    const Rate rate{small(rng), Micros(small(rng)) * kMicrosPerSecond};
    const WindowLimit window{small(rng), Micros(small(rng)) * kMicrosPerSecond};
    switch (rng() % 6) {
    case 0:
        return TokenBucketConfig{small(rng), rate};
    case 1:
        return LeakyBucketConfig{
            rate, small(rng) - 1, rng() % 2 ? LeakMode::Shape : LeakMode::Police};
    case 2: {
        // One in four follows a calendar (days in Kolkata): several.lua's calendar_arg.
        FixedWindowConfig fixed{window};
        if (rng() % 4 == 0) {
            std::string why;
            fixed.calendar = std::make_shared<const CalendarWindows>(
                CalendarUnit::Day, calendar::TimeZone::load("Asia/Kolkata", why));
            fixed.window = kMicrosPerDay;
        }
        return fixed;
    }
    case 3:
        return SlidingWindowLogConfig{window};
    case 4:
        return SlidingWindowCounterConfig{window};
    default:
        return GcraConfig{rate, small(rng)};
    }
}

std::vector<NamedConfig> extremeConfigs()
{
    FixedWindowConfig daily;
    daily.limit = 3;
    daily.window = kMicrosPerDay;
    SlidingWindowLogConfig milli;
    milli.limit = 2;
    milli.window = 1000;
    SlidingWindowCounterConfig large;
    large.limit = 1'000'000;
    large.window = kMicrosPerSecond;
    return {
        {"token_bucket_huge", TokenBucketConfig{1'000'000, Rate{1'000'000, kMicrosPerSecond}}},
        {"token_bucket_tiny", TokenBucketConfig{2, Rate{1, kMicrosPerDay}}},
        {"gcra_tiny", GcraConfig{Rate{1, kMicrosPerDay}, 1}},
        {"gcra_huge", GcraConfig{Rate{1'000'000, kMicrosPerSecond}, 1000}},
        {"leaky_shape_fast", LeakyBucketConfig{Rate{999, kMicrosPerSecond}, 7, LeakMode::Shape}},
        {"fixed_window_daily", daily},
        {"sliding_window_log_1ms", milli},
        {"sliding_window_counter_large", large},
    };
}

Decision decideOrSayWhy(RedisBackend &backend, const RedisRule &rule, const std::string &key,
    std::int64_t cost, Micros at)
{
    const Decision d = backend.acquire(rule, key, cost, at);
    if (d.reason == Reason::StoreError)
        ADD_FAILURE() << "store error for " << rule.keyPrefix << ":" << key << ": "
                      << backend.lastError();
    return d;
}

Decision decideAndKeep(RedisBackend &backend, redisContext *admin, const RedisRule &rule,
    const std::string &key, std::int64_t cost, Micros at)
{
    const Decision d = decideOrSayWhy(backend, rule, key, cost, at);
    const std::string stateKey = backend.stateKey(rule, key);
    const char *argv[] = {"PERSIST", stateKey.c_str()};
    const std::size_t lens[] = {7, stateKey.size()};
    void *reply = redisCommandArgv(admin, 2, argv, lens);
    if (!reply)
        ADD_FAILURE() << "PERSIST " << stateKey << ": " << admin->errstr;
    freeReplyObject(reply);
    return d;
}

RedisDecider through(RedisBackend &backend, redisContext *admin)
{
    return [&backend, admin](std::size_t, const RedisRule &rule, const std::string &key,
               std::int64_t cost,
               Micros at) { return decideAndKeep(backend, admin, rule, key, cost, at); };
}

namespace {

// What the trace generator needs of a config: the span it turns over in, the most at once.
std::pair<Micros, std::int64_t> spanAndLimit(const AlgorithmConfig &config)
{
    const Quota q = peek(config, freshState(config), kParityStart);
    return {std::max<Micros>(q.window, 1000), std::max<std::int64_t>(q.limit, 1)};
}

// A call that took this long may have let its key expire before PERSIST reached it (the
// shortest TTL is 1 s; 100 ms are left for the clocks' granularity).
constexpr auto kStall = std::chrono::milliseconds(900);

// The Redis side of a trace. The decision of a stalled call is still exact (its state was
// persistent when the script read it), but its new state may be gone: that client's following
// requests move to a fresh key on both sides, so the comparison goes on from two fresh states
// instead of failing on a state the machine, not the code, lost.
class RemoteTrace {
public:
    RemoteTrace(const RedisDecider &redis, std::string name)
        : m_redis(redis), m_name(std::move(name))
    {
    }
    ~RemoteTrace()
    {
        if (m_stalls > 0)
            std::cout << m_name << ": " << m_stalls
                      << " call(s) stalled past the shortest TTL; their clients went on from fresh "
                         "keys\n";
    }

    // The key both sides use for `client` now.
    std::string keyOf(const std::string &client) const
    {
        const auto it = m_generation.find(client);
        return it == m_generation.end() ? client : client + "~" + std::to_string(it->second);
    }

    Decision decide(std::size_t index, const RedisRule &rule, const std::string &client,
        std::int64_t cost, Micros at)
    {
        const auto start = std::chrono::steady_clock::now();
        const Decision d = m_redis(index, rule, keyOf(client), cost, at);
        if (std::chrono::steady_clock::now() - start >= kStall) {
            ++m_generation[client];
            ++m_stalls;
        }
        return d;
    }

private:
    const RedisDecider &m_redis;
    std::string m_name;
    std::map<std::string, int> m_generation;
    int m_stalls = 0;
};

} // namespace

void expectSameDecision(const Decision &remote, const Decision &local, const std::string &where)
{
    ASSERT_NE(remote.reason, Reason::StoreError) << where;
    ASSERT_EQ(remote.allowed, local.allowed) << where;
    ASSERT_EQ(remote.reason, local.reason) << where;
    ASSERT_EQ(remote.remaining, local.remaining) << where;
    ASSERT_EQ(remote.retryAfter, local.retryAfter) << where;
    ASSERT_EQ(remote.resetAfter, local.resetAfter) << where;
    ASSERT_EQ(remote.delay, local.delay) << where;
    ASSERT_EQ(remote.limit, local.limit) << where;
    ASSERT_EQ(remote.window, local.window) << where;
}

void checkParityOnRandomTraces(const RedisDecider &redis, const char *prefix)
{
    for (const NamedConfig &n : parityConfigs()) {
        for (std::uint32_t seed : {1u, 2u, 3u}) {
            const RedisRule rule{uniquePrefix(prefix) + "-" + n.name, n.config};
            Engine engine;
            const RuleId id = *engine.addRule(n.config).id;
            std::mt19937_64 rng(seed);
            std::exponential_distribution<double> gap(1.0 / 150'000.0);
            std::uniform_int_distribution<int> cost(1, 3), key(0, 3), burst(0, 9);
            Micros now = kParityStart + Micros(seed) * 977;
            RemoteTrace remoteTrace(redis, std::string(n.name) + " seed " + std::to_string(seed));
            int allowed = 0;
            for (std::size_t i = 0; i < 300; ++i) {
                if (burst(rng) != 0) // one request in ten arrives with the previous one
                    now += Micros(gap(rng));
                const std::string client = numbered("client-", key(rng));
                const std::int64_t c = cost(rng);
                const Decision local = engine.acquire(id, remoteTrace.keyOf(client), now, c);
                const Decision remote = remoteTrace.decide(i, rule, client, c, now);
                expectSameDecision(remote, local,
                    std::string(n.name) + " seed " + std::to_string(seed) + " #"
                        + std::to_string(i));
                if (::testing::Test::HasFatalFailure())
                    return;
                allowed += local.allowed;
            }
            EXPECT_GT(allowed, 20) << n.name << ": the trace must admit some";
            EXPECT_LT(allowed, 300) << n.name << ": and deny some";
        }
    }
}

void checkParityAtTheEdges(const RedisDecider &redis, const char *prefix)
{
    std::vector<NamedConfig> configs = parityConfigs();
    for (NamedConfig &n : extremeConfigs())
        configs.push_back(std::move(n));
    std::map<Reason, int> reasons;
    std::set<Algorithm> algorithms;
    for (const NamedConfig &n : configs) {
        algorithms.insert(algorithmOf(n.config));
        const auto [span, limit] = spanAndLimit(n.config);
        for (std::uint32_t seed : {1u, 2u}) {
            const RedisRule rule{uniquePrefix(prefix) + "-" + n.name, n.config};
            Engine engine;
            const RuleId id = *engine.addRule(n.config).id;
            const auto trace = edgeTrace(seed, 250, kParityStart + Micros(seed) * 977, span, limit);
            RemoteTrace remoteTrace(redis, std::string(n.name) + " seed " + std::to_string(seed));
            for (std::size_t i = 0; i < trace.size(); ++i) {
                const std::string client = numbered("client-", long(i % 2));
                const Decision local
                    = engine.acquire(id, remoteTrace.keyOf(client), trace[i].at, trace[i].cost);
                const Decision remote
                    = remoteTrace.decide(i, rule, client, trace[i].cost, trace[i].at);
                expectSameDecision(remote, local,
                    std::string(n.name) + " seed " + std::to_string(seed) + " #" + std::to_string(i)
                        + " cost " + std::to_string(trace[i].cost));
                if (::testing::Test::HasFatalFailure())
                    return;
                ++reasons[local.reason];
            }
        }
    }
    EXPECT_EQ(algorithms.size(), 6u);
    // The branches the traces are there for were taken.
    EXPECT_GT(reasons[Reason::CostExceedsLimit], 50);
    EXPECT_GT(reasons[Reason::LimitExceeded], 50);
    EXPECT_GT(reasons[Reason::None], 50);
}

void checkParityOnCalendarTraces(const RedisDecider &redis, const char *prefix)
{
    struct Case {
        const char *name, *zone;
        CalendarUnit unit;
        Micros from; // the trace runs from here for three windows
        std::int64_t limit;
    };
    const Case cases[] = {
        // 2026-03-07 00:00 in Havana; the 8th starts at 01:00 (no midnight that night).
        {"havana_day", "America/Havana", CalendarUnit::Day, 1772859600 * kMicrosPerSecond, 4},
        {"berlin_month", "Europe/Berlin", CalendarUnit::Month, 1772319600 * kMicrosPerSecond, 5},
        {"kolkata_week", "Asia/Kolkata", CalendarUnit::Week, 1796581800 * kMicrosPerSecond, 3},
    };
    int denied = 0;
    for (const Case &c : cases) {
        std::string why;
        auto zone = calendar::TimeZone::load(c.zone, why);
        ASSERT_TRUE(zone) << why;
        FixedWindowConfig config{{c.limit, nominalLength(c.unit)}};
        auto windows = std::make_shared<const CalendarWindows>(c.unit, zone);
        config.calendar = windows;
        const RedisRule rule{uniquePrefix(prefix) + "-" + c.name, config};
        Engine engine;
        const RuleId id = *engine.addRule(config).id;
        // Each window's last and first microsecond, and a request every window/10 between.
        std::vector<Micros> times;
        WindowBounds w = windows->at(c.from);
        for (int k = 0; k < 3; ++k, w = windows->at(w.end)) {
            for (Micros t = w.start; t < w.end; t += (w.end - w.start) / 10)
                times.push_back(t);
            times.push_back(w.end - 1);
        }
        std::sort(times.begin(), times.end());
        RemoteTrace remoteTrace(redis, c.name);
        for (std::size_t i = 0; i < times.size(); ++i) {
            const std::int64_t cost = 1 + std::int64_t(i % 3 == 2);
            const Decision local = engine.acquire(id, remoteTrace.keyOf("client"), times[i], cost);
            const Decision remote = remoteTrace.decide(i, rule, "client", cost, times[i]);
            expectSameDecision(remote, local, std::string(c.name) + " #" + std::to_string(i));
            if (::testing::Test::HasFatalFailure())
                return;
            denied += !local.allowed;
        }
    }
    EXPECT_GT(denied, 10);
}

} // namespace qs::limiter::test
