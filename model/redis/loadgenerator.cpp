#include "model/redis/loadgenerator.h"

#include "limiter/redis/keylayout.h"

#include "model/policy/limitconversion.h"
#include "model/policy/plans.h"
#include "model/policy/policykeys.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <mutex>
#include <random>
#include <thread>

namespace qs {

namespace {

using Clock = std::chrono::steady_clock;

// Client popularity: a cumulative distribution to draw from with one binary search.
class ClientPicker {
public:
    ClientPicker(int clients, LoadPlan::Pattern pattern)
    {
        m_cumulative.reserve(std::size_t(clients));
        double sum = 0;
        for (int i = 1; i <= clients; ++i) {
            sum += pattern == LoadPlan::Pattern::Zipf ? 1.0 / std::pow(double(i), 1.1) : 1.0;
            m_cumulative.push_back(sum);
        }
    }
    int pick(std::mt19937_64 &rng) const
    {
        std::uniform_real_distribution<double> u(0, m_cumulative.back());
        return int(std::lower_bound(m_cumulative.begin(), m_cumulative.end(), u(rng))
            - m_cumulative.begin());
    }

private:
    std::vector<double> m_cumulative;
};

// Request latencies (each request's batch round trip) in buckets 1% wide: memory stays fixed
// however long the run (the Monitor tab's demo runs for hours), percentiles within 1%.
class LatencyHistogram {
public:
    void add(double us, std::uint64_t count)
    {
        m_counts[bucketOf(us)] += count;
        m_total += count;
        m_max = std::max(m_max, us);
    }
    void merge(const LatencyHistogram &other)
    {
        for (std::size_t i = 0; i < m_counts.size(); ++i)
            m_counts[i] += other.m_counts[i];
        m_total += other.m_total;
        m_max = std::max(m_max, other.m_max);
    }
    // The latency that p percent of the requests did not exceed (the bucket's upper edge, or the
    // largest seen when that is smaller).
    double percentile(double p) const
    {
        if (m_total == 0)
            return 0;
        const auto rank
            = std::max<std::uint64_t>(1, std::uint64_t(std::ceil(p / 100.0 * double(m_total))));
        std::uint64_t seen = 0;
        for (std::size_t i = 0; i < m_counts.size(); ++i) {
            seen += m_counts[i];
            if (seen >= rank)
                return std::min(m_max, std::pow(kGrowth, double(i + 1)));
        }
        return m_max;
    }
    double max() const { return m_max; }

private:
    static constexpr double kGrowth = 1.01;
    static constexpr std::size_t kBuckets = 2500; // 1.01^2500 µs: beyond any timeout
    static std::size_t bucketOf(double us)
    {
        if (us <= 1)
            return 0;
        return std::min(kBuckets - 1, std::size_t(std::log(us) / std::log(kGrowth)));
    }
    std::vector<std::uint64_t> m_counts = std::vector<std::uint64_t>(kBuckets, 0);
    std::uint64_t m_total = 0;
    double m_max = 0;
};

struct Shared {
    std::mutex mutex;
    LoadResult totals;
    LatencyHistogram latencies;
    std::atomic<std::uint64_t> sent{0};
};

// The run's schedule: request k (from 0) is due once the pattern has offered k / rps seconds
// of its average rate, and a run the server keeps up with sends round(rps × duration) in all.
// Connection c sends the requests k with k mod connections == c. Pacing by whole requests due,
// not by a credit that starts at zero, sends what was asked: --rps 10 --duration 1s is 10, not 8.
class Schedule {
public:
    explicit Schedule(const LoadPlan &plan)
        : m_plan(plan), m_total(std::uint64_t(std::llround(plan.rps * plan.durationSeconds)))
    {
    }

    // How many of connection `c`'s requests are due `seconds` into the run.
    std::uint64_t dueFor(int c, double seconds) const
    {
        const double offered = m_plan.rps * averageSecondsOffered(seconds);
        const std::uint64_t due
            = std::min(m_total, std::uint64_t(std::max(0.0, std::floor(offered))) + 1);
        const auto connection = std::uint64_t(c), connections = std::uint64_t(m_plan.connections);
        return due > connection ? (due - connection - 1) / connections + 1 : 0;
    }

private:
    // Seconds of the average rate offered by `seconds`: the burst pattern offers 5x for 100 ms
    // and nothing for 400 ms, the same average every half second.
    double averageSecondsOffered(double seconds) const
    {
        if (m_plan.pattern != LoadPlan::Pattern::Burst)
            return seconds;
        const double cycles = std::floor(seconds / 0.5);
        return cycles * 0.5 + 5.0 * std::min(seconds - cycles * 0.5, 0.1);
    }

    const LoadPlan &m_plan;
    std::uint64_t m_total;
};

void connectionLoop(const LoadPlan &plan, int index, const ClientPicker &picker,
    const std::atomic<bool> &stop, Clock::time_point begin, Shared &shared)
{
    limiter::RedisBackend backend(plan.endpoint);
    LoadResult mine;
    LatencyHistogram latencies;
    const auto report = [&] {
        std::lock_guard lock(shared.mutex);
        shared.totals.requests += mine.requests;
        shared.totals.allowed += mine.allowed;
        shared.totals.denied += mine.denied;
        shared.totals.errors += mine.errors;
        shared.totals.unlimited += mine.unlimited;
        shared.totals.failedConnections += mine.failedConnections;
        if (shared.totals.firstError.empty())
            shared.totals.firstError = mine.firstError;
        if (shared.totals.engine.empty())
            shared.totals.engine = mine.engine;
        shared.latencies.merge(latencies);
    };
    if (!backend.connect()) {
        // Nothing is sent on a connection that does not exist: no request, no latency.
        mine.firstError = backend.lastError();
        mine.failedConnections = 1;
        report();
        return;
    }
    const limiter::RedisEngine engine = backend.engineInUse();
    mine.engine = engine == limiter::RedisEngine::Module ? "module"
        : engine == limiter::RedisEngine::Lua            ? "lua"
                                                         : "mixed";
    std::mt19937_64 rng(plan.seed * 7919 + std::uint64_t(index));
    const Schedule schedule(plan);
    const auto end = begin + std::chrono::duration<double>(plan.durationSeconds);
    std::vector<std::string> keys(std::size_t(plan.pipeline));
    std::vector<limiter::RedisRequest> batch(std::size_t(plan.pipeline));
    struct SeveralRequest {
        const LoadRoute *route;
        std::size_t key; // into keys
    };
    std::vector<SeveralRequest> several;
    // This connection's requests of the schedule that were sent, or skipped: after a stall
    // (a slow or restarted server) at most four pipelines of backlog are caught up, so a
    // recovering server is not hit by a burst the plan never had.
    std::uint64_t handled = 0;
    const std::uint64_t backlog = 4 * std::uint64_t(plan.pipeline);
    std::size_t next = std::size_t(index); // round-robin over the routes
    while (!stop.load(std::memory_order_relaxed)) {
        const auto now = Clock::now();
        // At the end a paced connection still sends what fell due before it (at most the
        // backlog): the last round trip must not depend on when the clock was read.
        const bool over = now >= end;
        std::size_t n = batch.size();
        if (plan.rps > 0) {
            const double elapsed = std::chrono::duration<double>(now - begin).count();
            // A full pipeline when the pace allows, else what is due: waiting for a full one
            // sent nothing at all at low rates (10/s over 4 connections, pipeline 16).
            const std::uint64_t due = schedule.dueFor(index, elapsed);
            handled = std::max(handled, due > backlog ? due - backlog : 0);
            n = std::min<std::uint64_t>(n, due - handled);
            if (n == 0) {
                if (over)
                    break;
                std::this_thread::sleep_for(std::chrono::microseconds(200));
                continue;
            }
        } else if (over) {
            break;
        }
        // This round's requests: a route with one limit joins the pipelined batch, one with
        // several is decided on its own (one round trip each).
        std::size_t batched = 0;
        std::uint64_t unlimited = 0;
        several.clear();
        for (std::size_t i = 0; i < n; ++i) {
            keys[i] = "client-" + std::to_string(picker.pick(rng));
            const LoadRoute &route = plan.routes[next++ % plan.routes.size()];
            if (route.limits.empty()) { // unlimited on its plan: a gateway asks Redis nothing
                ++unlimited;
                backend.countAdmittedUnasked(route.unasked);
            } else if (route.limits.size() == 1)
                batch[batched++] = {&route.limits.front(), keys[i], 1, std::nullopt};
            else
                several.push_back({&route, i});
        }
        handled += n;
        const auto count = [&](bool storeError, bool allowed) {
            if (storeError) {
                ++mine.errors;
                if (mine.firstError.empty())
                    mine.firstError = backend.lastError();
                return false;
            }
            ++(allowed ? mine.allowed : mine.denied);
            return true;
        };
        mine.allowed += unlimited;
        mine.unlimited += unlimited;
        std::uint64_t completed = unlimited;
        if (batched > 0) {
            const auto sentAt = Clock::now();
            const auto decisions = backend.acquireBatch(std::span(batch).first(batched));
            const double us
                = std::chrono::duration<double, std::micro>(Clock::now() - sentAt).count();
            std::uint64_t inBatch = 0;
            for (const auto &d : decisions)
                inBatch += count(d.reason == limiter::Reason::StoreError, d.allowed);
            if (inBatch > 0)
                latencies.add(us, inBatch);
            completed += inBatch;
        }
        for (const auto &[route, i] : several) {
            std::array<limiter::RedisLimitRequest, limiter::kMaxLimitsPerRequest> limits;
            std::array<limiter::Decision, limiter::kMaxLimitsPerRequest> out;
            for (std::size_t l = 0; l < route->limits.size(); ++l)
                limits[l] = {&route->limits[l], keys[i], 1, route->shadow[l]};
            const auto sentAt = Clock::now();
            const limiter::SetDecision d
                = backend.acquireAll(std::span(limits.data(), route->limits.size()),
                    std::span(out.data(), route->limits.size()));
            const double us
                = std::chrono::duration<double, std::micro>(Clock::now() - sentAt).count();
            const bool failed = std::any_of(out.begin(), out.begin() + route->limits.size(),
                [](const limiter::Decision &x) { return x.reason == limiter::Reason::StoreError; });
            if (count(failed, d.allowed)) {
                latencies.add(us, 1);
                ++completed;
            }
        }
        mine.requests += completed;
        shared.sent.fetch_add(completed, std::memory_order_relaxed);
    }
    report();
}

} // namespace

namespace {

// The route's limits as loadgen decides them for requests on `plan` (empty: the policy has no
// plans or the route's numbers do not differ by plan): each limit with the plan's numbers under
// the plan's keys; a limit unlimited on the plan is left out, as the gateways leave it out.
Expected<LoadRoute> loadRoute(const Policy &policy, const Route &r, const QString &plan)
{
    LoadRoute route;
    route.plan = plan.toStdString();
    const std::string routePrefix = limiter::keylayout::routePrefix(
        policy.redis.effectivePrefix().toStdString(), r.id.toStdString());
    const bool named = keysLimitsByName(policy, r);
    route.unasked.keyPrefix = routePrefix;
    route.unasked.metrics = policy.redis.metrics.value_or(false);
    route.unasked.plan = route.plan;
    for (qsizetype l = 0; l < r.limits.size(); ++l) {
        const RouteLimit &limit = r.limits[l];
        const std::optional<LimitSpec> spec
            = plan.isEmpty() ? std::optional<LimitSpec>(limit.spec) : specForPlan(limit, plan);
        if (!spec)
            continue;
        const auto config = toAlgorithmConfig(*spec);
        if (!config)
            return QStringLiteral("route '%1': %2").arg(r.id, config.error().message);
        limiter::RedisRule rule;
        rule.keyPrefix = limitKeyPrefix(policy, r, l, plan);
        rule.config = *config;
        rule.onStoreError = policy.defaults.effectiveOnStoreError();
        rule.metrics = policy.redis.metrics.value_or(false);
        if (named)
            rule.metricsPrefix = routePrefix; // a request counts once, for its route
        rule.plan = route.plan; // and for its plan
        route.limits.push_back(rule);
        route.shadow.push_back(r.modeOf(limit) == RouteMode::Shadow);
    }
    return route;
}

} // namespace

Expected<std::vector<LoadRoute>> loadRoutesFor(const Policy &policy, const QString &routeId)
{
    std::vector<LoadRoute> routes;
    for (const Route &r : policy.routes) {
        if (!routeId.isEmpty() && r.id != routeId)
            continue;
        // A route whose numbers differ by plan: its requests spread evenly over the plans.
        QStringList plans{QString()};
        if (routeVariesByPlan(policy, r))
            plans = policy.plans.names;
        for (const QString &plan : plans) {
            auto route = loadRoute(policy, r, plan);
            if (!route)
                return route.error();
            routes.push_back(*std::move(route));
        }
    }
    if (routes.empty())
        return routeId.isEmpty() ? QStringLiteral("the policy has no routes")
                                 : QStringLiteral("no route has the id '%1'").arg(routeId);
    return routes;
}

Expected<std::vector<limiter::RedisRule>> redisRulesFor(
    const Policy &policy, const QString &routeId)
{
    const auto routes = loadRoutesFor(policy, routeId);
    if (!routes)
        return routes.error();
    std::vector<limiter::RedisRule> rules;
    for (const LoadRoute &r : *routes)
        rules.insert(rules.end(), r.limits.begin(), r.limits.end());
    return rules;
}

LoadResult runLoad(const LoadPlan &plan, const std::atomic<bool> &stop,
    const std::function<void(std::uint64_t, double)> &progress)
{
    Shared shared;
    const ClientPicker picker(std::max(1, plan.clients), plan.pattern);
    const auto begin = Clock::now();
    std::vector<std::thread> threads;
    for (int i = 0; i < plan.connections; ++i)
        threads.emplace_back(connectionLoop, std::cref(plan), i, std::cref(picker), std::cref(stop),
            begin, std::ref(shared));
    const auto end = begin + std::chrono::duration<double>(plan.durationSeconds);
    auto nextReport = begin + std::chrono::seconds(1);
    while (!stop.load() && Clock::now() < end) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (progress && Clock::now() >= nextReport) {
            progress(
                shared.sent.load(), std::chrono::duration<double>(Clock::now() - begin).count());
            nextReport += std::chrono::seconds(1);
        }
    }
    for (auto &t : threads)
        t.join();
    LoadResult r = shared.totals;
    r.seconds = std::chrono::duration<double>(Clock::now() - begin).count();
    r.rate = r.seconds > 0 ? double(r.requests) / r.seconds : 0;
    r.cancelled = stop.load();
    r.p50us = shared.latencies.percentile(50);
    r.p90us = shared.latencies.percentile(90);
    r.p99us = shared.latencies.percentile(99);
    r.maxUs = shared.latencies.max();
    return r;
}

std::string loadFailure(const LoadResult &r, int connections)
{
    const std::string cause = r.firstError.empty() ? std::string() : ": " + r.firstError;
    if (r.failedConnections > 0)
        return std::to_string(r.failedConnections) + " of " + std::to_string(connections)
            + " connections could not be set up" + cause;
    if (r.allowed + r.denied == 0) {
        if (r.requests == 0)
            return "no request was sent before the run ended (raise --duration or --rps)";
        return "no decision came back: every request failed" + cause;
    }
    return {};
}

} // namespace qs
