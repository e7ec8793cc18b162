#pragma once
// A Decision rendered as the response headers a gateway sends.
#include "limiter/algorithms/decision.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qs::limiter {

enum class HeaderStyle : std::uint8_t {
    None,
    Draft, // IETF httpapi ratelimit-headers: RateLimit-Policy and RateLimit
    XRateLimit, // the older X-RateLimit-Limit / -Remaining / -Reset (seconds until reset)
    Both,
};

struct Header {
    std::string name;
    std::string value;
    friend bool operator==(const Header &, const Header &) = default;
};

// Whole seconds, rounded up: a client that waits the advertised time is never early.
std::int64_t secondsCeil(Micros us);

// Headers for one decision. Retry-After is added to every denial that waiting can cure, in
// every style (it is plain HTTP); a request whose cost can never fit gets none.
std::vector<Header> responseHeaders(
    const Decision &decision, std::string_view policyName, HeaderStyle style);

// One enforced limit of a request with several (limitset.h), as the client is told of it:
// its quota and window, and what it has left after the request.
struct PolicyItem {
    std::string_view name;
    std::int64_t quota = 0;
    Micros window = 0;
    std::int64_t remaining = 0;
    Micros reset = 0; // until its quota is whole again (or, denying, until it admits)
};

// Headers for a request decided by several limits: RateLimit-Policy and RateLimit carry one
// item per limit, in the route's order; X-RateLimit-* and Retry-After are those of `deciding`
// (the denying limit with the longest wait, else the one nearest to denying).
std::vector<Header> responseHeaders(
    std::span<const PolicyItem> items, const Decision &deciding, HeaderStyle style);

} // namespace qs::limiter
