#pragma once
// What a gateway enforces, in terms a predictor can run: one of the engine's algorithms (NGINX's
// limit_req is a GCRA), or arithmetic of the gateway's own that no engine algorithm matches
// (HAProxy's http_req_rate). The probe predicts a running gateway with it (docs/probe.md).
#include "limiter/algorithms/algorithm.h"

#include <variant>

namespace qs {

// HAProxy's `sc_http_req_rate(0) gt limit` on a stick table storing http_req_rate(period): a
// frequency counter of the current and the previous period (the current one starts at the
// first request after an idle spell, on an even millisecond), read as
// curr + prev * (time left in the period) / period, rounded down, and counting every tracked
// request, the denied ones included. An entry untouched for `expire` is dropped.
struct HaproxyRateLimit {
    std::int64_t limit = 0;
    limiter::Micros period = 0; // whole milliseconds
    limiter::Micros expire = 0;
};

struct HaproxyRateState {
    std::int64_t tickMs = 0; // start of the current period; 0: never used
    std::int64_t curr = 0, prev = 0;
    limiter::Micros touched = limiter::kNoTime;
    friend bool operator==(const HaproxyRateState &, const HaproxyRateState &) = default;
};

using GatewayLimit = std::variant<limiter::AlgorithmConfig, HaproxyRateLimit>;
using GatewayState = std::variant<limiter::AlgorithmState, HaproxyRateState>;

GatewayState freshState(const GatewayLimit &limit);
limiter::Decision decide(
    const GatewayLimit &limit, GatewayState &state, limiter::Micros now, std::int64_t cost);

} // namespace qs
