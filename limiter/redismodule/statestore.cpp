#include "limiter/redismodule/statestore.h"

#include "limiter/redis/redisstate.h"
#include "limiter/redismodule/redismoduleapi.h"

#include <charconv>
#include <memory>
#include <string_view>
#include <vector>

namespace qs::redismodule {

using limiter::AlgorithmState;

namespace {

struct CallReplyDeleter {
    void operator()(RedisModuleCallReply *r) const { rm.FreeCallReply(r); }
};
using CallReply = std::unique_ptr<RedisModuleCallReply, CallReplyDeleter>;

struct KeyCloser {
    void operator()(RedisModuleKey *k) const { rm.CloseKey(k); }
};
using Key = std::unique_ptr<RedisModuleKey, KeyCloser>;

std::string_view text(const RedisModuleString *s)
{
    std::size_t len = 0;
    const char *p = rm.StringPtrLen(s, &len);
    return {p, len};
}

std::string corrupt(RedisModuleString *key, const std::string &why)
{
    return "QS corrupt state in " + std::string(text(key)) + " (" + why + ")";
}

// A Call that failed without a reply (Redis sets errno): say which command.
std::string callFailed(const char *command)
{
    return std::string("ERR the module's ") + command + " call failed";
}

std::optional<AlgorithmState> readLog(
    RedisModuleCtx *ctx, RedisModuleString *key, std::string &error)
{
    CallReply reply(rm.Call(ctx, "ZRANGE", "sccc", key, "0", "-1", "WITHSCORES"));
    if (!reply) {
        error = callFailed("ZRANGE");
        return std::nullopt;
    }
    if (rm.CallReplyType(reply.get()) == kReplyError) {
        std::size_t len = 0;
        const char *p = rm.CallReplyStringPtr(reply.get(), &len);
        error.assign(p, len); // WRONGTYPE …, as the script would answer
        return std::nullopt;
    }
    // RESP2 WITHSCORES: member, score, member, score, …
    const std::size_t n = rm.CallReplyLength(reply.get()) / 2;
    std::vector<double> scores(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t len = 0;
        const char *p
            = rm.CallReplyStringPtr(rm.CallReplyArrayElement(reply.get(), 2 * i + 1), &len);
        if (!p || std::from_chars(p, p + len, scores[i]).ec != std::errc()) {
            error = corrupt(key, "a score that is not a number in the sliding window log");
            return std::nullopt;
        }
    }
    std::string why;
    auto state = limiter::decodeRedisLog(scores, why);
    if (!state)
        error = corrupt(key, why);
    return state;
}

// Frees the reply; false with the error's text when the command failed (out of memory, say).
bool succeeded(RedisModuleCallReply *raw, const char *command, std::string &error)
{
    CallReply reply(raw);
    if (!reply) {
        error = callFailed(command);
        return false;
    }
    if (rm.CallReplyType(reply.get()) != kReplyError)
        return true;
    std::size_t len = 0;
    const char *p = rm.CallReplyStringPtr(reply.get(), &len);
    error.assign(p, len);
    return false;
}

} // namespace

std::optional<AlgorithmState> readState(RedisModuleCtx *ctx, RedisModuleString *key,
    const limiter::AlgorithmConfig &config, std::string &error)
{
    const limiter::Algorithm algorithm = limiter::algorithmOf(config);
    if (algorithm == limiter::Algorithm::SlidingWindowLog)
        return readLog(ctx, key, error);
    Key handle(rm.OpenKey(ctx, key, kRead));
    if (!handle) // READ mode opens no handle for a key that does not exist
        return limiter::freshState(config);
    const int type = rm.KeyType(handle.get());
    if (type == kKeyTypeEmpty)
        return limiter::freshState(config);
    if (type != kKeyTypeString) {
        error = kWrongTypeMessage;
        return std::nullopt;
    }
    std::size_t len = 0;
    const char *bytes = rm.StringDMA(handle.get(), &len, kRead);
    std::string why;
    auto state = limiter::decodeRedisState(algorithm, std::string_view(bytes, len), why);
    if (!state)
        error = corrupt(key, why);
    return state;
}

bool writeStringState(RedisModuleCtx *ctx, RedisModuleString *key, const std::string &bytes,
    long long ttlMillis, std::string &error)
{
    // Through the key API, not a nested PSETEX (RedisModule_Call cost ~40% of a decision,
    // issue 46): the same value (a string object as PSETEX makes it) and TTL, and the change
    // replicated as what PSETEX propagates, SET with an absolute expiry.
    Key handle(rm.OpenKey(ctx, key, kRead | kWrite));
    if (!handle) {
        error = "ERR the module could not open " + std::string(text(key)) + " for writing";
        return false;
    }
    RedisModuleString *value = rm.CreateString(ctx, bytes.data(), bytes.size());
    const bool set
        = rm.StringSet(handle.get(), value) == kOk && rm.SetExpire(handle.get(), ttlMillis) == kOk;
    rm.FreeString(ctx, value);
    if (!set) {
        error = "ERR the module could not write " + std::string(text(key));
        return false;
    }
    rm.Replicate(
        ctx, "SET", "sbcl", key, bytes.data(), bytes.size(), "PXAT", rm.Milliseconds() + ttlMillis);
    return true;
}

bool writeLogChange(
    RedisModuleCtx *ctx, RedisModuleString *key, const LogChange &change, std::string &error)
{
    if (change.anyExpired
        && !succeeded(rm.Call(ctx, "ZREMRANGEBYSCORE", "!scl", key, "-inf",
                          static_cast<long long>(change.expiredUpTo)),
            "ZREMRANGEBYSCORE", error))
        return false;
    if (change.added > 0) {
        // ZADD key score member …, members "<µs>:<n>" so that none overwrites another.
        const std::string score = std::to_string(change.at);
        std::vector<RedisModuleString *> args;
        args.reserve(std::size_t(2 * change.added));
        for (std::int64_t i = 0; i < change.added; ++i) {
            const std::string member = score + ":" + std::to_string(change.sameBefore + i);
            args.push_back(rm.CreateString(ctx, score.data(), score.size()));
            args.push_back(rm.CreateString(ctx, member.data(), member.size()));
        }
        const bool added
            = succeeded(rm.Call(ctx, "ZADD", "!sv", key, args.data(), args.size()), "ZADD", error);
        for (RedisModuleString *s : args)
            rm.FreeString(ctx, s);
        if (!added)
            return false;
    }
    return change.ttlMillis <= 0
        || succeeded(rm.Call(ctx, "PEXPIRE", "!sl", key, change.ttlMillis), "PEXPIRE", error);
}

} // namespace qs::redismodule
