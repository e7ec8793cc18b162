#pragma once
// What QS.DECIDE and QS.PEEK are asked: parsed from the command's arguments once, with the
// same rules and the same error words as the Lua scripts' prelude (limiter/redis/lua/prelude.lua).
#include "limiter/algorithms/algorithm.h"

#include <optional>
#include <string>
#include <vector>

struct RedisModuleString;

namespace qs::redismodule {

struct Request {
    RedisModuleString *key = nullptr;
    limiter::Algorithm algorithm = limiter::Algorithm::TokenBucket;
    limiter::AlgorithmConfig config;
    std::int64_t cost = 0; // QS.PEEK: 0
    std::optional<limiter::Micros> now; // NOW <microseconds>; unset: the server's clock
};

// QS.DECIDE <key> <algorithm> <cost> <parameters…> [NOW <µs>] [WINDOWS <b0 b1 b2>]
// QS.PEEK <key> <algorithm> <parameters…> [NOW <µs>] [WINDOWS <b0 b1 b2>]
// (WINDOWS: a calendar fixed window's windows in µs, fixed_window.lua's calendar_arg)
// argv[0] is the command name. nullopt with the error reply's text in `error`.
std::optional<Request> parseRequest(
    RedisModuleString **argv, int argc, bool withCost, std::string &error);

// QS.DECIDEALL <numkeys> <key>… <now µs or ''> [<algorithm> <cost> <shadow 1|0> <p1> <p2>
//   <p3 or ''>]×numkeys: several.lua's KEYS and ARGV, so that a client can send either.
struct LimitRequest {
    RedisModuleString *key = nullptr;
    limiter::AlgorithmConfig config;
    std::int64_t cost = 0;
    bool shadow = false;
};
struct SeveralRequest {
    std::vector<LimitRequest> limits;
    std::optional<limiter::Micros> now;
};
std::optional<SeveralRequest> parseSeveralRequest(
    RedisModuleString **argv, int argc, std::string &error);

// A calendar fixed window's windows (WINDOWS, or several.lua's third parameter) must hold the
// time the decision is made at, as fixed_window.lua checks; false with the script's error.
bool windowsHoldNow(const limiter::AlgorithmConfig &config, const limiter::AlgorithmState &state,
    limiter::Micros now, std::string &error);

// The server's clock in µs since the epoch, as the scripts' TIME reads it.
limiter::Micros serverNow();

} // namespace qs::redismodule
