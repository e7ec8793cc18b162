#pragma once
// The module's commands. Both decide with the limiter's own code (limiter/algorithms/algorithm.h):
// the arithmetic the embedded engine, the simulator and the Lua scripts' parity tests share.
struct RedisModuleCtx;
struct RedisModuleString;

namespace qs::redismodule {

// QS.DECIDE <key> <algorithm> <cost> <parameters…> [NOW <µs>]: the scripts' 32-byte reply,
// struct.pack('<dddd', code, remaining, wait µs, reset µs) (docs/redis-layout.md).
int decideCommand(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);

// QS.DECIDEALL <numkeys> <key>… <now µs or ''> [<algorithm> <cost> <shadow> <p1> <p2> <p3 or
// ''>]×numkeys: several limits of one request, several.lua's arguments and reply (four packed
// doubles per limit); written only when every enforced limit admits (limitset.h's rule).
int decideAllCommand(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);

// QS.PEEK <key> <algorithm> <parameters…> [NOW <µs>]: [remaining, limit, reset_after µs,
// throttled 0|1], nothing written.
int peekCommand(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);

} // namespace qs::redismodule
