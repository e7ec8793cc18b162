#include "limiter/algorithms/tokenbucket.h"

#include "limiter/algorithms/arithmetic.h"

namespace qs::limiter {

using detail::ceilMicros;
using detail::floorCount;

namespace {

// Tokens in the bucket at time t (t >= updatedAt). Multiply before dividing: 1 s at 2/s is
// exactly 2 tokens, where a precomputed 2e-6 per µs would give 1.9999999999999998.
double tokensAt(const TokenBucketConfig &c, const TokenBucketState &s, Micros t)
{
    const double cap = double(c.capacity);
    if (s.updatedAt == kNoTime)
        return cap;
    const double refilled
        = s.tokens + double(t - s.updatedAt) * double(c.refill.count) / double(c.refill.period);
    return std::min(cap, refilled);
}

Micros timeToGain(const TokenBucketConfig &c, double tokens)
{
    return ceilMicros(tokens * double(c.refill.period) / double(c.refill.count));
}

// The first time at or after t when `cost` tokens are there. The closed form can land a µs to
// either side after rounding: stepping back while the µs before already holds them keeps
// Retry-After tight, stepping on until the bucket really holds them keeps it honest.
Micros earliestWith(const TokenBucketConfig &c, const TokenBucketState &s, Micros t, double tokens,
    std::int64_t cost)
{
    Micros at = t + timeToGain(c, double(cost) - tokens);
    for (int i = 0; i < 8 && at > t && tokensAt(c, s, at - 1) >= double(cost); ++i)
        --at;
    for (int i = 0; i < 8 && tokensAt(c, s, at) < double(cost); ++i)
        ++at;
    return at;
}

Micros window(const TokenBucketConfig &c)
{
    return timeToGain(c, double(c.capacity));
}

} // namespace

std::optional<std::string> TokenBucketConfig::validate() const
{
    if (capacity <= 0)
        return "capacity must be at least 1 (got " + std::to_string(capacity) + ")";
    if (capacity > kMaxCount)
        return "capacity " + std::to_string(capacity) + " is absurd; use at most "
            + std::to_string(kMaxCount);
    if (auto problem = refill.validate())
        return "refill: " + *problem;
    return std::nullopt;
}

Decision decide(const TokenBucketConfig &c, TokenBucketState &s, Micros now, std::int64_t cost)
{
    Decision d;
    d.limit = c.capacity;
    d.window = window(c);
    const Micros t = detail::notBefore(now, s.updatedAt);
    double tokens = tokensAt(c, s, t);
    if (cost > c.capacity) {
        d.reason = Reason::CostExceedsLimit;
    } else if (tokens >= double(cost)) {
        tokens -= double(cost);
        s.tokens = tokens;
        s.updatedAt = t;
        d.allowed = true;
    } else {
        d.reason = Reason::LimitExceeded;
        d.retryAfter = earliestWith(c, s, t, tokens, cost) - now;
    }
    d.remaining = floorCount(tokens);
    d.resetAfter = timeToGain(c, double(c.capacity) - tokens) + (t - now);
    return d;
}

Quota peek(const TokenBucketConfig &c, const TokenBucketState &s, Micros now)
{
    const Micros t = detail::notBefore(now, s.updatedAt);
    const double tokens = tokensAt(c, s, t);
    return Quota{c.capacity, floorCount(tokens), window(c),
        timeToGain(c, double(c.capacity) - tokens) + (t - now)};
}

bool isFresh(const TokenBucketConfig &c, const TokenBucketState &s, Micros now)
{
    return tokensAt(c, s, detail::notBefore(now, s.updatedAt)) >= double(c.capacity);
}

} // namespace qs::limiter
