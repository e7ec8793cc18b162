#include "limiter/engine/engine.h"

#include "limiter/engine/ruletable.h"

#include <algorithm>
#include <array>

namespace qs::limiter {

// The tables store a key's length in 16 bits: the published bound must fit.
static_assert(Engine::kMaxKeyLength <= detail::KeyTable<GcraState>::kMaxKeyLength);
// acquireAll() holds a request's limits each in a reader entry of its own.
static_assert(detail::ReaderRegistry::kEntries >= kMaxLimitsPerRequest);

namespace detail {

bool KeyBudget::tryTake()
{
    if (m_max == 0) {
        m_used.fetch_add(1, std::memory_order_relaxed);
        return true;
    }
    std::size_t used = m_used.load(std::memory_order_relaxed);
    while (used < m_max) {
        if (m_used.compare_exchange_weak(used, used + 1, std::memory_order_relaxed))
            return true;
    }
    return false;
}

} // namespace detail

Engine::Engine() : Engine(Options{}) { }

Engine::Engine(Options options)
    : m_budget(std::make_unique<detail::KeyBudget>(options.maxKeys)),
      m_readers(std::make_unique<detail::ReaderRegistry>())
{
}

Engine::~Engine() = default;

RuleResult Engine::addRule(const AlgorithmConfig &config)
{
    if (auto problem = validate(config))
        return {std::nullopt, *problem};
    const auto id = RuleId(m_rules.size());
    const std::uint64_t seed = detail::finalizeHash(0x51a7e5eedULL + id);
    m_rules.push_back(std::visit(
        [&](const auto &c) -> std::unique_ptr<detail::RuleTableBase> {
            using Config = std::decay_t<decltype(c)>;
            return std::make_unique<detail::RuleTable<Config>>(c, seed, *m_budget, *m_readers);
        },
        config));
    return {id, {}};
}

RuleResult Engine::addLimitPair(const LimitPairConfig &pair)
{
    if (auto problem = pair.validate())
        return {std::nullopt, *problem};
    const auto id = RuleId(m_rules.size());
    const std::uint64_t seed = detail::finalizeHash(0x51a7e5eedULL + id);
    m_rules.push_back(
        std::make_unique<detail::RuleTable<LimitPairConfig>>(pair, seed, *m_budget, *m_readers));
    return {id, {}};
}

SetDecision Engine::acquirePair(
    RuleId id, std::string_view key, Micros now, std::span<Decision, 2> out)
{
    detail::RuleTableBase *r = rule(id);
    if (!r || key.size() > kMaxKeyLength) {
        SetDecision refused;
        refused.allowed = refused.decision.allowed = false;
        refused.decision.reason = !r ? Reason::InvalidRule : Reason::InvalidKey;
        return refused;
    }
    return r->acquirePair(key, now, out);
}

detail::RuleTableBase *Engine::rule(RuleId id) const
{
    return id < m_rules.size() ? m_rules[id].get() : nullptr;
}

const AlgorithmConfig &Engine::config(RuleId id) const
{
    return m_rules.at(id)->config();
}

Decision Engine::acquire(RuleId id, std::string_view key, Micros now, std::int64_t cost)
{
    detail::RuleTableBase *r = rule(id);
    if (!r || cost < 0 || key.size() > kMaxKeyLength) {
        Decision d;
        d.reason = !r ? Reason::InvalidRule : cost < 0 ? Reason::InvalidCost : Reason::InvalidKey;
        return d;
    }
    return r->acquire(key, now, cost);
}

void Engine::acquire(RuleId id, std::span<const std::string_view> keys, Micros now,
    std::int64_t cost, std::span<Decision> out)
{
    detail::RuleTableBase *r = rule(id);
    const std::size_t n = std::min(keys.size(), out.size());
    const bool keysFit = std::all_of(keys.begin(), keys.begin() + std::ptrdiff_t(n),
        [](std::string_view k) { return k.size() <= kMaxKeyLength; });
    if (r && cost >= 0 && keysFit) {
        r->acquireBatch(keys.first(n), now, cost, out.first(n));
        return;
    }
    for (std::size_t i = 0; i < n; ++i)
        out[i] = acquire(id, keys[i], now, cost); // the same errors as one by one
}

namespace {

// Why limit `limit` (-1: the call) cannot be decided, or nullopt.
std::optional<std::pair<Reason, int>> problemOf(std::span<const EngineLimit> limits,
    std::size_t decisions, std::size_t ruleCount, std::size_t maxKeyLength)
{
    if (limits.size() > kMaxLimitsPerRequest || decisions < limits.size())
        return std::pair{Reason::InvalidRule, -1};
    for (std::size_t i = 0; i < limits.size(); ++i) {
        const EngineLimit &l = limits[i];
        if (l.rule >= ruleCount)
            return std::pair{Reason::InvalidRule, int(i)};
        if (l.cost < 0)
            return std::pair{Reason::InvalidCost, int(i)};
        if (l.key.size() > maxKeyLength)
            return std::pair{Reason::InvalidKey, int(i)};
        for (std::size_t j = 0; j < i; ++j)
            if (limits[j].rule == l.rule) // its slot would be held twice
                return std::pair{Reason::InvalidRule, int(i)};
    }
    return std::nullopt;
}

// The order a request's slots are held in: by rule, the same for every request (ruletable.h:
// hold()). Rules are distinct (problemOf).
void ruleOrder(std::span<const EngineLimit> limits, std::uint8_t *order)
{
    for (std::size_t i = 0; i < limits.size(); ++i) {
        std::size_t at = i;
        for (; at > 0 && limits[order[at - 1]].rule > limits[i].rule; --at)
            order[at] = order[at - 1];
        order[at] = std::uint8_t(i);
    }
}

} // namespace

SetDecision Engine::acquireAll(
    std::span<const EngineLimit> limits, Micros now, std::span<Decision> out)
{
    // One named result for every return, so that it is built where the caller wants it.
    SetDecision set;
    const std::size_t n = limits.size();
    if (const auto problem = problemOf(limits, out.size(), m_rules.size(), kMaxKeyLength)) {
        set.allowed = set.decision.allowed = false;
        set.decision.reason = problem->first;
        set.deciding = problem->second;
        return set;
    }
    std::uint8_t order[kMaxLimitsPerRequest];
    ruleOrder(limits, order);

    const std::size_t lane = detail::ReaderRegistry::laneOfThisThread(detail::kLanes);
    std::uint64_t hashes[kMaxLimitsPerRequest];
    for (std::size_t i = 0; i < n; ++i) // every limit's cache miss under way at once
        hashes[i] = m_rules[limits[i].rule]->prefetch(limits[i].key, lane);
    detail::HeldLimit held[kMaxLimitsPerRequest];
    bool shadow[kMaxLimitsPerRequest];
    if (n > 1)
        m_readers->useExtraEntries(true);
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = order[k];
        const EngineLimit &l = limits[i];
        m_rules[l.rule]->hold(hashes[i], l.key, lane, k, now, l.cost, held[i], out[i]);
        shadow[i] = l.shadow;
    }
    set = combine(out.first(n), std::span<const bool>(shadow, n));
    for (std::size_t k = n; k-- > 0;) {
        const std::size_t i = order[k];
        m_rules[limits[i].rule]->release(held[i], !set.allowed && out[i].allowed, limits[i].cost);
    }
    if (n > 1)
        m_readers->useExtraEntries(false);
    return set;
}

std::optional<Quota> Engine::peek(RuleId id, std::string_view key, Micros now) const
{
    detail::RuleTableBase *r = rule(id);
    if (!r)
        return std::nullopt;
    return r->peek(key, now);
}

std::optional<AlgorithmState> Engine::state(RuleId id, std::string_view key) const
{
    detail::RuleTableBase *r = rule(id);
    if (!r)
        return std::nullopt;
    return r->state(key);
}

std::size_t Engine::sweep(Micros now)
{
    std::size_t dropped = 0;
    for (auto &r : m_rules)
        dropped += r->sweep(now);
    return dropped;
}

EngineUsage Engine::usage() const
{
    EngineUsage u;
    for (const auto &r : m_rules)
        r->addUsage(u);
    u.keyTableFullDenials = m_budget->denials();
    return u;
}

} // namespace qs::limiter
