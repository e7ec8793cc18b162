#pragma once
// The Lua scripts that decide in Redis exactly as decide() does here, compiled into the
// library (limiter/lua/*.lua, embedded by EmbedLua.cmake). Key layout: docs/redis-layout.md.
#include "limiter/algorithm.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qs::limiter {

std::string_view redisScript(Algorithm algorithm);

// The script's parameters (ARGV[2..]) for a config, in the script's order; unused slots are
// left out (count says how many).
struct ScriptParameters {
    std::int64_t values[3] = {};
    int count = 0;
    const std::int64_t *begin() const { return values; }
    const std::int64_t *end() const { return values + count; }
};
ScriptParameters redisScriptParameterValues(const AlgorithmConfig &config);

// The inverse, for the Redis module (limiter/redismodule/), which receives the scripts'
// parameters: the config those values stand for, validated. nullopt with `why` when the count
// is wrong or the config is invalid (absurd numbers included).
std::optional<AlgorithmConfig> configFromScriptParameters(
    Algorithm algorithm, std::span<const std::int64_t> values, std::string &why);
// How many parameters the algorithm's script takes (2 or 3).
int redisScriptParameterCount(Algorithm algorithm);

} // namespace qs::limiter
