#pragma once
// The C++/Redis parity checks, shared by the Lua scripts' tests (redisbackend_test) and the
// module's (redismodule_test): the same traces decided by the embedded engine and by Redis,
// every Decision field compared.
#include "limiter/redisbackend.h"

#include "tests/unit/limiter/trace.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace qs::limiter::test {

inline constexpr Micros kParityStart = 1'700'000'000LL * kMicrosPerSecond;

// A key prefix no other test (or earlier run) uses.
std::string uniquePrefix(const char *test);

// Every Decision field equal, and no store error; `where` names the request.
void expectSameDecision(const Decision &remote, const Decision &local, const std::string &where);

// The parity configs at the extremes of their ranges: a huge and a tiny rate, a window of a
// millisecond and one of a day.
std::vector<NamedConfig> extremeConfigs();

// Decides request number `index` of a trace in Redis (one backend, or several taking turns).
using RedisDecider = std::function<Decision(std::size_t index, const RedisRule &rule,
    const std::string &key, std::int64_t cost, Micros at)>;
RedisDecider through(RedisBackend &backend);
// backend.acquire(), and a test failure that quotes lastError() when Redis could not decide.
Decision decideOrSayWhy(RedisBackend &backend, const RedisRule &rule, const std::string &key,
    std::int64_t cost, Micros at);

// Random traces (bursts, pauses, costs 1–3) on parityConfigs(), three seeds each.
void checkParityOnRandomTraces(const RedisDecider &redis, const char *prefix);
// edgeTrace() on parityConfigs() and extremeConfigs(): costs never admissible, late callers,
// bursts on and around window edges; fails unless every kind of decision was seen.
void checkParityAtTheEdges(const RedisDecider &redis, const char *prefix);

} // namespace qs::limiter::test
