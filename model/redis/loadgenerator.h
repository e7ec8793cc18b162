#pragma once
// Drives the Redis backend like a fleet of gateway instances: several connections, each in its
// own thread sending pipelined batches at a share of the target rate, keys drawn from a client
// population (uniform, bursty or Zipf-popular). Used by `quotactl loadgen`.
#include "limiter/redis/redisbackend.h"
#include "model/base/expected.h"
#include "model/policy/policy.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace qs {

// One route's limits: one rule decides with the pipelined batches; several with one call of
// several.lua per request (RedisBackend::acquireAll), each limit under its own keys. A route
// whose numbers differ by plan is one LoadRoute per plan, with that plan's numbers and keys and
// without the limits it leaves unlimited (none at all: its requests are admitted unasked).
struct LoadRoute {
    std::vector<limiter::RedisRule> limits;
    std::vector<bool> shadow; // per limit
    std::string plan; // empty: the same for every plan
    // Where a request admitted without a call (no limit on its plan) is counted (metrics).
    limiter::RedisRule unasked;
};

struct LoadPlan {
    enum class Pattern { Steady, Burst, Zipf };
    limiter::RedisEndpoint endpoint;
    std::vector<LoadRoute> routes; // requests go round-robin over these
    double rps = 1000; // target requests per second in total; 0: flat out
    int clients = 100; // distinct client keys
    double durationSeconds = 10;
    Pattern pattern = Pattern::Steady;
    int connections = 4;
    int pipeline = 16; // requests per round trip
    std::uint64_t seed = 1;
};

struct LoadResult {
    // requests: decisions that came back (allowed + denied); errors: requests sent on a
    // connection that failed them. A connection that could not be set up sends nothing.
    std::uint64_t requests = 0, allowed = 0, denied = 0, errors = 0;
    std::uint64_t unlimited = 0; // of allowed: on a plan with no limit, Redis not asked
    double seconds = 0;
    double rate = 0; // achieved requests per second
    double p50us = 0, p90us = 0, p99us = 0, maxUs = 0;
    std::string firstError;
    std::string
        engine; // what decided in Redis: "lua", "module", or "mixed" (a cluster's nodes differ)
    int failedConnections = 0; // connections that could not connect or load the scripts
    bool cancelled = false;
};

// Why a run proved nothing, or empty when it did: no decision came back (no request sent in
// time, or every one an error), or a connection could not be set up. quotactl exits 1 then.
std::string loadFailure(const LoadResult &result, int connections);

// The routes of a policy (all, or just `routeId`) as loadgen drives them, or why there are none.
Expected<std::vector<LoadRoute>> loadRoutesFor(const Policy &policy, const QString &routeId);
// Their limits' rules, every route's in order (for tests that write a policy's keys).
Expected<std::vector<limiter::RedisRule>> redisRulesFor(
    const Policy &policy, const QString &routeId);

// Runs until the duration ends or `stop` becomes true. `progress` (optional) is called about
// once a second from the calling thread with the requests so far.
LoadResult runLoad(const LoadPlan &plan, const std::atomic<bool> &stop,
    const std::function<void(std::uint64_t requests, double seconds)> &progress = {});

} // namespace qs
