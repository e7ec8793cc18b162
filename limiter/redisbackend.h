#pragma once
// Decisions in Redis: one EVALSHA of an embedded script per decision, atomic in Redis, with
// the same arithmetic as decide(). Synchronous hiredis, no Qt: gateways can link it.
//
// Failure rules (see docs/redis-layout.md):
//  - the scripts are loaded at connect; a NOSCRIPT reply (SCRIPT FLUSH, failover) loads them
//    again and retries that call once;
//  - a timeout or a broken connection is never replayed (the script may have run): that
//    decision follows the rule's onStoreError, Reason::StoreError, failedOpen when admitted;
//    the backend reconnects by itself on a later call (at most every reconnectBackoff);
//  - an error reply about the data (WRONGTYPE, corrupt state, bad parameters) denies, whatever
//    onStoreError says: a broken key must never turn into admissions. lastError() says why.
// One RedisBackend is one connection: use one per thread.
#include "limiter/algorithm.h"
#include "limiter/respwriter.h"

#include <array>
#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct redisContext;
struct redisReply;

namespace qs::limiter {

struct RedisEndpoint {
    std::string host = "127.0.0.1";
    int port = 6379;
    std::string user; // ACL user; empty: the default user
    std::string password; // empty: no AUTH. Never logged, never in lastError().
    int db = 0;
    Micros connectTimeout = 500 * kMicrosPerMilli;
    Micros commandTimeout = 250 * kMicrosPerMilli;
    Micros reconnectBackoff = 100 * kMicrosPerMilli;
};

enum class StoreErrorPolicy : std::uint8_t { Allow, Deny };

struct RedisRule {
    std::string keyPrefix; // "<prefix>:<route>"; state keys are "<keyPrefix>:<client key>"
    AlgorithmConfig config;
    StoreErrorPolicy onStoreError = StoreErrorPolicy::Allow;
    bool metrics = false; // per-second allowed/denied counts in "<keyPrefix>:~metrics:<epoch s>"
};

struct RedisRequest {
    const RedisRule *rule = nullptr;
    std::string_view key;
    std::int64_t cost = 1;
    std::optional<Micros> now; // unset: Redis TIME
};

class RedisBackend {
public:
    explicit RedisBackend(RedisEndpoint endpoint);
    ~RedisBackend();
    RedisBackend(const RedisBackend &) = delete;
    RedisBackend &operator=(const RedisBackend &) = delete;

    // Connects, authenticates, selects the db and loads the scripts. False with lastError().
    bool connect();
    bool connected() const { return m_context != nullptr; }

    Decision acquire(const RedisRule &rule, std::string_view key, std::int64_t cost = 1,
        std::optional<Micros> now = std::nullopt);
    // Many decisions in one pipelined round trip; results in request order.
    std::vector<Decision> acquireBatch(std::span<const RedisRequest> requests);

    const std::string &lastError() const { return m_lastError; }
    std::string stateKey(const RedisRule &rule, std::string_view key) const;

private:
    bool ensureConnected();
    bool loadScripts();
    void disconnect(const std::string &why);
    void appendCommand(const RedisRequest &request);
    Decision decisionFrom(const RedisRequest &request, ::redisReply *reply);
    Decision storeFailure(const RedisRule &rule) const;
    Decision dataError(const RedisRule &rule, const std::string &message);

    RedisEndpoint m_endpoint;
    redisContext *m_context = nullptr;
    std::array<std::string, 6> m_sha; // by Algorithm
    RespWriter m_command; // the decision being appended, reused
    std::string m_lastError;
    std::chrono::steady_clock::time_point m_nextConnectAttempt{};
};

} // namespace qs::limiter
