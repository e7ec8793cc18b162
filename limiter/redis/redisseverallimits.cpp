// RedisBackend::acquireAll: one request against several limits in Redis (limitset.h's rule).
//
// Limits whose state keys share a slot (one Redis; a Cluster when they share a hash tag) are
// decided by one EVALSHA of several.lua, atomically. On a Cluster, a route's limits usually
// fall in different slots (Quota Studio's keys carry no hash tag), and no script can touch two
// slots: the request is then decided one slot at a time, in the order its limits first name
// them. A slot whose enforced limits all admit writes at once and replies what it wrote and
// what was there before; when a later slot denies, the earlier slots' writes are given back
// (several/refund.lua), and the slots after the denial are decided without writing, to be
// reported. What this leaves under concurrency (docs/redis-layout.md, "Limits in several slots"):
// a request decided while another's charge waits for its give-back sees that charge (it may be
// denied), and a give-back that finds the key written since takes the units off arithmetically
// (several/refund.lua), which for a token bucket, GCRA or leaky bucket can credit up to the cost
// that a full bucket would have lost (refundsByArithmetic() counts them). A give-back that
// cannot reach its node leaves the charge (refundsLeft()).
#include "limiter/redis/redisbackend.h"

#include "limiter/redis/clusterslots.h"
#include "limiter/redis/keyslot.h"
#include "limiter/redis/packeddoubles.h"
#include "limiter/redis/redisnode.h"
#include "limiter/redis/redisscripts.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <array>
#include <chrono>

namespace qs::limiter {

namespace {

std::string_view errorOf(const redisReply *r)
{
    return r->type == REDIS_REPLY_ERROR ? std::string_view(r->str, r->len) : std::string_view();
}

const char *modeArgument(RedisBackend::SlotMode mode)
{
    switch (mode) {
    case RedisBackend::SlotMode::Images:
        return "images";
    case RedisBackend::SlotMode::Dry:
        return "dry";
    case RedisBackend::SlotMode::Whole:
        break;
    }
    return nullptr;
}

} // namespace

SetDecision RedisBackend::failAll(std::span<const RedisLimitRequest> limits,
    std::span<Decision> out, bool isDataError, const std::string &why)
{
    std::array<bool, kMaxLimitsPerRequest> shadow{};
    for (std::size_t i = 0; i < limits.size(); ++i) {
        out[i] = isDataError ? dataError(*limits[i].rule, why) : storeFailure(*limits[i].rule);
        shadow[i] = limits[i].shadow;
    }
    m_lastError = why;
    return combine(out.first(limits.size()), std::span(shadow.data(), limits.size()));
}

SetDecision RedisBackend::acquireAll(
    std::span<const RedisLimitRequest> limits, std::span<Decision> out, std::optional<Micros> now)
{
    if (limits.empty() || limits.size() > kMaxLimitsPerRequest || out.size() < limits.size()) {
        // Denied, as far as there is room to say so: never written past `out`.
        const std::size_t n = std::min({limits.size(), out.size(), kMaxLimitsPerRequest});
        SetDecision refused = failAll(limits.first(n), out.first(n), true,
            "acquireAll takes 1 to " + std::to_string(kMaxLimitsPerRequest)
                + " limits and a decision for each");
        refused.allowed = refused.decision.allowed = false; // even with nothing to decide
        refused.decision.reason = Reason::InvalidRule;
        return refused;
    }
    if (!ensureConnected())
        return failAll(limits, out, false, m_lastError);
    refreshSlotMapIfStale();

    // The limits by slot, slots in the order the limits first name them.
    const std::size_t n = limits.size();
    std::array<int, kMaxLimitsPerRequest> slotOfGroup{};
    std::array<std::uint8_t, kMaxLimitsPerRequest> groupOf{};
    std::size_t groups = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const int slot = isCluster() ? keySlot(stateKey(*limits[i].rule, limits[i].key)) : 0;
        std::size_t g = 0;
        while (g < groups && slotOfGroup[g] != slot)
            ++g;
        if (g == groups)
            slotOfGroup[groups++] = slot;
        groupOf[i] = std::uint8_t(g);
    }
    std::array<bool, kMaxLimitsPerRequest> shadow{};
    for (std::size_t i = 0; i < n; ++i)
        shadow[i] = limits[i].shadow;
    if (groups == 1) {
        decideSlot(limits, out, now, SlotMode::Whole, nullptr);
        const SetDecision set = combine(out.first(n), std::span(shadow.data(), n));
        countRequest(limits, out.first(n), set, now);
        return set;
    }

    // One call per slot; the writes of the slots that admitted, for their give-back.
    struct Written {
        std::vector<RedisLimitRequest> limits;
        std::vector<std::string> images;
    };
    std::vector<Written> written;
    bool denied = false;
    for (std::size_t g = 0; g < groups; ++g) {
        std::array<RedisLimitRequest, kMaxLimitsPerRequest> mine;
        std::array<Decision, kMaxLimitsPerRequest> decided;
        std::array<bool, kMaxLimitsPerRequest> mineShadow{};
        std::array<std::uint8_t, kMaxLimitsPerRequest> index{};
        std::size_t count = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (groupOf[i] == g) {
                index[count] = std::uint8_t(i);
                mineShadow[count] = limits[i].shadow;
                mine[count++] = limits[i];
            }
        std::vector<std::string> images;
        const bool answered
            = decideSlot(std::span(mine.data(), count), std::span(decided.data(), count), now,
                denied ? SlotMode::Dry : SlotMode::Images, &images);
        for (std::size_t k = 0; k < count; ++k)
            out[index[k]] = decided[k];
        const bool admits
            = combine(std::span(decided.data(), count), std::span(mineShadow.data(), count))
                  .allowed;
        if (answered && !denied && admits)
            written.push_back({std::vector(mine.begin(), mine.begin() + count), std::move(images)});
        denied = denied || !admits;
    }
    const SetDecision set = combine(out.first(n), std::span(shadow.data(), n));
    if (!set.allowed)
        for (const Written &w : written)
            giveBack(w.limits, w.images);
    countRequest(limits, out.first(n), set, now);
    return set;
}

// The request's admission, counted once for its route (RedisRule::metricsPrefix), unless Redis
// answered for none of its limits.
void RedisBackend::countRequest(std::span<const RedisLimitRequest> limits,
    std::span<const Decision> out, const SetDecision &set, std::optional<Micros> now)
{
    const RedisRule &first = *limits.front().rule;
    if (!first.metrics || std::all_of(out.begin(), out.end(), [](const Decision &d) {
            return d.reason == Reason::StoreError;
        }))
        return;
    m_batchSecond = std::chrono::duration_cast<std::chrono::seconds>(
        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    if (m_metrics.due(m_batchSecond))
        flushMetricsBefore(m_batchSecond);
    m_metrics.count(first.metricsPrefix.empty() ? first.keyPrefix : first.metricsPrefix,
        now ? *now / kMicrosPerSecond : m_batchSecond, set.allowed, first.plan);
}

bool RedisBackend::decideSlot(std::span<const RedisLimitRequest> limits, std::span<Decision> out,
    std::optional<Micros> now, SlotMode mode, std::vector<std::string> *images)
{
    std::vector<std::string> args{"EVALSHA", "", std::to_string(limits.size())};
    for (const RedisLimitRequest &l : limits)
        args.push_back(stateKey(*l.rule, l.key));
    std::uint16_t node = nodeForKey(args[3]);
    for (std::size_t i = 4; i < args.size(); ++i)
        if (isCluster() && keySlot(args[i]) != keySlot(args[3])) {
            failAll(limits, out, false,
                "internal: keys " + args[3] + " and " + args[i] + " in one call are in two slots");
            return false;
        }
    args.push_back(now ? std::to_string(*now) : std::string());
    for (const RedisLimitRequest &l : limits) {
        args.emplace_back(algorithmName(algorithmOf(l.rule->config)));
        args.push_back(std::to_string(l.cost));
        args.emplace_back(l.shadow ? "1" : "0");
        const ScriptParameters parameters = redisScriptParameterValues(l.rule->config);
        for (int p = 0; p < 3; ++p)
            args.push_back(p < parameters.count
                    ? std::to_string(parameters.values[p] < 0 ? -1 : parameters.values[p])
                    : std::string());
        // A calendar window's windows take the unused third place (fixed_window.lua).
        char windows[64];
        if (const std::size_t size = redisCalendarArgument(l.rule->config, now, windows))
            args.back().assign(windows, size);
    }
    if (const char *m = modeArgument(mode))
        args.emplace_back(m);
    // NOSCRIPT (a flush, a failover) loads the script again; MOVED (a reshard) asks for the
    // slot map again; each once. A timeout is never replayed: the script may have run.
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (node == kNoNode || !m_nodes[node]->ensureConnected(!isCluster())) {
            failAll(limits, out, false,
                node == kNoNode ? "no node serves the limits' slot" : m_nodes[node]->lastError());
            return false;
        }
        RedisNode &nd = *m_nodes[node];
        RedisReplyPtr reply;
        if (mode == SlotMode::Whole && nd.usesModule()) {
            // QS.DECIDEALL takes several.lua's keys and arguments (limiter/redismodule/).
            std::vector<std::string> command(args.begin() + 1, args.end());
            command[0] = "QS.DECIDEALL";
            reply = nd.run(command);
        } else {
            const std::string *sha = nd.severalSha();
            if (!sha) {
                failAll(limits, out, false, nd.lastError());
                return false;
            }
            args[1] = *sha;
            reply = nd.run(args);
        }
        if (!reply) {
            failAll(limits, out, false, nd.lastError());
            return false;
        }
        const std::string_view error = errorOf(reply.get());
        if (error.starts_with("NOSCRIPT")) {
            nd.forgetSeveralSha();
            continue;
        }
        if (const auto to = parseRedirection(error, nd.address().host)) {
            ++m_redirections;
            m_slotsStale = true;
            refreshSlotMapIfStale();
            node = nodeForKey(args[3]);
            continue;
        }
        if (!error.empty()) {
            failAll(limits, out, true,
                "Redis refused the decision of several limits: " + std::string(error));
            return false;
        }
        if (!readSlotReply(reply.get(), limits, out, mode, images, now)) {
            failAll(limits, out, true,
                "unexpected reply from several.lua (expected " + std::to_string(32 * limits.size())
                    + " bytes: four doubles per limit"
                    + (mode == SlotMode::Images ? ", and three images per limit)" : ")"));
            return false;
        }
        return true;
    }
    failAll(limits, out, false, "several.lua: " + m_lastError);
    return false;
}

bool RedisBackend::readSlotReply(const redisReply *reply, std::span<const RedisLimitRequest> limits,
    std::span<Decision> out, SlotMode mode, std::vector<std::string> *images,
    std::optional<Micros> now)
{
    const std::size_t n = limits.size();
    const redisReply *packed = reply;
    if (mode == SlotMode::Images) {
        if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 1 + 3 * n)
            return false;
        packed = reply->element[0];
        images->clear();
        for (std::size_t i = 1; i < reply->elements; ++i) {
            const redisReply *e = reply->element[i];
            if (e->type == REDIS_REPLY_STRING)
                images->emplace_back(e->str, e->len);
            else if (e->type == REDIS_REPLY_INTEGER)
                images->push_back(std::to_string(e->integer));
            else
                return false;
        }
    }
    std::array<double, 4 * kMaxLimitsPerRequest> fields{};
    if (packed->type != REDIS_REPLY_STRING
        || !unpackDoubles(
            std::string_view(packed->str, packed->len), std::span(fields.data(), 4 * n)))
        return false;
    for (std::size_t i = 0; i < n; ++i) {
        const double(&four)[4] = *reinterpret_cast<const double(*)[4]>(&fields[4 * i]);
        out[i] = decisionFromFields(*limits[i].rule, four, now);
    }
    return true;
}

void RedisBackend::giveBack(
    std::span<const RedisLimitRequest> limits, const std::vector<std::string> &images)
{
    std::vector<std::string> args{"EVALSHA", "", std::to_string(limits.size())};
    for (const RedisLimitRequest &l : limits)
        args.push_back(stateKey(*l.rule, l.key));
    for (std::size_t i = 0; i < limits.size(); ++i) {
        const AlgorithmConfig &config = limits[i].rule->config;
        const ScriptParameters parameters = redisScriptParameterValues(config);
        args.emplace_back(algorithmName(algorithmOf(config)));
        args.push_back(std::to_string(parameters.values[0]));
        args.push_back(std::to_string(parameters.values[1]));
        args.push_back(std::to_string(limits[i].cost));
        args.insert(args.end(), images.begin() + std::ptrdiff_t(3 * i),
            images.begin() + std::ptrdiff_t(3 * i + 3));
    }
    std::uint16_t node = nodeForKey(args[3]);
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (node == kNoNode || !m_nodes[node]->ensureConnected(!isCluster()))
            break;
        RedisNode &nd = *m_nodes[node];
        const std::string *sha = nd.refundSha();
        if (!sha)
            break;
        args[1] = *sha;
        RedisReplyPtr reply = nd.run(args);
        if (!reply)
            break;
        const std::string_view error = errorOf(reply.get());
        if (error.starts_with("NOSCRIPT")) {
            nd.forgetSeveralSha();
            continue;
        }
        if (parseRedirection(error, nd.address().host)) {
            ++m_redirections;
            m_slotsStale = true;
            refreshSlotMapIfStale();
            node = nodeForKey(args[3]);
            continue;
        }
        if (reply->type != REDIS_REPLY_ARRAY || reply->elements != limits.size())
            break;
        for (std::size_t i = 0; i < reply->elements; ++i) {
            const redisReply *r = reply->element[i];
            if (r->type == REDIS_REPLY_INTEGER && r->integer == 2)
                ++m_refundsByArithmetic;
        }
        return;
    }
    // No give-back at all (the node went away): every charge stays.
    m_refundsLeft += limits.size();
    m_lastError = "the give-back of a request denied in another slot failed; its charges stay";
}

} // namespace qs::limiter
