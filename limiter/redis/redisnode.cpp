#include "limiter/redis/redisnode.h"

#include "limiter/redis/redisbackend.h"
#include "limiter/redis/redisscripts.h"

#include <hiredis/hiredis.h>

namespace qs::limiter {

void RedisReplyDeleter::operator()(redisReply *r) const
{
    freeReplyObject(r);
}

namespace {

timeval toTimeval(Micros us)
{
    return timeval{static_cast<time_t>(us / kMicrosPerSecond),
        static_cast<suseconds_t>(us % kMicrosPerSecond)};
}

std::string replyText(const redisReply *r)
{
    return r ? std::string(r->str, r->len) : std::string("no reply");
}

} // namespace

RedisNode::RedisNode(RedisAddress address, const RedisEndpoint &settings)
    : m_address(std::move(address)), m_settings(settings)
{
}

RedisNode::~RedisNode()
{
    if (m_context)
        redisFree(m_context);
}

void RedisNode::disconnect(const std::string &why)
{
    m_lastError = why;
    if (m_context)
        redisFree(m_context);
    m_context = nullptr;
    m_nextConnectAttempt
        = std::chrono::steady_clock::now() + std::chrono::microseconds(m_settings.reconnectBackoff);
}

bool RedisNode::connect(bool selectDb)
{
    if (m_context)
        redisFree(m_context);
    const std::string where = m_address.text();
    m_context = redisConnectWithTimeout(
        m_address.host.c_str(), m_address.port, toTimeval(m_settings.connectTimeout));
    if (!m_context || m_context->err) {
        disconnect("cannot connect to Redis at " + where + ": "
            + (m_context ? m_context->errstr : "out of memory"));
        return false;
    }
    redisSetTimeout(m_context, toTimeval(m_settings.commandTimeout));
    if (!m_settings.password.empty()) {
        std::vector<std::string> auth{"AUTH"};
        if (!m_settings.user.empty())
            auth.push_back(m_settings.user);
        auth.push_back(m_settings.password);
        RedisReplyPtr r = run(auth);
        if (!r || r->type == REDIS_REPLY_ERROR) {
            // The server's words (WRONGPASS …), never the password.
            disconnect("Redis at " + where + " refused AUTH"
                + (m_settings.user.empty() ? "" : " for user '" + m_settings.user + "'") + ": "
                + replyText(r.get()));
            return false;
        }
    }
    if (selectDb && m_settings.db != 0) {
        RedisReplyPtr r = run({"SELECT", std::to_string(m_settings.db)});
        if (!r || r->type == REDIS_REPLY_ERROR) {
            disconnect("Redis at " + where + " refused SELECT " + std::to_string(m_settings.db)
                + ": " + replyText(r.get()));
            return false;
        }
    }
    return chooseEngine() && (m_usesModule || loadScripts());
}

// The module's name in MODULE LIST (limiter/redismodule/module.cpp).
constexpr std::string_view kModuleName = "quotastudio";

bool RedisNode::hasModule()
{
    // MODULE LIST answers name/value pairs per module. A user whose ACL refuses it may still
    // be allowed COMMAND INFO, which answers nil for a command the server does not know.
    RedisReplyPtr list = run({"MODULE", "LIST"});
    if (list && list->type == REDIS_REPLY_ARRAY) {
        for (std::size_t m = 0; m < list->elements; ++m) {
            const redisReply *entry = list->element[m];
            for (std::size_t i = 0; entry->type == REDIS_REPLY_ARRAY && i + 1 < entry->elements;
                 i += 2) {
                const redisReply *k = entry->element[i], *v = entry->element[i + 1];
                if (k->type == REDIS_REPLY_STRING && std::string_view(k->str, k->len) == "name"
                    && v->type == REDIS_REPLY_STRING
                    && std::string_view(v->str, v->len) == kModuleName)
                    return true;
            }
        }
        return false;
    }
    // Only a refusal of the command itself leads to the fallback. Any other error (max clients
    // reached, LOADING, NOAUTH …) says the connection cannot serve: drop it with that reason
    // rather than write to a socket the server may have closed.
    const std::string why = replyText(list.get());
    if (list && why.rfind("NOPERM", 0) != 0 && why.find("unknown command") == std::string::npos) {
        disconnect("MODULE LIST at " + m_address.text() + " failed: " + why);
        return false;
    }
    RedisReplyPtr info = run({"COMMAND", "INFO", "qs.decide"});
    return info && info->type == REDIS_REPLY_ARRAY && info->elements == 1
        && info->element[0]->type == REDIS_REPLY_ARRAY;
}

bool RedisNode::chooseEngine()
{
    m_usesModule = false;
    if (m_settings.engine == RedisEngine::Lua)
        return true;
    m_usesModule = hasModule();
    if (!m_context)
        return false; // the connection broke while asking
    if (!m_usesModule && m_settings.engine == RedisEngine::Module) {
        disconnect("Redis at " + m_address.text()
            + " has no Quota Studio module (MODULE LIST): load it with redis-server "
              "--loadmodule <path>/quota_studio_redis.so or MODULE LOAD, or use the Lua engine");
        return false;
    }
    return true;
}

bool RedisNode::ensureConnected(bool selectDb)
{
    if (m_context)
        return true;
    if (std::chrono::steady_clock::now() < m_nextConnectAttempt)
        return false; // fail fast while the server is down instead of waiting on every call
    return connect(selectDb);
}

bool RedisNode::loadScripts()
{
    forgetSeveralSha(); // loaded again on their next use
    for (Algorithm a : kAllAlgorithms) {
        RedisReplyPtr r = run({"SCRIPT", "LOAD", std::string(redisScript(a))});
        if (!r || r->type != REDIS_REPLY_STRING) {
            if (m_context)
                disconnect("SCRIPT LOAD of " + std::string(algorithmName(a)) + " at "
                    + m_address.text() + " failed: " + replyText(r.get()));
            return false;
        }
        m_sha[std::size_t(a)] = std::string(r->str, r->len);
    }
    return true;
}

const std::string *RedisNode::lazySha(std::string &sha, std::string_view script)
{
    if (!sha.empty())
        return &sha;
    const std::string_view text
        = script == "several.lua" ? redisSeveralScript() : redisSeveralRefundScript();
    RedisReplyPtr r = run({"SCRIPT", "LOAD", std::string(text)});
    if (!r || r->type != REDIS_REPLY_STRING) {
        m_lastError = "SCRIPT LOAD of " + std::string(script) + " at " + m_address.text()
            + " failed: " + replyText(r.get());
        return nullptr;
    }
    sha = std::string(r->str, r->len);
    return &sha;
}

RedisReplyPtr RedisNode::run(const std::vector<std::string> &args)
{
    if (!m_context)
        return nullptr;
    std::vector<const char *> argv;
    std::vector<size_t> lens;
    for (const auto &a : args) {
        argv.push_back(a.data());
        lens.push_back(a.size());
    }
    auto *reply = static_cast<redisReply *>(
        redisCommandArgv(m_context, int(argv.size()), argv.data(), lens.data()));
    if (!reply)
        disconnect("Redis at " + m_address.text() + " did not answer: " + m_context->errstr);
    return RedisReplyPtr(reply);
}

RedisReplyPtr RedisNode::nextReply()
{
    if (!m_context)
        return nullptr;
    void *raw = nullptr;
    if (redisGetReply(m_context, &raw) != REDIS_OK) {
        disconnect("Redis at " + m_address.text() + " did not answer: " + m_context->errstr);
        return nullptr;
    }
    return RedisReplyPtr(static_cast<redisReply *>(raw));
}

} // namespace qs::limiter
