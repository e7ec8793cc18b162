#include "limiter/redismodule/commands.h"

#include "limiter/algorithms/limitset.h"
#include "limiter/redis/packeddoubles.h"
#include "limiter/redis/redisstate.h"
#include "limiter/redismodule/redismoduleapi.h"
#include "limiter/redismodule/request.h"
#include "limiter/redismodule/statestore.h"

#include <algorithm>
#include <array>
#include <vector>

namespace qs::redismodule {

using namespace limiter;

namespace {

int replyError(RedisModuleCtx *ctx, const std::string &message)
{
    return rm.ReplyWithError(ctx, message.c_str());
}

// The scripts' reply: code 0 admitted (wait = shaping delay), 1 limit exceeded (wait = retry
// after), 2 the cost exceeds what the limit can ever admit.
int replyDecision(RedisModuleCtx *ctx, const Decision &d)
{
    const double code = d.allowed ? 0 : d.reason == Reason::CostExceedsLimit ? 2 : 1;
    const double fields[] = {code, double(d.remaining), double(d.allowed ? d.delay : d.retryAfter),
        double(d.resetAfter)};
    const std::string bytes = packDoubles(fields);
    return rm.ReplyWithStringBuffer(ctx, bytes.data(), bytes.size());
}

// What a decision changed in a sliding window log, in the commands the script would send.
LogChange logChange(const SlidingWindowLogConfig &config, const SlidingWindowLogState &before,
    const Decision &d, std::int64_t cost, Micros now, bool explicitNow,
    const SlidingWindowLogState &after)
{
    LogChange change;
    const Micros t = before.stamps.empty() ? now : std::max(now, before.stamps.back());
    change.expiredUpTo = t - config.window;
    change.anyExpired = !before.stamps.empty() && before.stamps.front() <= change.expiredUpTo;
    if (d.allowed && cost > 0) {
        change.at = t;
        change.added = cost;
        const auto [first, last] = std::equal_range(before.stamps.begin(), before.stamps.end(), t);
        change.sameBefore = last - first;
    }
    change.ttlMillis = redisTtlMillis(config, after, now, explicitNow);
    return change;
}

// What both commands start with: the arguments parsed, the time, the key's state read.
struct Call {
    Request request;
    Micros now = 0;
    std::optional<AlgorithmState> state;
};

std::optional<Call> prepare(
    RedisModuleCtx *ctx, RedisModuleString **argv, int argc, bool withCost, std::string &error)
{
    auto request = parseRequest(argv, argc, withCost, error);
    if (!request)
        return std::nullopt;
    Call call{std::move(*request), 0, std::nullopt};
    call.now = call.request.now.value_or(serverNow());
    call.state = readState(ctx, call.request.key, call.request.config, error);
    if (!call.state || !windowsHoldNow(call.request.config, *call.state, call.now, error))
        return std::nullopt;
    return call;
}

} // namespace

int decideCommand(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    std::string error;
    auto call = prepare(ctx, argv, argc, true, error);
    if (!call)
        return replyError(ctx, error);
    const Request &request = call->request;
    const Micros now = call->now;
    AlgorithmState &state = *call->state;

    if (const auto *log = std::get_if<SlidingWindowLogConfig>(&request.config)) {
        const SlidingWindowLogState before = std::get<SlidingWindowLogState>(state);
        const Decision d = decide(request.config, state, now, request.cost);
        const LogChange change = logChange(*log, before, d, request.cost, now,
            request.now.has_value(), std::get<SlidingWindowLogState>(state));
        if (!writeLogChange(ctx, request.key, change, error))
            return replyError(ctx, error);
        return replyDecision(ctx, d);
    }
    const Decision d = decide(request.config, state, now, request.cost);
    // Only an admission changes a state the scripts write (a denial leaves the key alone).
    if (d.allowed
        && !writeStringState(ctx, request.key, encodeRedisState(state),
            redisTtlMillis(request.config, state, now, request.now.has_value()), error))
        return replyError(ctx, error);
    return replyDecision(ctx, d);
}

int decideAllCommand(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (rm.IsKeysPositionRequest(ctx)) { // Redis Cluster and ACLs ask where the keys are
        long long n = 0;
        if (argc > 1 && rm.StringToLongLong(argv[1], &n) == kOk)
            for (int i = 0; i < n && 2 + i < argc; ++i)
                rm.KeyAtPos(ctx, 2 + i);
        return kOk;
    }
    std::string error;
    const auto request = parseSeveralRequest(argv, argc, error);
    if (!request)
        return replyError(ctx, error);
    const Micros now = request->now.value_or(serverNow());
    const std::size_t n = request->limits.size();
    std::vector<AlgorithmState> states, before;
    states.reserve(n);
    for (const LimitRequest &l : request->limits) {
        auto state = readState(ctx, l.key, l.config, error);
        if (!state || !windowsHoldNow(l.config, *state, now, error))
            return replyError(ctx, error);
        states.push_back(std::move(*state));
    }
    before = states; // the logs' changes are worked out from what they held
    std::array<LimitRef, kMaxLimitsPerRequest> refs;
    for (std::size_t i = 0; i < n; ++i)
        refs[i] = {&request->limits[i].config, &states[i], request->limits[i].cost,
            request->limits[i].shadow};
    std::array<Decision, kMaxLimitsPerRequest> decided;
    const SetDecision set = decideAll(std::span(refs.data(), n), now, std::span(decided.data(), n));
    for (std::size_t i = 0; i < n; ++i) {
        const LimitRequest &l = request->limits[i];
        const Decision &d = decided[i];
        if (const auto *log = std::get_if<SlidingWindowLogConfig>(&l.config)) {
            // As several.lua: expired entries go whatever the answer; the rest on admission.
            LogChange change = logChange(*log, std::get<SlidingWindowLogState>(before[i]), d,
                l.cost, now, request->now.has_value(), std::get<SlidingWindowLogState>(states[i]));
            if (!set.allowed || !d.allowed) {
                change.added = 0;
                change.ttlMillis = 0;
            }
            if (!writeLogChange(ctx, l.key, change, error))
                return replyError(ctx, error);
        } else if (set.allowed && d.allowed
            && !writeStringState(ctx, l.key, encodeRedisState(states[i]),
                redisTtlMillis(l.config, states[i], now, request->now.has_value()), error)) {
            return replyError(ctx, error);
        }
    }
    std::array<double, 4 * kMaxLimitsPerRequest> fields{};
    for (std::size_t i = 0; i < n; ++i) {
        const Decision &d = decided[i];
        fields[4 * i] = d.allowed ? 0 : d.reason == Reason::CostExceedsLimit ? 2 : 1;
        fields[4 * i + 1] = double(d.remaining);
        fields[4 * i + 2] = double(d.allowed ? d.delay : d.retryAfter);
        fields[4 * i + 3] = double(d.resetAfter);
    }
    const std::string bytes = packDoubles(std::span<const double>(fields.data(), 4 * n));
    return rm.ReplyWithStringBuffer(ctx, bytes.data(), bytes.size());
}

int peekCommand(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    std::string error;
    const auto call = prepare(ctx, argv, argc, false, error);
    if (!call)
        return replyError(ctx, error);
    const Quota q = peek(call->request.config, *call->state, call->now);
    rm.ReplyWithArray(ctx, 4);
    rm.ReplyWithLongLong(ctx, q.remaining);
    rm.ReplyWithLongLong(ctx, q.limit);
    rm.ReplyWithLongLong(ctx, q.resetAfter);
    return rm.ReplyWithLongLong(ctx, q.remaining < 1 ? 1 : 0);
}

} // namespace qs::redismodule
