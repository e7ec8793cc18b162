// What a gateway author writes against the installed headers: a token bucket of 3 with a refill
// of 1/s admits a burst of 3 and refuses the 4th. Prints the decisions; exits 0 when they are
// exactly that. It also includes and uses the Redis side's public headers, so that a header they
// need and the install leaves out fails this build.
#include <limiter/engine/engine.h>
#include <limiter/algorithms/headers.h>
#include <limiter/redis/keyslot.h>
#include <limiter/redis/redisbackend.h>
#include <limiter/redis/redisscripts.h>
#include <limiter/redis/redisstate.h>

#include <cstdio>

int main()
{
    using namespace qs::limiter;
    Engine engine;
    const RuleResult rule = engine.addRule(TokenBucketConfig{3, Rate{1, kMicrosPerSecond}});
    if (!rule.id) {
        std::printf("rule refused: %s\n", rule.error.c_str());
        return 1;
    }
    const Micros now = 1'000'000;
    int admitted = 0;
    for (int i = 0; i < 4; ++i)
        admitted += engine.acquire(*rule.id, "client-1", now).allowed ? 1 : 0;
    std::printf("admitted %d of 4\n", admitted);
    // The Redis side, without a server: a cluster's slot for a tagged key, an endpoint.
    RedisEndpoint endpoint;
    endpoint.port = 6379;
    const bool slotOk = keySlot("user:{42}:a") == keySlot("user:{42}:b") && endpoint.port == 6379;
    return admitted == 3 && slotOk ? 0 : 1;
}
