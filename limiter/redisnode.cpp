#include "limiter/redisnode.h"

#include "limiter/redisbackend.h"
#include "limiter/redisscripts.h"

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
    return loadScripts();
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
