#pragma once
// A limiter state kept in Redis, read and written in the layouts of docs/redis-layout.md,
// so that the Lua scripts and the module serve the same keys interchangeably.
//
// Reads go through the key API (no command, no copy). Writes go through Redis' own commands
// with '!' (PSETEX, ZADD, ZREMRANGEBYSCORE, PEXPIRE, as the scripts call them): Redis then
// counts the change for RDB saves, rewrites relative TTLs into absolute ones and replicates the
// effect to replicas and the AOF, never this module's command, whose clock it cannot replay.
#include "limiter/algorithms/algorithm.h"

#include <optional>
#include <string>

struct RedisModuleCtx;
struct RedisModuleString;

namespace qs::redismodule {

// The state under `key` for the config's algorithm: fresh when the key does not exist. nullopt
// with the error reply's text for a key of another type (WRONGTYPE) or bytes no script writes.
std::optional<limiter::AlgorithmState> readState(RedisModuleCtx *ctx, RedisModuleString *key,
    const limiter::AlgorithmConfig &config, std::string &error);

// After a decision on a string state: PSETEX key ttl bytes (only admissions change state).
// false with the error reply's text when Redis refused the write (the decision must not stand).
bool writeStringState(RedisModuleCtx *ctx, RedisModuleString *key, const std::string &bytes,
    long long ttlMillis, std::string &error);

// After a decision on a sliding window log: drop entries at or before `expiredUpTo`, log
// `added` units at `at`, of which `sameBefore` were already logged at that µs (members
// "<µs>:<n>"), and keep the key for `ttlMillis` when > 0.
struct LogChange {
    limiter::Micros expiredUpTo = 0;
    bool anyExpired = false;
    limiter::Micros at = 0;
    std::int64_t added = 0;
    std::int64_t sameBefore = 0;
    long long ttlMillis = 0;
};
bool writeLogChange(
    RedisModuleCtx *ctx, RedisModuleString *key, const LogChange &change, std::string &error);

} // namespace qs::redismodule
