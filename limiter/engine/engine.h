#pragma once
// The embedded limiter: many rules, each with keyed states, safe to call from many threads.
//
// Hot path: acquire(rule, key, now, cost) hashes the key, finds its slot in one of 64 shards of
// the rule without a shared lock, locks only that slot and runs the algorithm (see ruletable.h).
// A key is stored in the lane of the thread that first decided on it, and each thread looks in
// its own lane first: threads that keep to their own keys (a gateway's workers with their own
// connections) share no memory; a key that every thread uses costs its other threads one more
// look. `now` comes from the caller because reading the clock costs more than the decision;
// acquire(rule, key, clock, cost) reads one.
//
// Memory: a key whose state equals a fresh one can be dropped without changing any decision, so
// tables shed such keys whenever they would otherwise grow, and sweep(now) sheds them all.
// With Options::maxKeys set, a new key beyond the bound first makes its shard shed fresh keys;
// if none can go, that request is DENIED with Reason::KeyTableFull (never admitted blind) and
// counted in Usage::keyTableFullDenials. Existing keys keep being decided normally.
//
// Rules are added before the engine is shared between threads: addRule() is not safe to call
// concurrently with acquire().
#include "limiter/algorithms/algorithm.h"
#include "limiter/algorithms/clock.h"
#include "limiter/algorithms/limitset.h"
#include "limiter/engine/limitpair.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qs::limiter {

using RuleId = std::uint32_t;

struct RuleResult {
    std::optional<RuleId> id; // set when the rule was added
    std::string error; // otherwise, why not
};

// One limit of a request with several (Engine::acquireAll).
struct EngineLimit {
    RuleId rule = 0;
    std::string_view key;
    std::int64_t cost = 1;
    bool shadow = false; // counted and reported, never denies
};

struct EngineUsage {
    std::size_t keys = 0;
    std::size_t bytes = 0; // heap bytes held by the key tables (slots, control bytes, key text)
    std::uint64_t keyTableFullDenials = 0;
};

namespace detail {
class RuleTableBase;
class ReaderRegistry;

class KeyBudget;
} // namespace detail

class Engine {
public:
    struct Options {
        std::size_t maxKeys = 0; // 0: no bound
    };
    // The longest key a decision takes; a longer one is denied with Reason::InvalidKey.
    static constexpr std::size_t kMaxKeyLength = 0xffff;

    Engine();
    explicit Engine(Options options);
    ~Engine();
    Engine(const Engine &) = delete;
    Engine &operator=(const Engine &) = delete;

    RuleResult addRule(const AlgorithmConfig &config);
    // A rule of two limits that count under one key, both in one slot (limitpair.h): one lookup
    // and one lock per request instead of acquireAll's two. config() and state() of such a
    // rule give its first limit's.
    RuleResult addLimitPair(const LimitPairConfig &pair);
    std::size_t ruleCount() const { return m_rules.size(); }
    const AlgorithmConfig &config(RuleId rule) const;

    Decision acquire(RuleId rule, std::string_view key, Micros now, std::int64_t cost = 1);
    Decision acquire(RuleId rule, std::string_view key, const Clock &clock, std::int64_t cost = 1)
    {
        return acquire(rule, key, clock.now(), cost);
    }
    // Many decisions of one rule at once (a gateway's batch of parsed requests, a pipelined
    // Redis-style front end): out[i] is exactly what acquire(rule, keys[i], now, cost) would
    // return when called in order. The lookups' cache misses overlap instead of following one
    // another, which is what makes a batch faster per decision on tables larger than the cache.
    void acquire(RuleId rule, std::span<const std::string_view> keys, Micros now, std::int64_t cost,
        std::span<Decision> out);

    // One request against several limits, each a rule with its own key and cost, by the rule of
    // limitset.h: admitted only if every enforced limit admits, and a denied request takes from
    // no limit. The limits' slots are held at once (locked in rule order), so no other request
    // decides between one limit's decision and another's give-back: the outcome is what
    // decideAll() answers on the same states, under any concurrency. out[i] receives limit i's
    // own decision. No allocation. Refused without deciding (Reason::InvalidRule, InvalidCost or
    // InvalidKey, `deciding` the offending limit): more than kMaxLimitsPerRequest limits, fewer
    // decisions than limits, a rule named twice, an unknown rule, a negative cost, a key longer
    // than kMaxKeyLength.
    SetDecision acquireAll(
        std::span<const EngineLimit> limits, Micros now, std::span<Decision> out);

    // Both limits of a pair rule on `key`, by limitset.h's rule; refused (Reason::InvalidRule)
    // for a rule that is not a pair, InvalidKey for a key longer than kMaxKeyLength.
    SetDecision acquirePair(
        RuleId rule, std::string_view key, Micros now, std::span<Decision, 2> out);

    // The quota left for a key without taking any; nullopt for an unknown rule.
    std::optional<Quota> peek(RuleId rule, std::string_view key, Micros now) const;
    // A copy of the key's state (a fresh state when the key is not stored).
    std::optional<AlgorithmState> state(RuleId rule, std::string_view key) const;

    // Drops every key whose state is fresh at `now`; returns how many went.
    std::size_t sweep(Micros now);
    EngineUsage usage() const;

private:
    detail::RuleTableBase *rule(RuleId id) const;

    std::unique_ptr<detail::KeyBudget> m_budget;
    std::unique_ptr<detail::ReaderRegistry> m_readers;
    std::vector<std::unique_ptr<detail::RuleTableBase>> m_rules;
};

} // namespace qs::limiter
