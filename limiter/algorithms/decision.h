#pragma once
#include "limiter/algorithms/time.h"

#include <cstdint>
#include <string_view>

namespace qs::limiter {

// Why a request was denied (or admitted without the store's opinion).
enum class Reason : std::uint8_t {
    None, // admitted by the algorithm
    LimitExceeded, // the quota is used up for now; retryAfter says when to come back
    CostExceedsLimit, // the request alone costs more than the algorithm can ever admit
    KeyTableFull, // the engine's key bound was reached; denied rather than admitted blind
    StoreError, // the store could not answer; onStoreError decided (see failedOpen)
    InvalidRule, // unknown rule id or a rule that failed validation
    InvalidKey, // key longer than the engine accepts
    InvalidCost, // negative cost: it would refund quota
};

std::string_view reasonText(Reason reason);

// Everything a gateway needs to answer: allow/deny, RateLimit headers, Retry-After, shaping delay.
struct Decision {
    bool allowed = false;
    Reason reason = Reason::None;
    bool failedOpen = false; // admitted only because the store failed and policy says allow
    std::int64_t limit = 0; // the quota a client sees (requests per window, or burst)
    std::int64_t remaining = 0; // requests of cost 1 still admissible right now
    Micros window = 0; // the quota's time span, for RateLimit-Policy's w=
    Micros retryAfter = 0; // denied: wait at least this long; 0 when allowed
    Micros resetAfter = 0; // until the quota is whole again (the state is fresh)
    Micros delay = 0; // shaping: hold the request this long before forwarding it
};

// What peek() reports: the quota left now, without taking any.
struct Quota {
    std::int64_t limit = 0;
    std::int64_t remaining = 0;
    Micros window = 0;
    Micros resetAfter = 0;
};

} // namespace qs::limiter
