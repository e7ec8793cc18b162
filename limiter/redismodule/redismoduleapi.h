#pragma once
// The part of the Redis module API this module uses, declared from Redis' documentation
// (https://redis.io/docs/reference/modules/modules-api-ref/) because Debian ships no
// redismodule.h. Relied on: the API of Redis 7.0 (REDISMODULE_APIVER_1); every function named
// here exists unchanged since Redis 4.0 or 5.0, so later servers load the module too.
//
// Redis hands a module its API by name: the first word of the context given to OnLoad is a
// `int GetApi(const char *name, void *slot)` that fills `slot` with the function called
// "RedisModule_<name>". loadApi() does that once for every pointer below; a missing name makes
// loading fail with a message instead of a crash later.
#include <cstddef>

struct RedisModuleCtx;
struct RedisModuleString;
struct RedisModuleKey;
struct RedisModuleCallReply;

namespace qs::redismodule {

// Constants from the documentation, values as Redis defines them.
inline constexpr int kOk = 0;
inline constexpr int kErr = 1;
inline constexpr int kApiVersion1 = 1;
inline constexpr int kRead = 1 << 0;
inline constexpr int kWrite = 1 << 1;
inline constexpr int kKeyTypeEmpty = 0;
inline constexpr int kKeyTypeString = 1;
inline constexpr int kReplyError = 1;
inline constexpr const char *kWrongTypeMessage
    = "WRONGTYPE Operation against a key holding the wrong kind of value";

using CommandFunction = int (*)(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);

struct Api {
    // level: "warning", "notice", "verbose" or "debug"; fmt as printf.
    void (*Log)(RedisModuleCtx *ctx, const char *level, const char *fmt, ...);
    void (*SetModuleAttribs)(RedisModuleCtx *ctx, const char *name, int ver, int apiver);
    int (*IsModuleNameBusy)(const char *name);
    int (*CreateCommand)(RedisModuleCtx *ctx, const char *name, CommandFunction fn,
        const char *flags, int firstKey, int lastKey, int keyStep);

    const char *(*StringPtrLen)(const RedisModuleString *s, size_t *len);
    int (*StringToLongLong)(const RedisModuleString *s, long long *out);
    RedisModuleString *(*CreateString)(RedisModuleCtx *ctx, const char *ptr, size_t len);
    void (*FreeString)(RedisModuleCtx *ctx, RedisModuleString *s);

    int (*ReplyWithError)(RedisModuleCtx *ctx, const char *message);
    int (*ReplyWithStringBuffer)(RedisModuleCtx *ctx, const char *buf, size_t len);
    int (*ReplyWithArray)(RedisModuleCtx *ctx, long len);
    int (*ReplyWithLongLong)(RedisModuleCtx *ctx, long long value);

    RedisModuleKey *(*OpenKey)(RedisModuleCtx *ctx, RedisModuleString *name, int mode);
    void (*CloseKey)(RedisModuleKey *key);
    int (*KeyType)(RedisModuleKey *key);
    char *(*StringDMA)(RedisModuleKey *key, size_t *len, int mode);
    int (*StringSet)(RedisModuleKey *key, RedisModuleString *value);
    int (*SetExpire)(RedisModuleKey *key, long long milliseconds);
    long long (*Milliseconds)(void);
    // Propagates a command to replicas and the AOF in place of the module's (fmt as Call's).
    int (*Replicate)(RedisModuleCtx *ctx, const char *command, const char *fmt, ...);

    // fmt: one letter per argument: c (C string), s (RedisModuleString *), b (buffer, length),
    // l (long long), v (RedisModuleString **, count); a leading '!' replicates the command.
    RedisModuleCallReply *(*Call)(RedisModuleCtx *ctx, const char *command, const char *fmt, ...);
    int (*CallReplyType)(RedisModuleCallReply *reply);
    size_t (*CallReplyLength)(RedisModuleCallReply *reply);
    RedisModuleCallReply *(*CallReplyArrayElement)(RedisModuleCallReply *reply, size_t index);
    const char *(*CallReplyStringPtr)(RedisModuleCallReply *reply, size_t *len);
    void (*FreeCallReply)(RedisModuleCallReply *reply);

    // A command whose keys only it can find ("getkeys-api"): asked for them, it names each.
    int (*IsKeysPositionRequest)(RedisModuleCtx *ctx);
    void (*KeyAtPos)(RedisModuleCtx *ctx, int pos);
};

// The API, filled by loadApi(). One per process, read-only after loading.
extern Api rm;

// Fills `rm` from the context OnLoad receives; the name of the first function Redis does not
// know in `missing` on failure (after Log, so that the failure can be logged).
bool loadApi(RedisModuleCtx *ctx, const char *&missing);

} // namespace qs::redismodule
