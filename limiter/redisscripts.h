#pragma once
// The Lua scripts that decide in Redis exactly as decide() does here, compiled into the
// library (limiter/lua/*.lua, embedded by EmbedLua.cmake). Key layout: docs/redis-layout.md.
#include "limiter/algorithm.h"

#include <string>
#include <string_view>
#include <vector>

namespace qs::limiter {

std::string_view redisScript(Algorithm algorithm);

// The script's parameter arguments (ARGV[4..]) for a config, in the script's order.
std::vector<std::string> redisScriptParameters(const AlgorithmConfig &config);

} // namespace qs::limiter
