#pragma once
// The decoders behind LayoutDecoder, one per layout. Internal to model/monitor/: callers go
// through makeLayoutDecoder().
#include "model/monitor/layoutdecoder.h"
#include "model/monitor/layouts/keytemplate.h"

#include <variant>

namespace qs::layouts {

// What every decoder needs from the route: its limit as the limiter's config and its cost.
struct RouteLimit {
    limiter::AlgorithmConfig config;
    qint64 cost = 1;
};

// Quota Studio's own keys, `<key prefix>:<client>` (docs/redis-layout.md), the key prefix a
// route's or one limit's (limitKeyPrefix, model/policy/policykeys.h) under the policy's prefix.
std::unique_ptr<LayoutDecoder> quotaStudio(
    const QString &policyPrefix, std::string keyPrefix, RouteLimit limit);

// Presets (docs/monitoring.md has each key pattern and formula).
std::unique_ptr<LayoutDecoder> tutorialHash(
    const KeyTemplate &key, const RedisLayout &layout, RouteLimit limit);
std::unique_ptr<LayoutDecoder> pythonLimits(const KeyTemplate &key, RouteLimit limit);
std::unique_ptr<LayoutDecoder> kong(const KeyTemplate &key, RouteLimit limit);
std::unique_ptr<LayoutDecoder> envoyRatelimit(const KeyTemplate &key, RouteLimit limit);
std::unique_ptr<LayoutDecoder> redisRate(const KeyTemplate &key, RouteLimit limit);
std::unique_ptr<LayoutDecoder> springCloudGateway(const KeyTemplate &key, RouteLimit limit);
std::unique_ptr<LayoutDecoder> expressRateLimit(const KeyTemplate &key, RouteLimit limit);

// The part every template-based decoder shares: the glob and the exact match of its keys.
class TemplateLayout : public LayoutDecoder {
public:
    TemplateLayout(KeyTemplate key, RouteLimit limit) : m_key(std::move(key)), m_limit(limit) { }
    QByteArray scanPattern() const override { return m_key.glob(); }
    bool accepts(const QByteArray &key) const override { return bool(m_key.clientPart(key)); }

protected:
    KeyQuota quota(const limiter::AlgorithmState &state, qint64 nowUs, qint64 ttlMs) const
    {
        return quotaFromState(m_limit.config, state, nowUs, m_limit.cost, ttlMs);
    }

    KeyTemplate m_key;
    RouteLimit m_limit;
};

// A counter of `count` hits in a window of `window` µs that began `elapsedUs` ago — at the
// first hit (python-limits, express-rate-limit) or at the period the key names (Kong, envoy
// ratelimit). The limiter's fixed window aligns windows to the epoch; these deployments do not,
// so the counter is peeked in the window's own time frame, where it starts at 0. Gone once the
// window has ended: the key then says nothing about the client any more.
KeyQuota windowCounterQuota(qint64 limit, limiter::Micros window, qint64 count,
    limiter::Micros elapsedUs, qint64 cost, qint64 ttlMs);

// A counter's value (Kong, envoy ratelimit, express-rate-limit, python-limits): its count, or
// the KeyQuota to answer instead — gone when there is no value, unreadable when it is not a
// whole count (saying what was found; `what` names the counter, "a request counter").
std::variant<qint64, KeyQuota> readCounter(const RespValue &value, const QString &what);

// A stored time in µs since the Unix epoch. `unit` is s, ms or us; unset: told by magnitude
// (now is about 1.7e9 s, 1.7e12 ms, 1.7e15 µs). unitMicros: that unit in µs.
qint64 toEpochMicros(double stored, const std::optional<QString> &unit);
qint64 unitMicros(double stored, const std::optional<QString> &unit);

// A stored last update further ahead of the server's clock than this is not a time the
// deployment wrote (an app host's clock may run a little ahead; not minutes).
inline constexpr qint64 kFutureUpdateToleranceUs = 60'000'000;

// A token bucket's quota as the deployment's own script will answer the next request.
// `refillStepUs` 1: refilled continuously; otherwise refilled by whole steps of that length (a
// script whose clock is `int(time.time())` or Redis' TIME in whole seconds): peeked at the
// start of the current step, full at a step's start. Unreadable when the last update lies in
// the future beyond kFutureUpdateToleranceUs.
KeyQuota tokenBucketQuota(const RouteLimit &limit, const limiter::TokenBucketState &state,
    qint64 nowUs, qint64 ttlMs, qint64 refillStepUs);

} // namespace qs::layouts
