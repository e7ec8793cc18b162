#include "model/simulation/simulator.h"

#include "model/policy/plans.h"

#include "limiter/algorithms/limitset.h"
#include "model/policy/limitconversion.h"
#include "model/policy/policykeys.h"
#include "model/policy/routeresolver.h"
#include "model/simulation/planassignment.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <memory>
#include <numeric>

namespace qs {

using limiter::Micros;

namespace {

// Which arrivals lack their key part, and what the route does with them. The choice is a
// hash of the arrival, so both passes over the same traffic agree without storing it.
struct KeylessPlan {
    double share = 0; // 0: every request carries its key (or the key cannot be missing)
    MissingKeyMode mode = MissingKeyMode::Shared;
    std::uint64_t seed = 0;

    bool lacksKey(const Arrival &a) const
    {
        if (share <= 0)
            return false;
        std::uint64_t x = seed ^ (std::uint64_t(a.at) * 0x9E3779B97F4A7C15ULL) ^ a.client;
        x ^= x >> 30; // splitmix64's finaliser: a well-mixed 64-bit value
        x *= 0xBF58476D1CE4E5B9ULL;
        x ^= x >> 27;
        x *= 0x94D049BB133111EBULL;
        x ^= x >> 31;
        return double(x >> 11) * 0x1.0p-53 < share;
    }
};

// The simulated clock starts at a day boundary so that windows align as they would in life.
constexpr Micros kEpochStart = 1'700'006'400LL * limiter::kMicrosPerSecond;

// Log-spaced histogram (1% steps) for shaping delays: percentiles without keeping every value.
class DelayHistogram {
public:
    void add(Micros us)
    {
        const auto i = std::size_t(std::log(double(us)) / std::log(1.01)) + 1;
        if (i >= m_counts.size())
            m_counts.resize(i + 1, 0);
        ++m_counts[i];
        ++m_total;
    }
    double percentile(double p) const
    {
        if (m_total == 0)
            return 0;
        const auto rank = std::uint64_t(std::ceil(p / 100.0 * double(m_total)));
        std::uint64_t seen = 0;
        for (std::size_t i = 0; i < m_counts.size(); ++i) {
            seen += m_counts[i];
            if (seen >= rank)
                return i == 0 ? 0 : std::pow(1.01, double(i - 1));
        }
        return 0;
    }

private:
    std::vector<std::uint64_t> m_counts;
    std::uint64_t m_total = 0;
};

// Admitted cost in the sliding window (t - length, t]; remembers the largest it saw.
class WindowMaximum {
public:
    explicit WindowMaximum(Micros length) : m_length(length) { }
    void admit(Micros at, std::int64_t cost)
    {
        while (!m_entries.empty() && m_entries.front().first <= at - m_length) {
            m_sum -= m_entries.front().second;
            m_entries.pop_front();
        }
        if (!m_entries.empty() && m_entries.back().first == at)
            m_entries.back().second += cost;
        else
            m_entries.emplace_back(at, cost);
        m_sum += cost;
        m_max = std::max(m_max, m_sum);
    }
    std::int64_t maximum() const { return m_max; }

private:
    Micros m_length;
    std::deque<std::pair<Micros, std::int64_t>> m_entries;
    std::int64_t m_sum = 0, m_max = 0;
};

struct Bucket {
    std::uint32_t offered = 0, allowed = 0, denied = 0, delayed = 0;
};

Micros bucketWidthFor(Micros duration)
{
    // Raw buckets: fine enough to show a burst, coarse enough to stay under ~100k of them.
    for (Micros w : {10 * limiter::kMicrosPerMilli, 100 * limiter::kMicrosPerMilli,
             limiter::kMicrosPerSecond, 10 * limiter::kMicrosPerSecond, limiter::kMicrosPerMinute})
        if (duration / w <= 20'000)
            return w;
    return limiter::kMicrosPerHour;
}

// Mean, min and max of raw values over at most maxPoints points.
Series downsample(
    QString name, QString unit, const std::vector<double> &raw, Micros width, int maxPoints)
{
    Series s{std::move(name), std::move(unit), {}, {}, {}, {}};
    // Points of a round width (1, 2, 5, 10, 20, 50 … raw buckets): 50 ms, 1 s, 5 min, never
    // 30 ms or 1.7 s, so that a point's rate reads as "per such interval".
    const std::size_t needed = std::max<std::size_t>(
        1, (raw.size() + std::size_t(maxPoints) - 1) / std::size_t(maxPoints));
    std::size_t per = 0;
    for (std::size_t decade = 1; per == 0; decade *= 10)
        for (const std::size_t m : {std::size_t(1), std::size_t(2), std::size_t(5)})
            if (per == 0 && m * decade >= needed)
                per = m * decade;
    for (std::size_t i = 0; i < raw.size(); i += per) {
        const std::size_t end = std::min(raw.size(), i + per);
        double sum = 0, lo = raw[i], hi = raw[i];
        for (std::size_t j = i; j < end; ++j) {
            sum += raw[j];
            lo = std::min(lo, raw[j]);
            hi = std::max(hi, raw[j]);
        }
        s.t.push_back(double(i) * double(width) / 1e6);
        s.value.push_back(sum / double(end - i));
        s.min.push_back(lo);
        s.max.push_back(hi);
    }
    return s;
}

// What every run ends with: the totals, the delay percentiles, the denials' concentration, the
// tracked client (the busiest, unless the settings name one), and the traffic series in
// requests per second.
void finishRun(SimulationResult &result, const std::vector<Bucket> &buckets, Micros width,
    const DelayHistogram &delays, const std::vector<std::uint32_t> &denials,
    const std::vector<std::uint32_t> &offeredPerClient, const SimulationSettings &settings)
{
    SimulationSummary &sum = result.summary;
    for (const Bucket &b : buckets) {
        sum.offered += b.offered;
        sum.allowed += b.allowed;
        sum.denied += b.denied;
        sum.delayed += b.delayed;
    }
    sum.acceptance = sum.offered ? double(sum.allowed) / double(sum.offered) : 0;
    sum.p50DelayUs = delays.percentile(50);
    sum.p99DelayUs = delays.percentile(99);
    if (sum.denied > 0) {
        std::vector<std::uint32_t> sorted = denials;
        const std::size_t top = std::max<std::size_t>(1, sum.clients / 100);
        std::partial_sort(
            sorted.begin(), sorted.begin() + std::ptrdiff_t(top), sorted.end(), std::greater<>());
        sum.topClientsDenialShare = double(std::accumulate(sorted.begin(),
                                        sorted.begin() + std::ptrdiff_t(top), std::uint64_t(0)))
            / double(sum.denied);
    }
    sum.trackedClient = settings.trackedClient.value_or(offeredPerClient.empty()
            ? 0
            : std::uint32_t(std::max_element(offeredPerClient.begin(), offeredPerClient.end())
                - offeredPerClient.begin()));

    // Series in requests per second, only whole buckets: a last bucket cut short by the end of
    // the run would show as a drop.
    const double perSecond = 1e6 / double(width);
    std::vector<double> offered, allowed, denied, delayed;
    const std::size_t whole = std::size_t(settings.duration / width);
    for (std::size_t i = 0; i < std::min(whole, buckets.size()); ++i) {
        const Bucket &b = buckets[i];
        offered.push_back(b.offered * perSecond);
        allowed.push_back(b.allowed * perSecond);
        denied.push_back(b.denied * perSecond);
        delayed.push_back(b.delayed * perSecond);
    }
    for (auto [name, raw] : {std::pair{QStringLiteral("offered"), &offered},
             std::pair{QStringLiteral("allowed"), &allowed},
             std::pair{QStringLiteral("denied"), &denied},
             std::pair{QStringLiteral("delayed"), &delayed}})
        result.series.push_back(
            downsample(name, QStringLiteral("req/s"), *raw, width, settings.maxPoints));
}

// The route's arrivals of `source`, in order, chunk by chunk: onArrival(arrival) for each, the
// other routes' requests counted; stops early on `cancel` (result.cancelled) and reports
// progress about every 1% of the duration. Inlined into each caller (a template), so that the
// one-limit loop's 40 M decisions a second pay no call per arrival.
template <class OnArrival>
[[gnu::flatten]] void forEachArrival(TrafficSource &source, const std::vector<char> &lineMatches,
    const SimulationSettings &settings, const std::atomic<bool> *cancel,
    const SimulationProgress &progress, SimulationResult &result, OnArrival &&onArrival)
{
    std::vector<Arrival> chunk;
    chunk.reserve(1 << 16);
    Micros progressed = 0;
    while (true) {
        chunk.clear();
        if (source.next(chunk, 1 << 16, settings.duration - 1) == 0)
            break;
        for (const Arrival &a : chunk) {
            if (!lineMatches.empty() && !lineMatches[a.request]) {
                ++result.summary.otherRoutes;
                continue;
            }
            onArrival(a);
        }
        if (cancel && cancel->load(std::memory_order_relaxed)) {
            result.cancelled = true;
            break;
        }
        if (progress && chunk.back().at - progressed > settings.duration / 100) {
            progressed = chunk.back().at;
            progress(double(progressed) / double(settings.duration));
        }
    }
}

template <class Config>
SimulationResult runTyped(const Config &config, TrafficSource &source,
    const std::vector<char> &lineMatches, const SimulationSettings &settings,
    const KeylessPlan &keyless, const std::atomic<bool> *cancel, const SimulationProgress &progress)
{
    using State = limiter::StateFor_t<Config>;
    SimulationResult result;
    SimulationSummary &sum = result.summary;
    const std::uint32_t clients = source.clients();
    sum.clients = clients;
    std::vector<State> states(clients);
    State shared{}; // missing_key shared: every keyless request
    std::vector<State> byAddress; // missing_key ip: keyless requests, by client address
    if (keyless.share > 0 && keyless.mode == MissingKeyMode::Ip)
        byAddress.resize(clients);
    sum.missingKey = keyless.mode;
    std::vector<std::uint32_t> denials(clients, 0), offeredPerClient;
    const bool pickBusiest = !settings.trackedClient;
    if (pickBusiest)
        offeredPerClient.assign(clients, 0);
    const Micros width = bucketWidthFor(settings.duration);
    std::vector<Bucket> buckets(std::size_t(settings.duration / width) + 1);
    const limiter::Quota fresh = limiter::peek(config, State{}, 0);
    sum.window = fresh.window;
    WindowMaximum windowMax(std::max<Micros>(1, fresh.window));
    DelayHistogram delays;

    forEachArrival(source, lineMatches, settings, cancel, progress, result, [&](const Arrival &a) {
        Bucket &b = buckets[std::size_t(a.at / width)];
        ++b.offered;
        if (pickBusiest)
            ++offeredPerClient[a.client];
        const Micros now = kEpochStart + a.at;
        State *state = &states[a.client];
        if (keyless.lacksKey(a)) {
            ++sum.keyless;
            if (keyless.mode == MissingKeyMode::Deny) {
                ++b.denied;
                ++denials[a.client];
                return;
            }
            if (keyless.mode == MissingKeyMode::Allow) {
                ++b.allowed; // passed unlimited: outside the window bound by choice
                return;
            }
            state = keyless.mode == MissingKeyMode::Ip ? &byAddress[a.client] : &shared;
        }
        const limiter::Decision d = limiter::decide(config, *state, now, settings.cost);
        if (d.allowed) {
            ++b.allowed;
            windowMax.admit(now, settings.cost);
            if (d.delay > 0) {
                ++b.delayed;
                delays.add(d.delay);
            }
        } else {
            ++b.denied;
            ++denials[a.client];
        }
    });

    finishRun(result, buckets, width, delays, denials, offeredPerClient, settings);
    sum.maxAdmittedInWindow = windowMax.maximum();
    return result;
}

// The arrivals of one client that are the route's and carry its key, in order: the second pass
// that draws a tracked client's remaining quota (one limit or several).
template <class OnArrival>
void forEachArrivalOf(std::uint32_t client, TrafficSource &source,
    const std::vector<char> &lineMatches, const SimulationSettings &settings,
    const KeylessPlan &keyless, OnArrival &&onArrival)
{
    std::vector<Arrival> chunk;
    while (true) {
        chunk.clear();
        if (source.next(chunk, 1 << 16, settings.duration - 1) == 0)
            break;
        for (const Arrival &a : chunk)
            if (a.client == client && (lineMatches.empty() || lineMatches[a.request])
                && !keyless.lacksKey(a))
                onArrival(a);
    }
}

// The remaining quota of one client at the end of every bucket: a second, cheap pass over the
// same (deterministic) traffic with just that client's state.
template <class Config>
Series trackedRemaining(const Config &config, TrafficSource &source,
    const std::vector<char> &lineMatches, const SimulationSettings &settings, std::uint32_t client,
    std::int64_t cost, const KeylessPlan &keyless)
{
    limiter::StateFor_t<Config> state{};
    const Micros width = bucketWidthFor(settings.duration);
    std::vector<double> remaining(std::size_t(settings.duration / width), 0); // whole buckets
    std::size_t filled = 0;
    auto fillUntil = [&](std::size_t bucket) {
        for (; filled < bucket && filled < remaining.size(); ++filled)
            remaining[filled]
                = double(limiter::peek(config, state, kEpochStart + Micros(filled + 1) * width - 1)
                             .remaining);
    };
    forEachArrivalOf(client, source, lineMatches, settings, keyless, [&](const Arrival &a) {
        fillUntil(std::size_t(a.at / width));
        limiter::decide(config, state, kEpochStart + a.at, cost);
    });
    fillUntil(remaining.size());
    return downsample(QStringLiteral("remaining"), QStringLiteral("requests"), remaining, width,
        settings.maxPoints);
}

QString algorithmLabel(const limiter::AlgorithmConfig &config)
{
    return QString::fromLatin1(limiter::algorithmName(limiter::algorithmOf(config)).data());
}

// One limit of a route with several, as the simulator runs it.
struct LimitRun {
    limiter::AlgorithmConfig config;
    // Per plan (by index), when the limit's numbers differ by plan; unset: unlimited there.
    std::vector<std::optional<limiter::AlgorithmConfig>> byPlan;
    bool shadow = false;
    std::int64_t cost = 1;
    bool global = false; // one state for every client
    bool canLackKey = false; // a header or query part: missing_key applies
    MissingKeyMode missing = MissingKeyMode::Shared;
    // Per client (per plan when global: a planned limit's keys carry the plan).
    std::vector<limiter::AlgorithmState> states;
    std::vector<limiter::AlgorithmState> shared; // missing_key shared, per plan
    std::vector<limiter::AlgorithmState> byAddress; // missing_key ip
    std::unique_ptr<WindowMaximum> windowMax;

    // The config on `plan`; nullptr when the plan is unlimited here.
    const limiter::AlgorithmConfig *configFor(int plan) const
    {
        if (byPlan.empty())
            return &config;
        return byPlan[std::size_t(plan)] ? &*byPlan[std::size_t(plan)] : nullptr;
    }

    // The state this arrival counts in; nullptr: the limit passes it (missing_key allow).
    limiter::AlgorithmState *stateFor(const Arrival &a, bool lacksKey, int plan)
    {
        const std::size_t p = byPlan.empty() ? 0 : std::size_t(plan);
        if (!lacksKey || !canLackKey)
            return &states[global ? p : a.client];
        switch (missing) {
        case MissingKeyMode::Shared:
            return &shared[p];
        case MissingKeyMode::Ip:
            return &byAddress[a.client];
        case MissingKeyMode::Allow:
        case MissingKeyMode::Deny:
            return nullptr;
        }
        return nullptr;
    }
};

// Every limit of the route on every request, the rule of limitset.h. Slower than runTyped (a
// variant per decision): only routes with several limits take it.
SimulationResult runSeveral(std::vector<LimitRun> &runs, const Route &route, TrafficSource &source,
    const std::vector<char> &lineMatches, const SimulationSettings &settings,
    const KeylessPlan &keyless, const PlanAssignment &plans, const std::atomic<bool> *cancel,
    const SimulationProgress &progress)
{
    SimulationResult result;
    SimulationSummary &sum = result.summary;
    const std::uint32_t clients = source.clients();
    sum.clients = clients;
    std::vector<int> planOf(clients);
    for (std::uint32_t c = 0; c < clients; ++c)
        planOf[c] = plans.of(c);
    for (const QString &name : plans.names)
        sum.plans.push_back({name, 0, 0, 0, 0});
    for (std::uint32_t c = 0; c < clients && !sum.plans.empty(); ++c)
        ++sum.plans[std::size_t(planOf[c])].clients;
    // A fresh state for the config on `plan` (any state where the plan is unlimited: unused).
    const auto fresh = [](const LimitRun &run, int plan) {
        const limiter::AlgorithmConfig *c = run.configFor(plan);
        return limiter::freshState(c ? *c : run.config);
    };
    for (std::size_t l = 0; l < runs.size(); ++l) {
        LimitRun &run = runs[l];
        const std::size_t perPlan = run.byPlan.empty() ? 1 : plans.count();
        run.states.clear();
        if (run.global)
            for (std::size_t p = 0; p < perPlan; ++p)
                run.states.push_back(fresh(run, int(p)));
        else
            for (std::uint32_t c = 0; c < clients; ++c)
                run.states.push_back(fresh(run, planOf[c]));
        run.shared.clear();
        for (std::size_t p = 0; p < perPlan; ++p)
            run.shared.push_back(fresh(run, int(p)));
        if (run.canLackKey && run.missing == MissingKeyMode::Ip)
            for (std::uint32_t c = 0; c < clients; ++c)
                run.byAddress.push_back(fresh(run, planOf[c]));
        const limiter::Quota fresh = limiter::peek(run.config, limiter::freshState(run.config), 0);
        run.windowMax = std::make_unique<WindowMaximum>(std::max<Micros>(1, fresh.window));
        LimitSummary ls;
        ls.name = route.limits[qsizetype(l)].name;
        ls.algorithm = algorithmLabel(run.config);
        ls.shadow = run.shadow;
        ls.window = fresh.window;
        ls.quota = fresh.limit;
        sum.limits.push_back(ls);
    }
    sum.window = sum.limits.front().window;
    sum.missingKey = runs.front().missing;
    std::vector<std::uint32_t> denials(clients, 0), offeredPerClient(clients, 0);
    const Micros width = bucketWidthFor(settings.duration);
    std::vector<Bucket> buckets(std::size_t(settings.duration / width) + 1);
    DelayHistogram delays;
    std::array<limiter::LimitRef, limiter::kMaxLimitsPerRequest> refs;
    std::array<std::size_t, limiter::kMaxLimitsPerRequest> which{};
    std::array<limiter::Decision, limiter::kMaxLimitsPerRequest> each;

    forEachArrival(source, lineMatches, settings, cancel, progress, result, [&](const Arrival &a) {
        Bucket &b = buckets[std::size_t(a.at / width)];
        ++b.offered;
        ++offeredPerClient[a.client];
        const Micros now = kEpochStart + a.at;
        const bool lacksKey = keyless.lacksKey(a);
        sum.keyless += lacksKey;
        const int plan = planOf[a.client];
        PlanSummary *planSum = sum.plans.empty() ? nullptr : &sum.plans[std::size_t(plan)];
        if (planSum)
            ++planSum->offered;
        // A limit whose missing_key is deny refuses the request outright, counted nowhere.
        std::size_t counted = 0;
        bool refused = false;
        for (std::size_t l = 0; l < runs.size(); ++l) {
            LimitRun &run = runs[l];
            const limiter::AlgorithmConfig *config = run.configFor(plan);
            if (!config)
                continue; // unlimited on this client's plan: neither counted nor denied
            limiter::AlgorithmState *state = run.stateFor(a, lacksKey, plan);
            if (!state) {
                if (run.missing == MissingKeyMode::Deny) {
                    ++sum.limits[l].denied;
                    if (!run.shadow) {
                        ++sum.limits[l].deciding;
                        refused = true;
                    }
                }
                continue;
            }
            refs[counted] = {config, state, run.cost, run.shadow};
            which[counted++] = l;
        }
        if (refused) {
            ++b.denied;
            ++denials[a.client];
            if (planSum)
                ++planSum->denied;
            return;
        }
        const limiter::SetDecision set = limiter::decideAll(
            std::span(refs.data(), counted), now, std::span(each.data(), counted));
        Micros delay = 0;
        for (std::size_t k = 0; k < counted; ++k) {
            LimitSummary &ls = sum.limits[which[k]];
            (each[k].allowed ? ls.allowed : ls.denied)++;
            if (set.allowed && each[k].allowed) {
                runs[which[k]].windowMax->admit(now, refs[k].cost);
                delay = std::max(delay, each[k].delay);
            }
        }
        if (planSum)
            ++(set.allowed ? planSum->allowed : planSum->denied);
        if (set.allowed) {
            ++b.allowed;
            if (delay > 0) {
                ++b.delayed;
                delays.add(delay);
            }
        } else {
            ++b.denied;
            ++denials[a.client];
            if (set.deciding >= 0)
                ++sum.limits[which[std::size_t(set.deciding)]].deciding;
        }
    });
    finishRun(result, buckets, width, delays, denials, offeredPerClient, settings);
    for (std::size_t l = 0; l < runs.size(); ++l)
        sum.limits[l].maxAdmittedInWindow = runs[l].windowMax->maximum();
    sum.maxAdmittedInWindow = sum.limits.front().maxAdmittedInWindow;
    return result;
}

// The tracked client's remaining quota in each limit at the end of every bucket: a second pass
// over its own arrivals with its own states, under the same rule. A `global` limit, which
// everyone's traffic fills, has no per-client curve and is left out.
std::vector<Series> trackedRemainingSeveral(std::vector<LimitRun> &runs, const Route &route,
    TrafficSource &source, const std::vector<char> &lineMatches, const SimulationSettings &settings,
    const KeylessPlan &keyless, std::uint32_t client, int plan)
{
    const Micros width = bucketWidthFor(settings.duration);
    // The limits that count this client: an unlimited one on its plan has no curve.
    std::vector<std::size_t> limits;
    for (std::size_t l = 0; l < runs.size(); ++l)
        if (runs[l].configFor(plan))
            limits.push_back(l);
    const std::size_t n = limits.size();
    if (n == 0)
        return {};
    std::vector<limiter::AlgorithmState> states;
    for (const std::size_t l : limits)
        states.push_back(limiter::freshState(*runs[l].configFor(plan)));
    std::vector<std::vector<double>> remaining(
        n, std::vector<double>(std::size_t(settings.duration / width), 0));
    std::array<limiter::LimitRef, limiter::kMaxLimitsPerRequest> refs;
    std::array<limiter::Decision, limiter::kMaxLimitsPerRequest> each;
    for (std::size_t k = 0; k < n; ++k)
        refs[k] = {runs[limits[k]].configFor(plan), &states[k], runs[limits[k]].cost,
            runs[limits[k]].shadow};
    std::size_t filled = 0;
    auto fillUntil = [&](std::size_t bucket) {
        for (; filled < bucket && filled < remaining.front().size(); ++filled)
            for (std::size_t k = 0; k < n; ++k)
                remaining[k][filled] = double(limiter::peek(
                    *refs[k].config, states[k], kEpochStart + Micros(filled + 1) * width - 1)
                                                  .remaining);
    };
    forEachArrivalOf(client, source, lineMatches, settings, keyless, [&](const Arrival &a) {
        fillUntil(std::size_t(a.at / width));
        limiter::decideAll(
            std::span(refs.data(), n), kEpochStart + a.at, std::span(each.data(), n));
    });
    fillUntil(remaining.front().size());
    std::vector<Series> out;
    for (std::size_t k = 0; k < n; ++k)
        if (!runs[limits[k]].global)
            out.push_back(downsample(
                QStringLiteral("remaining %1").arg(route.limits[qsizetype(limits[k])].name),
                QStringLiteral("requests"), remaining[k], width, settings.maxPoints));
    return out;
}

// A route with several limits, simulated (see runSeveral).
SimulationResult simulateSeveral(const Policy &policy, const Route &route,
    const SimulationSettings &settings, const std::vector<char> &lineMatches,
    const std::atomic<bool> *cancel, const SimulationProgress &progress)
{
    SimulationResult failed;
    if (route.limits.size() > RouteLimit::kMaxLimits) {
        failed.error = QStringLiteral("route '%1' has %2 limits; a route has at most %3")
                           .arg(route.id)
                           .arg(route.limits.size())
                           .arg(RouteLimit::kMaxLimits);
        return failed;
    }
    // Plans: each client's, from the traffic's weights over the policy's plans.
    const auto assigned = assignPlans(policy, route, settings.traffic, settings.seed);
    if (!assigned) {
        failed.error = assigned.error();
        return failed;
    }
    const PlanAssignment &plans = *assigned;
    std::vector<LimitRun> runs;
    for (const RouteLimit &limit : route.limits) {
        const auto converted = toAlgorithmConfig(limit.spec);
        if (!converted) {
            failed.error = QStringLiteral("route '%1', limit '%2': %3")
                               .arg(route.id, limit.name, converted.error().message);
            return failed;
        }
        LimitRun run;
        run.config = *converted;
        if (limit.variesByPlan() && !plans.names.isEmpty())
            for (const QString &plan : plans.names) {
                const auto spec = specForPlan(limit, plan);
                if (!spec) {
                    run.byPlan.push_back(std::nullopt);
                    continue;
                }
                const auto onPlan = toAlgorithmConfig(*spec);
                if (!onPlan) {
                    failed.error = QStringLiteral("route '%1', limit '%2' on plan '%3': %4")
                                       .arg(route.id, limit.name, plan, onPlan.error().message);
                    return failed;
                }
                run.byPlan.push_back(*onPlan);
            }
        run.shadow = route.modeOf(limit) == RouteMode::Shadow;
        run.cost = route.costOf(limit);
        const QList<KeySelector> key = policy.keyOf(route, limit);
        run.global = std::all_of(key.begin(), key.end(),
            [](const KeySelector &k) { return k.kind == KeySelector::Kind::Global; });
        run.canLackKey = keyCanBeMissing(key);
        run.missing = policy.missingKeyOf(route, limit);
        runs.push_back(std::move(run));
    }
    // Whether a request lacks its key part is one fact of the request, whichever limit asks.
    KeylessPlan keyless;
    keyless.seed = settings.seed;
    keyless.share = settings.traffic.keyless;
    auto made = makeTrafficSource(settings.traffic, settings.seed, settings.duration);
    if (!made) {
        failed.error = made.error();
        return failed;
    }
    const std::unique_ptr<TrafficSource> source = std::move(*made);
    SimulationResult result
        = runSeveral(runs, route, *source, lineMatches, settings, keyless, plans, cancel, progress);
    result.summary.algorithm = runs.size() == 1 ? algorithmLabel(runs.front().config)
                                                : QStringLiteral("%1 limits").arg(runs.size());
    result.skippedLines = source->skippedLines();
    result.problems = source->problems();
    if (result.cancelled)
        return result;
    if (auto again = makeTrafficSource(settings.traffic, settings.seed, settings.duration)) {
        for (Series &s : trackedRemainingSeveral(runs, route, **again, lineMatches, settings,
                 keyless, result.summary.trackedClient, plans.of(result.summary.trackedClient))) {
            s.name += QStringLiteral(" (%1)").arg(source->clientName(result.summary.trackedClient));
            result.series.push_back(std::move(s));
        }
    }
    return result;
}

} // namespace

SimulationResult simulate(const Policy &policy, const Route &route,
    const SimulationSettings &settings, const std::atomic<bool> *cancel,
    const SimulationProgress &progress, const limiter::AlgorithmConfig *override)
{
    SimulationResult failed;
    limiter::AlgorithmConfig config;
    if (override) {
        config = *override;
    } else {
        const auto converted = toAlgorithmConfig(route.limit());
        if (!converted) {
            failed.error
                = QStringLiteral("route '%1': %2").arg(route.id, converted.error().message);
            return failed;
        }
        config = *converted;
    }
    auto made = makeTrafficSource(settings.traffic, settings.seed, settings.duration);
    if (!made) {
        failed.error = made.error();
        return failed;
    }
    std::unique_ptr<TrafficSource> source = std::move(*made);
    // Replayed requests count only when they resolve to this route.
    std::vector<char> lineMatches;
    if (!source->requestLines().empty()) {
        const RouteResolver resolver(policy);
        for (const RequestLine &line : source->requestLines()) {
            const auto index = resolver.resolve(line.method, line.target);
            lineMatches.push_back(index && policy.routes[*index].id == route.id);
        }
    }
    // Several limits, or numbers that differ by plan: every limit of the request, per client's
    // plan, by limitset.h's rule.
    if (keysLimitsByName(policy, route) && !override) {
        source.reset(); // simulateSeveral makes its own
        return simulateSeveral(policy, route, settings, lineMatches, cancel, progress);
    }
    SimulationSettings effective = settings;
    effective.cost = route.effectiveCost();
    KeylessPlan keyless;
    keyless.mode = policy.missingKeyOf(route);
    keyless.seed = settings.seed;
    if (keyCanBeMissing(policy.keyOf(route)))
        keyless.share = settings.traffic.keyless;
    SimulationResult result = std::visit(
        [&](const auto &c) {
            return runTyped(c, *source, lineMatches, effective, keyless, cancel, progress);
        },
        config);
    result.summary.algorithm = algorithmLabel(config);
    result.skippedLines = source->skippedLines();
    result.problems = source->problems();
    if (result.cancelled)
        return result;
    // The tracked client's curve replays the same arrivals from a second source (a replay file
    // that vanished in between leaves the curve out, not the result).
    if (auto again = makeTrafficSource(settings.traffic, settings.seed, settings.duration)) {
        result.series.push_back(std::visit(
            [&](const auto &c) {
                return trackedRemaining(c, **again, lineMatches, effective,
                    result.summary.trackedClient, effective.cost, keyless);
            },
            config));
        result.series.back().name = QStringLiteral("remaining (%1)")
                                        .arg(source->clientName(result.summary.trackedClient));
    }
    return result;
}

} // namespace qs
