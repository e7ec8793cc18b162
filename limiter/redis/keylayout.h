#pragma once
// Where Quota Studio keeps state in Redis: every key name and key-derived fact, in one place.
// The backend, the Lua bundle's manifest, the load generator, the monitor and its presets build
// and recognise keys only through these functions, so a layout cannot change in one of them and
// not in the others (tests/unit/limiter/keylayout_test.cpp, and the monitor decoding what the
// backend wrote: tests/integration/monitor).
//
//   <policy prefix>:<route id>                      a route's prefix (RedisRule::keyPrefix)
//   <route prefix>:<client key>                     one client's state (the algorithm's bytes)
//   <route prefix>:~metrics:<epoch second>          a hash of that second's a(llowed)/d(enied),
//                                                   and a:<plan>/d:<plan> per plan
//
// No hash tag: a route's clients spread over a cluster's slots; each decision touches one key.
// `~` starts no client key a policy can produce, so metrics never collide with state.
#include <cstdint>
#include <string>
#include <string_view>

namespace qs::limiter::keylayout {

inline constexpr char kSeparator = ':';
inline constexpr std::string_view kMetricsTag = "~metrics";
// How long a second's metrics hash lives: two minutes of history for the monitor's rates.
inline constexpr int kMetricsTtlSeconds = 120;

inline std::string routePrefix(std::string_view policyPrefix, std::string_view routeId)
{
    std::string out;
    out.reserve(policyPrefix.size() + 1 + routeId.size());
    out.append(policyPrefix).append(1, kSeparator).append(routeId);
    return out;
}

inline std::string stateKey(std::string_view routePrefix, std::string_view clientKey)
{
    std::string out;
    out.reserve(routePrefix.size() + 1 + clientKey.size());
    out.append(routePrefix).append(1, kSeparator).append(clientKey);
    return out;
}

// "<route prefix>:~metrics": what the bundle's manifest calls metrics_prefix.
inline std::string metricsPrefix(std::string_view routePrefix)
{
    return stateKey(routePrefix, kMetricsTag);
}

inline std::string metricsKey(std::string_view routePrefix, std::int64_t second)
{
    return stateKey(metricsPrefix(routePrefix), std::to_string(second));
}

// The metrics hash's fields: a route's totals, and a plan's share of them.
inline constexpr std::string_view kAllowedField = "a";
inline constexpr std::string_view kDeniedField = "d";
inline std::string planField(std::string_view field, std::string_view plan)
{
    std::string out(field);
    out.append(1, kSeparator).append(plan);
    return out;
}

// A key under the route's prefix that is one client's state, not a metrics hash.
inline bool isStateKey(std::string_view key, std::string_view routePrefix)
{
    if (key.size() <= routePrefix.size() + 1 || key.substr(0, routePrefix.size()) != routePrefix
        || key[routePrefix.size()] != kSeparator)
        return false;
    const std::string_view rest = key.substr(routePrefix.size() + 1);
    return !(rest.substr(0, kMetricsTag.size()) == kMetricsTag && rest.size() > kMetricsTag.size()
        && rest[kMetricsTag.size()] == kSeparator);
}

} // namespace qs::limiter::keylayout
