#pragma once
// Runs simulated traffic through the limiter's algorithms on a manual clock: deterministic
// (same seed, same result) and far faster than real time. Clients are numbered, so their
// states sit in a dense table indexed by client (the embedded engine's hash table is for
// arbitrary keys; here it would only add hashing). See docs/simulation.md.
#include "limiter/algorithms/algorithm.h"
#include "model/policy/limitconversion.h" // comparableConfigs
#include "model/policy/policy.h"
#include "model/simulation/traffic.h"

#include <QString>

#include <atomic>
#include <functional>
#include <vector>

namespace qs {

struct SimulationSettings {
    TrafficSpec traffic;
    std::uint64_t seed = 1;
    limiter::Micros duration = 60 * limiter::kMicrosPerSecond;
    std::int64_t cost = 1;
    int maxPoints = 2000; // per series, after downsampling (min/max kept per point)
    std::optional<std::uint32_t> trackedClient; // unset: the most active client
};

// One chart line: per point the mean of the raw buckets it covers, and their min and max, so
// that downsampling never hides a peak. Rates are per second; time is seconds from the start.
struct Series {
    QString name;
    QString unit;
    std::vector<double> t, value, min, max;
};

// One limit of a route with several: what it said, request by request.
struct LimitSummary {
    QString name;
    QString algorithm;
    bool shadow = false;
    std::uint64_t allowed = 0; // requests this limit admitted (given back or not)
    std::uint64_t denied = 0; // requests it denied (a shadow limit: would have denied)
    std::uint64_t deciding = 0; // denials it decided: it denied with the longest wait
    std::int64_t quota = 0; // what a fresh key has
    limiter::Micros window = 0;
    std::int64_t maxAdmittedInWindow = 0; // of the requests the route admitted, per its window
};

// A plan's share of a simulated route (traffic `plans=`): its clients and what they got.
struct PlanSummary {
    QString name;
    std::uint32_t clients = 0;
    std::uint64_t offered = 0, allowed = 0, denied = 0;
};

struct SimulationSummary {
    QString algorithm;
    std::uint64_t offered = 0, allowed = 0, denied = 0, delayed = 0, otherRoutes = 0;
    double acceptance = 0; // allowed / offered, 0..1
    limiter::Micros window = 0; // the route's window (quota span)
    std::int64_t maxAdmittedInWindow = 0; // most admitted cost in any window of that length
    double p50DelayUs = 0, p99DelayUs = 0;
    double topClientsDenialShare = 0; // share of all denials taken by the top 1% of clients
    std::uint32_t clients = 0;
    std::uint32_t trackedClient = 0;
    // Requests without their key part (traffic's keyless=) and what the route did with them.
    std::uint64_t keyless = 0;
    MissingKeyMode missingKey = MissingKeyMode::Shared;
    // A route with several limits: one per limit, in the route's order (empty otherwise). The
    // figures above are then the route's (window: its first limit's).
    std::vector<LimitSummary> limits;
    // A policy with plans, on a route whose numbers differ by plan: one per plan, in the
    // policy's order (empty otherwise). Each client is on one plan (traffic `plans=`).
    std::vector<PlanSummary> plans;
};

struct SimulationResult {
    SimulationSummary summary;
    std::vector<Series> series; // offered, allowed, denied, delayed (req/s); tracked remaining
    qint64 skippedLines = 0;
    std::vector<ReplayProblem> problems;
    bool cancelled = false;
    QString error;
};

using SimulationProgress = std::function<void(double fraction)>;

// Runs `route`'s limit (or `config` when given) over the settings' traffic. A route with several
// limits runs them all on every request (limitset.h): each simulated client is one address and
// one API key, so every limit keyed by a client part counts it alike; a `global` limit counts
// everyone together.
SimulationResult simulate(const Policy &policy, const Route &route,
    const SimulationSettings &settings, const std::atomic<bool> *cancel = nullptr,
    const SimulationProgress &progress = {}, const limiter::AlgorithmConfig *config = nullptr);

} // namespace qs
