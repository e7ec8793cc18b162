#pragma once
// The states the Redis scripts write (docs/redis-layout.md), decoded into the engine's own state
// types. With them the monitor reads a key with the very peek() the engine decides with: the
// arithmetic of each algorithm lives once, in limiter/. The checks are the scripts' own: a
// state a script would call corrupt is refused here too, with the reason.
#include "limiter/algorithms/algorithm.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace qs::limiter {

// A string state (every algorithm but the sliding window log). nullopt and `why` set when the
// bytes are not a state of that algorithm.
std::optional<AlgorithmState> decodeRedisState(
    Algorithm algorithm, std::string_view bytes, std::string &why);

// The sliding window log's sorted set, from its scores (µs, any order).
std::optional<AlgorithmState> decodeRedisLog(std::span<const double> scores, std::string &why);

// The bytes a script writes for a string state: decodeRedisState's inverse. Empty for the
// sliding window log (a sorted set).
std::string encodeRedisState(const AlgorithmState &state);

// The key's time to live in ms after an admission left `state` at `now`, by the scripts' rule:
// until the state equals a fresh one, rounded up, at least 1 ms; `explicitNow` (a caller's
// clock, not Redis') adds a second of margin. For the sliding window log: until its newest
// entry expires (0 when the log is empty: no TTL to set).
long long redisTtlMillis(
    const AlgorithmConfig &config, const AlgorithmState &state, Micros now, bool explicitNow);

} // namespace qs::limiter
