#include "limiter/redis/redisbackend.h"

#include "limiter/redis/keylayout.h"

#include "limiter/algorithms/clock.h"

#include "limiter/redis/clusterslots.h"
#include "limiter/redis/keyslot.h"
#include "limiter/redis/packeddoubles.h"
#include "limiter/redis/redisnode.h"
#include "limiter/redis/redisscripts.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

namespace qs::limiter {

namespace {

// Rounds of redirections and retries one decision may take: MOVED then ASK then a TRYAGAIN or
// two is the worst a slot migration does; CLUSTERDOWN waits 10, 20, 40, 80 and 160 ms.
constexpr int kMaxRounds = 6;

// A script's reply: 32 bytes, four packed doubles (limiter/redis/lua/postlude.lua), each a whole
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

std::string_view errorText(const redisReply *r)
{
    return r->type == REDIS_REPLY_ERROR ? std::string_view(r->str, r->len) : std::string_view();
}

std::int64_t localSecond()
{
    return std::chrono::duration_cast<std::chrono::seconds>(
        std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

std::vector<RedisAddress> RedisEndpoint::seeds() const
{
    std::vector<RedisAddress> all{RedisAddress{host, port}};
    all.insert(all.end(), moreSeeds.begin(), moreSeeds.end());
    return all;
}

void RedisEndpoint::setSeeds(const std::vector<RedisAddress> &seeds)
{
    if (seeds.empty())
        return;
    host = seeds.front().host;
    port = seeds.front().port;
    moreSeeds.assign(seeds.begin() + 1, seeds.end());
}

RedisBackend::RedisBackend(RedisEndpoint endpoint) : m_endpoint(std::move(endpoint)) { }

RedisBackend::~RedisBackend()
{
    flushMetrics();
}

std::string RedisBackend::stateKey(const RedisRule &rule, std::string_view key) const
{
    return keylayout::stateKey(rule.keyPrefix, key);
}

bool RedisBackend::connected() const
{
    return std::any_of(
        m_nodes.begin(), m_nodes.end(), [](const auto &n) { return n->connected(); });
}

std::vector<RedisAddress> RedisBackend::masters() const
{
    std::vector<RedisAddress> out;
    std::vector<bool> serves(m_nodes.size(), !isCluster());
    for (std::uint16_t n : m_slotNode)
        if (n != kNoNode)
            serves[n] = true;
    for (std::size_t i = 0; i < m_nodes.size(); ++i)
        if (serves[i])
            out.push_back(m_nodes[i]->address());
    return out;
}

bool RedisBackend::connect()
{
    m_nodes.clear();
    m_slotNode.clear();
    std::string why;
    for (const RedisAddress &seed : m_endpoint.seeds()) {
        auto node = std::make_unique<RedisNode>(seed, m_endpoint);
        if (!node->connect(false)) {
            why += (why.empty() ? "" : "; ") + node->lastError();
            continue;
        }
        RedisNode &first = *node;
        m_nodes.push_back(std::move(node));
        if (adoptSlotMap(first)) {
            if (m_endpoint.db != 0) {
                m_lastError = "Redis at " + seed.text() + " is a cluster, which has only db 0 (db "
                    + std::to_string(m_endpoint.db) + " was asked for)";
                m_nodes.clear();
                m_slotNode.clear();
                return false;
            }
            return true;
        }
        if (!first.connected()) { // CLUSTER SLOTS broke the connection
            why += (why.empty() ? "" : "; ") + first.lastError();
            m_nodes.clear();
            continue;
        }
        if (m_endpoint.db != 0 && !first.connect(true)) {
            m_lastError = first.lastError();
            m_nodes.clear();
            return false;
        }
        return true;
    }
    m_lastError = why;
    m_nextConnectAttempt
        = std::chrono::steady_clock::now() + std::chrono::microseconds(m_endpoint.reconnectBackoff);
    return false;
}

// Asks `from` for the slot map. False when it is not a cluster (or did not answer): then the
// map is left as it was.
bool RedisBackend::adoptSlotMap(RedisNode &from)
{
    const RedisReplyPtr reply = from.run({"CLUSTER", "SLOTS"});
    if (!reply || reply->type != REDIS_REPLY_ARRAY)
        return false; // "ERR This instance has cluster support disabled", or no answer
    const std::vector<SlotRange> ranges = parseClusterSlots(reply.get(), from.address().host);
    if (ranges.empty())
        return false;
    m_slotNode.assign(kClusterSlots, kNoNode);
    std::vector<bool> master(m_nodes.size(), false);
    for (const SlotRange &r : ranges) {
        const std::uint16_t n = nodeIndexAt(r.master);
        master.resize(m_nodes.size(), false);
        master[n] = true;
        std::fill(m_slotNode.begin() + r.first, m_slotNode.begin() + r.last + 1, n);
    }
    // One connection per master: a node that is no longer one (a demoted master) is let go.
    for (std::size_t i = 0; i < m_nodes.size(); ++i)
        if (!master[i] && m_nodes[i]->connected())
            m_nodes[i]->disconnect(m_nodes[i]->address().text() + " is no longer a master");
    m_slotsStale = false;
    return true;
}

void RedisBackend::refreshSlotMapIfStale()
{
    const auto now = std::chrono::steady_clock::now();
    if (!m_slotsStale || !isCluster() || now < m_nextSlotRefresh)
        return;
    m_nextSlotRefresh = now + std::chrono::microseconds(m_endpoint.reconnectBackoff);
    // Any master that answers knows the map; the seeds are asked when none does.
    for (std::size_t i = 0; i < m_nodes.size(); ++i)
        if (m_nodes[i]->connected() && adoptSlotMap(*m_nodes[i]))
            return;
    for (const RedisAddress &seed : m_endpoint.seeds()) {
        RedisNode &node = *m_nodes[nodeIndexAt(seed)];
        if (node.ensureConnected(false) && adoptSlotMap(node))
            return;
    }
}

std::uint16_t RedisBackend::nodeIndexAt(const RedisAddress &address)
{
    for (std::size_t i = 0; i < m_nodes.size(); ++i)
        if (m_nodes[i]->address() == address)
            return std::uint16_t(i);
    m_nodes.push_back(std::make_unique<RedisNode>(address, m_endpoint));
    m_byNode.resize(m_nodes.size());
    return std::uint16_t(m_nodes.size() - 1);
}

std::uint16_t RedisBackend::nodeForKey(std::string_view key) const
{
    return isCluster() ? m_slotNode[keySlot(key)] : 0;
}

std::uint16_t RedisBackend::nodeFor(const RedisRule &rule, std::string_view key)
{
    if (!isCluster())
        return 0;
    m_keyScratch.assign(rule.keyPrefix);
    m_keyScratch += ':';
    m_keyScratch += key;
    return nodeForKey(m_keyScratch);
}

bool RedisBackend::ensureConnected()
{
    if (m_nodes.empty())
        // Fail fast while no seed answers instead of waiting for them on every call.
        return std::chrono::steady_clock::now() >= m_nextConnectAttempt && connect();
    return true; // each node reconnects on its own, with its own backoff
}

void RedisBackend::appendCommand(RedisNode &node, const RedisRequest &q)
{
    // Called for every decision: written as RESP into one reused buffer (respwriter.h), so a
    // warm backend allocates nothing here.
    const RedisRule &rule = *q.rule;
    const ScriptParameters parameters = redisScriptParameterValues(rule.config);
    const Algorithm algorithm = algorithmOf(rule.config);
    char windows[64];
    const std::size_t windowsSize = redisCalendarArgument(rule.config, q.now, windows);
    if (node.usesModule()) {
        // QS.DECIDE key algorithm cost parameters… [NOW now] [WINDOWS "b0 b1 b2"]
        // (limiter/redismodule/)
        m_command.begin(
            4 + std::size_t(parameters.count) + (q.now ? 2 : 0) + (windowsSize ? 2 : 0));
        m_command.arg(std::string_view("QS.DECIDE"));
        m_command.arg({rule.keyPrefix, ":", q.key}); // stateKey()
        m_command.arg(algorithmName(algorithm));
    } else {
        // EVALSHA sha 1 key cost parameters… [now] [windows] (limiter/redis/lua/prelude.lua);
        // the windows need now's place: '' for Redis TIME.
        m_command.begin(5 + std::size_t(parameters.count) + (q.now || windowsSize ? 1 : 0)
            + (windowsSize ? 1 : 0));
        m_command.arg(std::string_view("EVALSHA"));
        m_command.arg(std::string_view(node.sha(algorithm)));
        m_command.arg(std::string_view("1"));
        m_command.arg({rule.keyPrefix, ":", q.key}); // stateKey()
    }
    m_command.arg(q.cost);
    // -1 stands for a config that never passed validation: script and module answer an error.
    for (std::int64_t p : parameters)
        m_command.arg(p < 0 ? -1 : p);
    if (q.now) {
        if (node.usesModule())
            m_command.arg(std::string_view("NOW"));
        m_command.arg(*q.now);
    } else if (windowsSize && !node.usesModule()) {
        m_command.arg(std::string_view());
    }
    if (windowsSize) {
        if (node.usesModule())
            m_command.arg(std::string_view("WINDOWS"));
        m_command.arg(std::string_view(windows, windowsSize));
    }
    redisAppendFormattedCommand(node.context(), m_command.bytes().data(), m_command.bytes().size());
}

RedisEngine RedisBackend::engineInUse() const
{
    bool module = false, lua = false;
    for (const auto &node : m_nodes)
        if (node->connected())
            (node->usesModule() ? module : lua) = true;
    return module && lua ? RedisEngine::Auto : module ? RedisEngine::Module : RedisEngine::Lua;
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
    return decisionFromFields(rule, fields, q.now);
}

// code, remaining, wait, reset: code 0 admitted (wait = shaping delay), 1 limit exceeded
// (wait = retry after), 2 cost exceeds what the limit can ever admit.
Decision RedisBackend::decisionFromFields(
    const RedisRule &rule, const double (&fields)[4], std::optional<Micros> now)
{
    Decision d;
    const Quota fresh = peek(rule.config, freshState(rule.config), 0);
    d.limit = fresh.limit;
    d.window = fresh.window;
    // A calendar window's length depends on the time (a month of 28 or 31 days), which the
    // reply does not carry: the window of the caller's now, the one whose bounds were sent.
    if (const auto *fixed = std::get_if<FixedWindowConfig>(&rule.config);
        fixed && fixed->calendar) {
        const WindowBounds w = fixed->windowAt(now ? *now : SystemClock().now());
        d.window = w.end - w.start;
    }
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

void RedisBackend::count(const RedisRequest &q, const Decision &d)
{
    // A limit of a route that has several (or plans) counts for its route, as acquireAll does.
    if (q.rule->metrics && d.reason != Reason::StoreError)
        m_metrics.count(q.rule->metricsPrefix.empty() ? q.rule->keyPrefix : q.rule->metricsPrefix,
            q.now ? *q.now / kMicrosPerSecond : m_batchSecond, d.allowed, q.rule->plan);
}

void RedisBackend::countAdmittedUnasked(const RedisRule &rule)
{
    if (!rule.metrics)
        return;
    const RedisRequest request{&rule, {}, 1, std::nullopt};
    m_batchSecond = std::chrono::duration_cast<std::chrono::seconds>(
        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    if (m_metrics.due(m_batchSecond))
        flushMetricsBefore(m_batchSecond);
    Decision admitted;
    admitted.allowed = true;
    count(request, admitted);
}

Decision RedisBackend::acquire(
    const RedisRule &rule, std::string_view key, std::int64_t cost, std::optional<Micros> now)
{
    const RedisRequest request{&rule, key, cost, now};
    return acquireBatch(std::span(&request, 1)).front();
}

std::vector<Decision> RedisBackend::acquireBatch(std::span<const RedisRequest> requests)
{
    std::vector<Decision> out(requests.size());
    if (!ensureConnected()) {
        for (std::size_t i = 0; i < requests.size(); ++i)
            out[i] = storeFailure(*requests[i].rule);
        return out;
    }
    m_batchSecond = localSecond();
    if (m_metrics.due(m_batchSecond))
        flushMetricsBefore(m_batchSecond);
    refreshSlotMapIfStale();
    m_byNode.resize(m_nodes.size());
    for (std::uint32_t i = 0; i < requests.size(); ++i) {
        const std::uint16_t n = nodeFor(*requests[i].rule, requests[i].key);
        if (n == kNoNode) {
            m_lastError
                = "no master serves the slot of " + stateKey(*requests[i].rule, requests[i].key);
            out[i] = storeFailure(*requests[i].rule);
            m_slotsStale = true;
            continue;
        }
        m_byNode[n].push_back(Attempt{i, n});
    }
    std::vector<Attempt> again;
    for (int round = 1;; ++round) {
        sendRound(requests, out);
        const bool wait = readRound(requests, out, again);
        if (again.empty())
            break;
        if (round == kMaxRounds) {
            m_lastError = "Redis Cluster still redirected or refused after " + std::to_string(round)
                + " tries (" + m_lastError + ")";
            for (const Attempt &a : again)
                out[a.index] = storeFailure(*requests[a.index].rule);
            break;
        }
        if (wait) // TRYAGAIN / CLUSTERDOWN: give the cluster a moment
            std::this_thread::sleep_for(std::chrono::milliseconds(10 << (round - 1)));
        m_byNode.resize(m_nodes.size()); // a redirection may have named a new node
        for (const Attempt &a : again)
            m_byNode[a.node].push_back(a);
        again.clear();
    }
    for (std::size_t i = 0; i < requests.size(); ++i)
        count(requests[i], out[i]);
    return out;
}

// Appends every node's attempts to its connection; the nodes then work in parallel.
void RedisBackend::sendRound(std::span<const RedisRequest> requests, std::vector<Decision> &out)
{
    for (std::size_t n = 0; n < m_byNode.size(); ++n) {
        std::vector<Attempt> &attempts = m_byNode[n];
        if (attempts.empty())
            continue;
        RedisNode &node = *m_nodes[n];
        if (!node.ensureConnected(!isCluster())) {
            m_lastError = node.lastError();
            m_slotsStale = isCluster();
            for (const Attempt &a : attempts)
                out[a.index] = storeFailure(*requests[a.index].rule);
            attempts.clear();
            continue;
        }
        for (const Attempt &a : attempts) {
            if (a.asking)
                redisAppendCommand(node.context(), "ASKING");
            appendCommand(node, requests[a.index]);
        }
    }
}

// Reads every node's replies; what Redis says it did not run goes to `again`. True when one
// of them should wait a moment (TRYAGAIN, CLUSTERDOWN).
bool RedisBackend::readRound(
    std::span<const RedisRequest> requests, std::vector<Decision> &out, std::vector<Attempt> &again)
{
    bool wait = false;
    for (std::size_t n = 0; n < m_byNode.size(); ++n) {
        std::vector<Attempt> &attempts = m_byNode[n];
        RedisNode &node = *m_nodes[n];
        bool reloadScripts = false;
        for (std::size_t k = 0; k < attempts.size(); ++k) {
            const Attempt &a = attempts[k];
            RedisReplyPtr reply = node.nextReply();
            if (reply && a.asking) // ASKING's +OK; the decision's reply follows
                reply = node.nextReply();
            if (!reply) {
                // Timeout or broken connection: never replayed, the script may have run.
                m_lastError = node.lastError();
                m_slotsStale = isCluster();
                for (; k < attempts.size(); ++k)
                    out[attempts[k].index] = storeFailure(*requests[attempts[k].index].rule);
                break;
            }
            const std::string_view error = errorText(reply.get());
            if (error.starts_with("NOSCRIPT") && !a.scriptReloaded) {
                reloadScripts = true;
                again.push_back(Attempt{a.index, a.node, a.asking, true});
            } else if (const auto to = parseRedirection(error, node.address().host)) {
                const std::uint16_t target = nodeIndexAt(to->to);
                ++m_redirections;
                if (to->kind == Redirection::Kind::Moved) {
                    m_slotNode[std::size_t(to->slot)] = target;
                    m_slotsStale = true; // one slot moved: others probably did too
                }
                m_lastError = std::string(error);
                again.push_back(
                    Attempt{a.index, target, to->kind == Redirection::Kind::Ask, a.scriptReloaded});
            } else if (isRetryLater(error)) {
                m_lastError = std::string(error);
                m_slotsStale = isCluster();
                wait = true;
                again.push_back(a);
            } else {
                out[a.index] = decisionFrom(requests[a.index], reply.get());
            }
        }
        attempts.clear();
        if (reloadScripts && !node.loadScripts())
            m_lastError = node.lastError(); // the retries then fail as store errors
    }
    return wait;
}

void RedisBackend::flushMetrics()
{
    if (!m_nodes.empty())
        flushMetricsBefore(std::numeric_limits<std::int64_t>::max());
}

// HINCRBY per field and EXPIRE, pipelined per node. Counts are lost, never doubled, when Redis
// cannot take them: like a decision, a metrics write is never replayed.
void RedisBackend::flushMetricsBefore(std::int64_t second)
{
    const std::vector<RouteMetrics::Count> counts = m_metrics.take(second);
    std::vector<std::vector<const RouteMetrics::Count *>> byNode(m_nodes.size());
    for (const RouteMetrics::Count &c : counts)
        if (const std::uint16_t n = nodeForKey(c.key); n != kNoNode)
            byNode[n].push_back(&c);
    const std::string ttl = std::to_string(keylayout::kMetricsTtlSeconds);
    for (std::size_t n = 0; n < byNode.size(); ++n) {
        RedisNode &node = *m_nodes[n];
        if (byNode[n].empty() || !node.ensureConnected(!isCluster()))
            continue;
        int sent = 0;
        const auto add = [&](const std::string &key, std::string_view field, std::int64_t value) {
            if (value <= 0)
                return;
            const std::string v = std::to_string(value);
            redisAppendCommand(node.context(), "HINCRBY %b %b %b", key.data(), key.size(),
                field.data(), field.size(), v.data(), v.size());
            ++sent;
        };
        for (const RouteMetrics::Count *c : byNode[n]) {
            add(c->key, keylayout::kAllowedField, c->allowed);
            add(c->key, keylayout::kDeniedField, c->denied);
            for (const RouteMetrics::PlanCount &p : c->plans) {
                add(c->key, keylayout::planField(keylayout::kAllowedField, p.plan), p.allowed);
                add(c->key, keylayout::planField(keylayout::kDeniedField, p.plan), p.denied);
            }
            redisAppendCommand(node.context(), "EXPIRE %b %b", c->key.data(), c->key.size(),
                ttl.data(), ttl.size());
            ++sent;
        }
        for (int i = 0; i < sent; ++i)
            if (RedisReplyPtr reply = node.nextReply(); !reply)
                break;
            else if (parseRedirection(errorText(reply.get()), node.address().host))
                m_slotsStale = true;
    }
}

} // namespace qs::limiter
