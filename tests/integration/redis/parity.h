#pragma once
// The C++/Redis parity checks, shared by the Lua scripts' tests (redisbackend_test) and the
// module's (redismodule_test): the same traces decided by the embedded engine and by Redis,
// every Decision field compared.
#include "limiter/redis/redisbackend.h"

#include "tests/unit/limiter/trace.h"

#include <hiredis/hiredis.h>

#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace qs::limiter::test {

inline constexpr Micros kParityStart = 1'700'000'000LL * kMicrosPerSecond;

// A key prefix no other test (or earlier run) uses.
std::string uniquePrefix(const char *test);

// Every Decision field equal, and no store error; `where` names the request.
void expectSameDecision(const Decision &remote, const Decision &local, const std::string &where);

// A config of any of the six algorithms with small numbers (1-6), so that a few requests both
// admit and deny: the several-limit traces' limits.
AlgorithmConfig randomSmallConfig(std::mt19937_64 &rng);

// The parity configs at the extremes of their ranges: a huge and a tiny rate, a window of a
// millisecond and one of a day.
std::vector<NamedConfig> extremeConfigs();

// Decides request number `index` of a trace in Redis (one backend, or several taking turns),
// and leaves its state key persistent. The traces run on their own clock while Redis expires keys
// on the real one, with a TTL of at least a second (the scripts' margin for an explicit `now`):
// a key made persistent in the same breath as its write cannot expire between two steps, however
// long the machine pauses there. Only a pause within the call itself can, which the checks below
// notice (see kStall in parity.cpp).
using RedisDecider = std::function<Decision(std::size_t index, const RedisRule &rule,
    const std::string &key, std::int64_t cost, Micros at)>;
// backend.acquire(), then PERSIST of its state key over `admin` (a connection to the same server).
RedisDecider through(RedisBackend &backend, redisContext *admin);
// The same, for a decider of a test's own (backends taking turns).
Decision decideAndKeep(RedisBackend &backend, redisContext *admin, const RedisRule &rule,
    const std::string &key, std::int64_t cost, Micros at);
// backend.acquire(), and a test failure that quotes lastError() when Redis could not decide.
Decision decideOrSayWhy(RedisBackend &backend, const RedisRule &rule, const std::string &key,
    std::int64_t cost, Micros at);

// Random traces (bursts, pauses, costs 1–3) on parityConfigs(), three seeds each.
void checkParityOnRandomTraces(const RedisDecider &redis, const char *prefix);
// edgeTrace() on parityConfigs() and extremeConfigs(): costs never admissible, late callers,
// bursts on and around window edges; fails unless every kind of decision was seen.
void checkParityAtTheEdges(const RedisDecider &redis, const char *prefix);

// Calendar fixed windows (a day in Havana across the night its clock skips midnight, a month
// in Berlin across the 1st, a week in Kolkata): requests every few hours and at each window's
// last and first microsecond, decided by the engine and by Redis with the caller's windows
// (fixed_window.lua's calendar_arg); every Decision field equal, and denials seen.
void checkParityOnCalendarTraces(const RedisDecider &redis, const char *prefix);

} // namespace qs::limiter::test
