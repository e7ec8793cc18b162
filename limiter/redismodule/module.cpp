// The Quota Studio Redis module: QS.DECIDE, QS.DECIDEALL and QS.PEEK, the six algorithms of
// limiter/ run natively inside Redis (docs/redis-layout.md, "Redis module"). Load it with
//   redis-server --loadmodule /path/to/quota_studio_redis.so
// or MODULE LOAD. Its only exported symbol is RedisModule_OnLoad.
#include "limiter/redismodule/commands.h"
#include "limiter/redismodule/redismoduleapi.h"

using namespace qs::redismodule;

namespace {

constexpr const char *kModuleName = "quotastudio";
constexpr int kModuleVersion = 1;

} // namespace

extern "C" __attribute__((visibility("default"))) int RedisModule_OnLoad(
    RedisModuleCtx *ctx, RedisModuleString **, int)
{
    const char *missing = nullptr;
    if (!loadApi(ctx, missing)) {
        if (rm.Log) // this Redis is older than the API the module was written against
            rm.Log(ctx, "warning", "quotastudio: this Redis has no %s; the module needs Redis 7.0",
                missing);
        return kErr;
    }
    if (rm.IsModuleNameBusy(kModuleName)) {
        rm.Log(ctx, "warning", "quotastudio: a module of that name is already loaded");
        return kErr;
    }
    rm.SetModuleAttribs(ctx, kModuleName, kModuleVersion, kApiVersion1);
    // Key positions (first 1, last 1, step 1): Redis Cluster routes both commands by their key
    // and ACL key patterns apply. PEEK is readonly: replicas and read-only users may run it.
    if (rm.CreateCommand(ctx, "qs.decide", decideCommand, "write deny-oom", 1, 1, 1) != kOk)
        return kErr;
    if (rm.CreateCommand(ctx, "qs.peek", peekCommand, "readonly", 1, 1, 1) != kOk)
        return kErr;
    // Its keys follow their count (as EVALSHA's): the command names them when asked.
    if (rm.CreateCommand(
            ctx, "qs.decideall", decideAllCommand, "write deny-oom getkeys-api", 0, 0, 0)
        != kOk)
        return kErr;
    return kOk;
}
