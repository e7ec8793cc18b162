#pragma once
// One connection to one Redis server: connect, AUTH, SELECT, the engine chosen (the module, or
// the scripts loaded), and the backoff that keeps a down server from costing a connect timeout
// on every call. RedisBackend holds one for a single server and one per master of a cluster.
// Synchronous hiredis, no Qt.
#include "limiter/algorithms/algorithm.h"
#include "limiter/redis/redisaddress.h"

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

struct redisContext;
struct redisReply;

namespace qs::limiter {

struct RedisEndpoint;

struct RedisReplyDeleter {
    void operator()(redisReply *r) const;
};
using RedisReplyPtr = std::unique_ptr<redisReply, RedisReplyDeleter>;

class RedisNode {
public:
    RedisNode(RedisAddress address, const RedisEndpoint &settings);
    ~RedisNode();
    RedisNode(const RedisNode &) = delete;
    RedisNode &operator=(const RedisNode &) = delete;

    const RedisAddress &address() const { return m_address; }
    bool connected() const { return m_context != nullptr; }
    redisContext *context() const { return m_context; }
    const std::string &lastError() const { return m_lastError; }

    // Connects and authenticates; selects the db when `selectDb` (never on a cluster).
    bool connect(bool selectDb);
    // Connects when the backoff since the last failure has passed; false meanwhile.
    bool ensureConnected(bool selectDb);
    bool loadScripts();
    const std::string &sha(Algorithm a) const { return m_sha[std::size_t(a)]; }
    // several.lua's SHA, loaded on first use (a server with the module loads no scripts at
    // connect); null with lastError() when it cannot be loaded.
    const std::string *severalSha() { return lazySha(m_severalSha, "several.lua"); }
    // several/refund.lua's, the same way.
    const std::string *refundSha() { return lazySha(m_refundSha, "several/refund.lua"); }
    void forgetSeveralSha()
    {
        m_severalSha.clear();
        m_refundSha.clear();
    }
    // Decisions go to QS.DECIDE (the module) instead of the scripts; chosen at connect.
    bool usesModule() const { return m_usesModule; }
    void disconnect(const std::string &why);

    // One command, waiting for its reply; null when the connection failed (then disconnected).
    RedisReplyPtr run(const std::vector<std::string> &args);
    // The next pipelined reply; null when the connection failed (then disconnected: a command
    // that timed out may have run, so nothing is ever replayed after this).
    RedisReplyPtr nextReply();

private:
    const std::string *lazySha(std::string &sha, std::string_view script);
    bool chooseEngine();
    bool hasModule();

    RedisAddress m_address;
    const RedisEndpoint &m_settings;
    redisContext *m_context = nullptr;
    std::array<std::string, kAlgorithmCount> m_sha; // by Algorithm
    std::string m_severalSha, m_refundSha;
    bool m_usesModule = false;
    std::string m_lastError;
    std::chrono::steady_clock::time_point m_nextConnectAttempt{};
};

} // namespace qs::limiter
