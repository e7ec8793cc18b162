#pragma once
// A Decision rendered as the response headers a gateway sends.
#include "limiter/algorithms/decision.h"

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

} // namespace qs::limiter
