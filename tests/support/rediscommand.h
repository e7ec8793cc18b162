#pragma once
// A test's own hiredis connection to look at what Redis holds: RAII handles, one command with
// binary-safe arguments, a reply's text.
#include <hiredis/hiredis.h>

#include <memory>
#include <string>
#include <vector>

namespace qs::test {

struct ContextDeleter {
    void operator()(redisContext *c) const { redisFree(c); }
};
using RedisContext = std::unique_ptr<redisContext, ContextDeleter>;
struct ReplyDeleter {
    void operator()(redisReply *r) const { freeReplyObject(r); }
};
using RedisReply = std::unique_ptr<redisReply, ReplyDeleter>;

// A connection to 127.0.0.1:port; null when it cannot be made.
inline RedisContext connectRedis(int port)
{
    RedisContext c(redisConnect("127.0.0.1", port));
    if (c && c->err)
        c.reset();
    return c;
}

inline RedisReply redisRun(redisContext *c, const std::vector<std::string> &args)
{
    std::vector<const char *> argv;
    std::vector<size_t> lens;
    for (const auto &a : args) {
        argv.push_back(a.data());
        lens.push_back(a.size());
    }
    return RedisReply(
        static_cast<redisReply *>(redisCommandArgv(c, int(argv.size()), argv.data(), lens.data())));
}

// A string, status or error reply's text; empty for others.
inline std::string replyText(const RedisReply &r)
{
    return r && r->str ? std::string(r->str, r->len) : std::string();
}

} // namespace qs::test
