#include "limiter/redisbackend.h"

#include "limiter/packeddoubles.h"
#include "limiter/redisscripts.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>

namespace qs::limiter {

namespace {

struct ReplyDeleter {
    void operator()(redisReply *r) const { freeReplyObject(r); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

timeval toTimeval(Micros us)
{
    return timeval{static_cast<time_t>(us / kMicrosPerSecond),
        static_cast<suseconds_t>(us % kMicrosPerSecond)};
}

// A script's reply: 32 bytes, four packed doubles (limiter/lua/postlude.lua), each a whole
// number that fits an int64 exactly; anything else is not our script's reply.
bool unpackReply(const redisReply *r, double (&fields)[4])
{
    if (r->type != REDIS_REPLY_STRING
        || !unpackDoubles(std::string_view(r->str, r->len), std::span<double>(fields)))
        return false;
    return std::all_of(std::begin(fields), std::end(fields), [](double x) {
        return std::isfinite(x) && std::abs(x) <= 9007199254740992.0 && x == std::floor(x);
    });
}

bool isNoScript(const redisReply *r)
{
    return r && r->type == REDIS_REPLY_ERROR && std::strncmp(r->str, "NOSCRIPT", 8) == 0;
}

ReplyPtr command(redisContext *c, const std::vector<std::string> &args)
{
    std::vector<const char *> argv;
    std::vector<size_t> lens;
    for (const auto &a : args) {
        argv.push_back(a.data());
        lens.push_back(a.size());
    }
    return ReplyPtr(
        static_cast<redisReply *>(redisCommandArgv(c, int(argv.size()), argv.data(), lens.data())));
}

} // namespace

RedisBackend::RedisBackend(RedisEndpoint endpoint) : m_endpoint(std::move(endpoint)) { }

RedisBackend::~RedisBackend()
{
    if (m_context)
        redisFree(m_context);
}

std::string RedisBackend::stateKey(const RedisRule &rule, std::string_view key) const
{
    std::string k = rule.keyPrefix;
    k += ':';
    k += key;
    return k;
}

void RedisBackend::disconnect(const std::string &why)
{
    m_lastError = why;
    if (m_context)
        redisFree(m_context);
    m_context = nullptr;
    m_nextConnectAttempt
        = std::chrono::steady_clock::now() + std::chrono::microseconds(m_endpoint.reconnectBackoff);
}

bool RedisBackend::connect()
{
    if (m_context)
        redisFree(m_context);
    const std::string where = m_endpoint.host + ":" + std::to_string(m_endpoint.port);
    m_context = redisConnectWithTimeout(
        m_endpoint.host.c_str(), m_endpoint.port, toTimeval(m_endpoint.connectTimeout));
    if (!m_context || m_context->err) {
        disconnect("cannot connect to Redis at " + where + ": "
            + (m_context ? m_context->errstr : "out of memory"));
        return false;
    }
    redisSetTimeout(m_context, toTimeval(m_endpoint.commandTimeout));
    if (!m_endpoint.password.empty()) {
        std::vector<std::string> auth{"AUTH"};
        if (!m_endpoint.user.empty())
            auth.push_back(m_endpoint.user);
        auth.push_back(m_endpoint.password);
        ReplyPtr r = command(m_context, auth);
        if (!r || r->type == REDIS_REPLY_ERROR) {
            // The server's words (WRONGPASS …), never the password.
            disconnect("Redis at " + where + " refused AUTH"
                + (m_endpoint.user.empty() ? "" : " for user '" + m_endpoint.user + "'") + ": "
                + (r ? std::string(r->str, r->len) : "no reply"));
            return false;
        }
    }
    if (m_endpoint.db != 0) {
        ReplyPtr r = command(m_context, {"SELECT", std::to_string(m_endpoint.db)});
        if (!r || r->type == REDIS_REPLY_ERROR) {
            disconnect("Redis at " + where + " refused SELECT " + std::to_string(m_endpoint.db)
                + ": " + (r ? std::string(r->str, r->len) : "no reply"));
            return false;
        }
    }
    return loadScripts();
}

bool RedisBackend::loadScripts()
{
    for (Algorithm a : kAllAlgorithms) {
        ReplyPtr r = command(m_context, {"SCRIPT", "LOAD", std::string(redisScript(a))});
        if (!r || r->type != REDIS_REPLY_STRING) {
            disconnect("SCRIPT LOAD of " + std::string(algorithmName(a))
                + " failed: " + (r ? std::string(r->str, r->len) : m_context->errstr));
            return false;
        }
        m_sha[std::size_t(a)] = std::string(r->str, r->len);
    }
    return true;
}

bool RedisBackend::ensureConnected()
{
    if (m_context)
        return true;
    if (std::chrono::steady_clock::now() < m_nextConnectAttempt)
        return false; // fail fast while Redis is down instead of waiting on every call
    return connect();
}

void RedisBackend::appendCommand(const RedisRequest &q)
{
    // Called for every decision: written as RESP into one reused buffer (respwriter.h), so a
    // warm backend allocates nothing here.
    const RedisRule &rule = *q.rule;
    const ScriptParameters parameters = redisScriptParameterValues(rule.config);
    // EVALSHA sha 1 key cost parameters… [now-or-'' [metrics prefix]] (limiter/lua/prelude.lua)
    const bool withNow = q.now || rule.metrics;
    m_command.begin(5 + std::size_t(parameters.count) + (withNow ? 1 : 0) + (rule.metrics ? 1 : 0));
    m_command.arg(std::string_view("EVALSHA"));
    m_command.arg(std::string_view(m_sha[std::size_t(algorithmOf(rule.config))]));
    m_command.arg(std::string_view("1"));
    m_command.arg({rule.keyPrefix, ":", q.key}); // stateKey()
    m_command.arg(q.cost);
    // -1 stands for a config that never passed validation: the script answers with an error.
    for (std::int64_t p : parameters)
        m_command.arg(p < 0 ? -1 : p);
    if (q.now)
        m_command.arg(*q.now);
    else if (rule.metrics)
        m_command.arg(std::string_view()); // '': Redis TIME
    if (rule.metrics)
        m_command.arg({rule.keyPrefix, ":~metrics"});
    redisAppendFormattedCommand(m_context, m_command.bytes().data(), m_command.bytes().size());
}

Decision RedisBackend::storeFailure(const RedisRule &rule) const
{
    Decision d;
    const Quota fresh = peek(rule.config, freshState(rule.config), 0);
    d.limit = fresh.limit;
    d.window = fresh.window;
    d.reason = Reason::StoreError;
    d.allowed = rule.onStoreError == StoreErrorPolicy::Allow;
    d.failedOpen = d.allowed;
    return d;
}

Decision RedisBackend::dataError(const RedisRule &rule, const std::string &message)
{
    m_lastError = message;
    Decision d = storeFailure(rule);
    d.allowed = false;
    d.failedOpen = false;
    return d;
}

Decision RedisBackend::decisionFrom(const RedisRequest &q, redisReply *r)
{
    const RedisRule &rule = *q.rule;
    if (r->type == REDIS_REPLY_ERROR)
        return dataError(rule,
            "Redis refused the decision for " + stateKey(rule, q.key) + ": "
                + std::string(r->str, r->len));
    double fields[4];
    if (!unpackReply(r, fields))
        return dataError(rule,
            "unexpected reply from the " + std::string(algorithmName(algorithmOf(rule.config)))
                + " script for " + stateKey(rule, q.key) + " (expected 32 bytes: four doubles)");
    // code, remaining, wait, reset: code 0 admitted (wait = shaping delay), 1 limit exceeded
    // (wait = retry after), 2 cost exceeds what the limit can ever admit.
    Decision d;
    const Quota fresh = peek(rule.config, freshState(rule.config), 0);
    d.limit = fresh.limit;
    d.window = fresh.window;
    const double code = fields[0];
    d.allowed = code == 0;
    d.reason = code == 0 ? Reason::None
        : code == 2      ? Reason::CostExceedsLimit
                         : Reason::LimitExceeded;
    d.remaining = std::int64_t(fields[1]);
    (d.allowed ? d.delay : d.retryAfter) = Micros(fields[2]);
    d.resetAfter = Micros(fields[3]);
    return d;
}

Decision RedisBackend::acquire(
    const RedisRule &rule, std::string_view key, std::int64_t cost, std::optional<Micros> now)
{
    const RedisRequest request{&rule, key, cost, now};
    return acquireBatch(std::span(&request, 1)).front();
}

std::vector<Decision> RedisBackend::acquireBatch(std::span<const RedisRequest> requests)
{
    std::vector<Decision> out;
    out.reserve(requests.size());
    if (!ensureConnected()) {
        for (const auto &q : requests)
            out.push_back(storeFailure(*q.rule));
        return out;
    }
    for (const auto &q : requests)
        appendCommand(q);
    std::vector<std::size_t> retry; // NOSCRIPT: load again and run these once more
    for (std::size_t i = 0; i < requests.size(); ++i) {
        void *raw = nullptr;
        if (!m_context || redisGetReply(m_context, &raw) != REDIS_OK) {
            // Timeout or broken connection: never replayed, the script may have run.
            if (m_context)
                disconnect("Redis at " + m_endpoint.host + ":" + std::to_string(m_endpoint.port)
                    + " did not answer: " + m_context->errstr);
            for (std::size_t j = i; j < requests.size(); ++j)
                out.push_back(storeFailure(*requests[j].rule));
            return out;
        }
        ReplyPtr reply(static_cast<redisReply *>(raw));
        if (isNoScript(reply.get())) {
            retry.push_back(i);
            out.emplace_back();
            continue;
        }
        out.push_back(decisionFrom(requests[i], reply.get()));
    }
    if (!retry.empty()) {
        if (!loadScripts()) {
            for (std::size_t i : retry)
                out[i] = storeFailure(*requests[i].rule);
            return out;
        }
        for (std::size_t i : retry)
            appendCommand(requests[i]);
        for (std::size_t i : retry) {
            void *raw = nullptr;
            if (!m_context || redisGetReply(m_context, &raw) != REDIS_OK) {
                if (m_context)
                    disconnect(std::string("Redis did not answer: ") + m_context->errstr);
                out[i] = storeFailure(*requests[i].rule);
                continue;
            }
            ReplyPtr reply(static_cast<redisReply *>(raw));
            out[i] = decisionFrom(requests[i], reply.get());
        }
    }
    return out;
}

} // namespace qs::limiter
