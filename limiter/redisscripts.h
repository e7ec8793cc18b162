#pragma once
// The Lua scripts that decide in Redis exactly as decide() does here, compiled into the
// library (limiter/lua/*.lua, embedded by EmbedLua.cmake). Key layout: docs/redis-layout.md.
#include "limiter/algorithm.h"

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

} // namespace qs::limiter
