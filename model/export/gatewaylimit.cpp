#include "model/export/gatewaylimit.h"

namespace qs {

namespace {

// update_freq_ctr_period(): rotate when the period is over; after two idle periods restart at
// now. Tick values are kept even (HAProxy uses the low bit as a lock).
void count(const HaproxyRateLimit &l, HaproxyRateState &s, std::int64_t nowMs, std::int64_t inc)
{
    const std::int64_t period = l.period / 1000;
    if (nowMs - s.tickMs < period) {
        s.curr += inc;
        return;
    }
    s.prev = s.curr;
    s.curr = inc;
    s.tickMs += period;
    if (nowMs - s.tickMs >= period) {
        s.prev = 0;
        s.tickMs = nowMs;
    }
    s.tickMs &= ~std::int64_t(1);
}

// read_freq_ctr_period(): events over the current period plus the part of the previous one
// that the sliding window still covers, with HAProxy's correction for very low rates.
std::int64_t rate(const HaproxyRateLimit &l, const HaproxyRateState &s, std::int64_t nowMs)
{
    const std::int64_t period = l.period / 1000;
    std::int64_t curr = s.curr, past = s.prev;
    std::int64_t remain = s.tickMs + period - nowMs;
    if (remain < 0) {
        remain += period;
        past = remain >= 0 ? curr : 0;
        curr = 0;
    }
    if (curr == 0 && past <= 1)
        return past;
    return (past * remain + curr * period) / period;
}

limiter::Decision decideHaproxy(
    const HaproxyRateLimit &l, HaproxyRateState &s, limiter::Micros now, std::int64_t cost)
{
    if (s.touched != limiter::kNoTime && now - s.touched >= l.expire)
        s = HaproxyRateState{};
    s.touched = now;
    const std::int64_t nowMs = now / 1000;
    // track-sc0 counts the request before the deny rule reads the rate.
    count(l, s, nowMs, cost);
    const std::int64_t seen = rate(l, s, nowMs);
    limiter::Decision d;
    d.limit = l.limit;
    d.window = l.period;
    d.allowed = seen <= l.limit;
    d.reason = d.allowed ? limiter::Reason::None : limiter::Reason::LimitExceeded;
    d.remaining = std::max<std::int64_t>(0, l.limit - seen);
    return d;
}

} // namespace

GatewayState freshState(const GatewayLimit &limit)
{
    if (const auto *c = std::get_if<limiter::AlgorithmConfig>(&limit))
        return limiter::freshState(*c);
    return HaproxyRateState{};
}

limiter::Decision decide(
    const GatewayLimit &limit, GatewayState &state, limiter::Micros now, std::int64_t cost)
{
    if (const auto *c = std::get_if<limiter::AlgorithmConfig>(&limit)) {
        if (auto *s = std::get_if<limiter::AlgorithmState>(&state))
            return limiter::decide(*c, *s, now, cost);
    } else if (auto *s = std::get_if<HaproxyRateState>(&state)) {
        return decideHaproxy(std::get<HaproxyRateLimit>(limit), *s, now, cost);
    }
    limiter::Decision mismatch;
    mismatch.reason = limiter::Reason::InvalidRule;
    return mismatch;
}

} // namespace qs
