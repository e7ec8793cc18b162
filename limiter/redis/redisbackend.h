#pragma once
// Decisions in Redis: one EVALSHA of an embedded script per decision (or one QS.DECIDE where
// the server has the Quota Studio module, RedisEngine), atomic in Redis, with the same
// arithmetic as decide(). Synchronous hiredis, no Qt: gateways can link it. hiredis writes with
// write(): a program that links this must ignore SIGPIPE (signal(SIGPIPE, SIG_IGN), as
// quotactl and quota-studio do), or a server that closes a connection ends the program.
//
// One server or a Redis Cluster, found out at connect (CLUSTER SLOTS): on a cluster each key
// goes to the master of its slot (CRC16, hash tags), one connection per master, and a batch is
// split by node and pipelined to all of them at once, results in request order.
//
// Failure rules (see docs/redis-layout.md):
//  - the scripts are loaded at connect; a NOSCRIPT reply (SCRIPT FLUSH, failover) loads them
//    again and retries that call once;
//  - a timeout or a broken connection is never replayed (the script may have run): that
//    decision follows the rule's onStoreError, Reason::StoreError, failedOpen when admitted;
//    the backend reconnects by itself on a later call (at most every reconnectBackoff);
//  - on a cluster, MOVED (the slot has a new master: the map is updated and refreshed) and ASK
//    (the slot is migrating: ASKING, then the call, at the target) are retried, because Redis
//    says it did not run the script; TRYAGAIN and CLUSTERDOWN too, a few times over ~0.3 s;
//    after that the decision follows onStoreError;
//  - an error reply about the data (WRONGTYPE, corrupt state, bad parameters) denies, whatever
//    onStoreError says: a broken key must never turn into admissions. lastError() says why.
// One RedisBackend is one connection per server: use one per thread.
#include "limiter/algorithms/algorithm.h"
#include "limiter/algorithms/limitset.h"
#include "limiter/algorithms/storeerror.h"
#include "limiter/redis/redisaddress.h"
#include "limiter/redis/respwriter.h"
#include "limiter/redis/routemetrics.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct redisReply;

namespace qs::limiter {

// What decides inside Redis: the embedded Lua scripts (any Redis, managed services included)
// or the Quota Studio module (limiter/redismodule/, QS.DECIDE), which runs the same decide() in
// native code where a deployment loads it. Both read and write the same keys alike.
enum class RedisEngine : std::uint8_t {
    Auto, // the module on servers that have it loaded (asked at connect), Lua elsewhere
    Lua,
    Module, // connecting fails on a server without the module
};

struct RedisEndpoint {
    std::string host = "127.0.0.1";
    int port = 6379;
    // A cluster's further seed nodes, tried in order when host:port cannot be reached. Whether
    // the servers form a cluster is asked at connect, never configured.
    std::vector<RedisAddress> moreSeeds;
    std::string user; // ACL user; empty: the default user
    std::string password; // empty: no AUTH. Never logged, never in lastError().
    int db = 0;
    Micros connectTimeout = 500 * kMicrosPerMilli;
    Micros commandTimeout = 250 * kMicrosPerMilli;
    Micros reconnectBackoff = 100 * kMicrosPerMilli;
    RedisEngine engine = RedisEngine::Auto;

    std::vector<RedisAddress> seeds() const; // host:port, then moreSeeds
    void setSeeds(const std::vector<RedisAddress> &seeds); // the first becomes host:port
};

struct RedisRule {
    std::string keyPrefix; // "<prefix>:<route>"; state keys are "<keyPrefix>:<client key>"
    AlgorithmConfig config;
    StoreErrorPolicy onStoreError = StoreErrorPolicy::Allow;
    // Per-second admitted/denied counts in "<keyPrefix>:~metrics:<epoch s>", counted by the
    // backend and added to Redis once a second (routemetrics.h).
    bool metrics = false;
    // A limit of several: its route's "<prefix>:<route>", under which acquireAll counts the
    // request once (the first limit's rule says where); empty: keyPrefix.
    std::string metricsPrefix = {};
    // The plan whose numbers this rule has (a route whose numbers differ by plan): its requests
    // also count in the plan's metrics fields (routemetrics.h). Empty: no plan.
    std::string plan = {};
};

struct RedisRequest {
    const RedisRule *rule = nullptr;
    std::string_view key;
    std::int64_t cost = 1;
    std::optional<Micros> now; // unset: Redis TIME
};

// One limit of a request with several (limitset.h), decided in Redis.
struct RedisLimitRequest {
    const RedisRule *rule = nullptr;
    std::string_view key; // the client key this limit counts under
    std::int64_t cost = 1;
    bool shadow = false;
};

class RedisNode;

class RedisBackend {
public:
    explicit RedisBackend(RedisEndpoint endpoint);
    ~RedisBackend(); // adds the metrics not yet added
    RedisBackend(const RedisBackend &) = delete;
    RedisBackend &operator=(const RedisBackend &) = delete;

    // Connects to the first seed that answers, authenticates, learns whether it is a cluster
    // (and its slot map), selects the db and loads the scripts. False with lastError().
    bool connect();
    bool connected() const;
    bool isCluster() const { return !m_slotNode.empty(); }
    std::vector<RedisAddress> masters() const; // the nodes decisions go to
    // The engine the connected nodes decide with: Module when every one uses the module, Lua
    // when none does, Auto for a cluster whose nodes differ.
    RedisEngine engineInUse() const;

    Decision acquire(const RedisRule &rule, std::string_view key, std::int64_t cost = 1,
        std::optional<Micros> now = std::nullopt);
    // Many decisions in one pipelined round trip per node; results in request order.
    std::vector<Decision> acquireBatch(std::span<const RedisRequest> requests);

    // One request against several limits in one EVALSHA of several.lua, by limitset.h's rule:
    // admitted only if every enforced limit admits, and then every limit keeps what it took;
    // a denied request takes from none. `out[i]`: limit i's own decision. On a Cluster, limits
    // whose keys are in different slots are decided one slot at a time, an earlier slot's
    // writes given back when a later one denies (redisseverallimits.cpp says what that leaves
    // under concurrency). A store that cannot answer or an error reply makes that slot's
    // limits' decisions store failures or data errors as acquire() would (lastError() says
    // which). A node with the Quota Studio module decides one slot's limits with QS.DECIDEALL,
    // others (and the give-back path across slots) with several.lua.
    SetDecision acquireAll(std::span<const RedisLimitRequest> limits, std::span<Decision> out,
        std::optional<Micros> now = std::nullopt);
    // Limits charged by a request another slot denied, whose give-back could not reach their
    // node (the charge stays), and those given back arithmetically because another request had
    // written the key in between; since construction.
    std::uint64_t refundsLeft() const { return m_refundsLeft; }
    std::uint64_t refundsByArithmetic() const { return m_refundsByArithmetic; }

    // How acquireAll's call for one slot writes (several.lua's last argument).
    enum class SlotMode {
        Whole, // every limit of the request: write when all admit
        Images, // one slot of several: also reply what a give-back needs
        Dry, // an earlier slot denied: decide to report, write nothing
    };

    // A request admitted without asking Redis (its plan is unlimited on every limit of the
    // route): counted in `rule`'s route metrics, and its plan's, as a decision would be.
    void countAdmittedUnasked(const RedisRule &rule);
    // Adds every metric counted so far to Redis now (otherwise: once a second, on a later call).
    void flushMetrics();

    const std::string &lastError() const { return m_lastError; }
    // MOVED and ASK replies followed since construction (a slot migration or failover at work).
    std::uint64_t redirections() const { return m_redirections; }
    std::string stateKey(const RedisRule &rule, std::string_view key) const;

private:
    struct Attempt {
        std::uint32_t index = 0; // into the batch
        std::uint16_t node = 0;
        bool asking = false; // ASK: send ASKING first
        bool scriptReloaded = false; // NOSCRIPT once already
    };
    static constexpr std::uint16_t kNoNode = 0xffff;

    bool ensureConnected();
    bool adoptSlotMap(RedisNode &from);
    void refreshSlotMapIfStale();
    std::uint16_t nodeIndexAt(const RedisAddress &address);
    std::uint16_t nodeFor(const RedisRule &rule, std::string_view key);
    std::uint16_t nodeForKey(std::string_view key) const;
    void sendRound(std::span<const RedisRequest> requests, std::vector<Decision> &out);
    bool readRound(std::span<const RedisRequest> requests, std::vector<Decision> &out,
        std::vector<Attempt> &again);
    void appendCommand(RedisNode &node, const RedisRequest &request);
    void count(const RedisRequest &request, const Decision &d);
    void countRequest(std::span<const RedisLimitRequest> limits, std::span<const Decision> out,
        const SetDecision &set, std::optional<Micros> now);
    void flushMetricsBefore(std::int64_t second);
    Decision decisionFrom(const RedisRequest &request, ::redisReply *reply);
    static Decision decisionFromFields(
        const RedisRule &rule, const double (&fields)[4], std::optional<Micros> now);
    SetDecision failAll(std::span<const RedisLimitRequest> limits, std::span<Decision> out,
        bool dataError, const std::string &why);
    // One slot's limits in one EVALSHA; false when Redis did not decide them (out then holds
    // failAll's decisions).
    bool decideSlot(std::span<const RedisLimitRequest> limits, std::span<Decision> out,
        std::optional<Micros> now, SlotMode mode, std::vector<std::string> *images);
    bool readSlotReply(const ::redisReply *reply, std::span<const RedisLimitRequest> limits,
        std::span<Decision> out, SlotMode mode, std::vector<std::string> *images,
        std::optional<Micros> now);
    void giveBack(
        std::span<const RedisLimitRequest> limits, const std::vector<std::string> &images);
    Decision storeFailure(const RedisRule &rule) const;
    Decision dataError(const RedisRule &rule, const std::string &message);

    RedisEndpoint m_endpoint;
    // [0] the first node reached; on a cluster every master seen. Never shrinks while a batch
    // runs: Attempt::node indexes it.
    std::vector<std::unique_ptr<RedisNode>> m_nodes;
    std::vector<std::uint16_t> m_slotNode; // kClusterSlots entries on a cluster, else empty
    bool m_slotsStale = false;
    std::chrono::steady_clock::time_point m_nextSlotRefresh{};
    std::vector<std::vector<Attempt>> m_byNode; // this round's attempts per node, reused
    std::int64_t m_batchSecond = 0; // the local clock's second at the batch's start
    RespWriter m_command; // the decision being appended, reused
    std::string m_keyScratch; // a state key being hashed to its slot, reused
    RouteMetrics m_metrics;
    std::string m_lastError;
    std::uint64_t m_redirections = 0;
    std::uint64_t m_refundsLeft = 0;
    std::uint64_t m_refundsByArithmetic = 0;
    std::chrono::steady_clock::time_point m_nextConnectAttempt{}; // while no seed answers
};

} // namespace qs::limiter
