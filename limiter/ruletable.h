#pragma once
// One rule's keyed states: 64 independently locked shards of a KeyTable. Internal to the engine.
#include "limiter/algorithm.h"
#include "limiter/engine.h"
#include "limiter/keyhash.h"
#include "limiter/keytable.h"
#include "limiter/spinlock.h"

#include <mutex>

namespace qs::limiter::detail {

class RuleTableBase {
public:
    virtual ~RuleTableBase() = default;
    virtual const AlgorithmConfig &config() const = 0;
    virtual Decision acquire(std::string_view key, Micros now, std::int64_t cost) = 0;
    virtual Quota peek(std::string_view key, Micros now) = 0;
    virtual AlgorithmState state(std::string_view key) = 0;
    virtual std::size_t sweep(Micros now) = 0;
    virtual void addUsage(EngineUsage &usage) = 0;
};

template <class Config>
class RuleTable final : public RuleTableBase {
    using State = StateFor_t<Config>;

public:
    RuleTable(const Config &config, std::uint64_t seed, KeyBudget &budget)
        : m_config(config), m_variant(config), m_seed(seed), m_budget(budget),
          m_shards(std::make_unique<Shard[]>(kShards))
    {
    }

    const AlgorithmConfig &config() const override { return m_variant; }

    Decision acquire(std::string_view key, Micros now, std::int64_t cost) override
    {
        const std::uint64_t hash = hashKey(key, m_seed);
        Shard &shard = shardOf(hash);
        shard.table.prefetch(hash);
        std::lock_guard guard(shard.lock);
        State *state = shard.table.find(hash, key);
        if (!state) {
            state = insertFresh(shard, hash, key, now);
            if (!state)
                return tableFull(now, cost);
        }
        return decide(m_config, *state, now, cost);
    }

    Quota peek(std::string_view key, Micros now) override
    {
        const std::uint64_t hash = hashKey(key, m_seed);
        Shard &shard = shardOf(hash);
        std::lock_guard guard(shard.lock);
        const State *state = shard.table.find(hash, key);
        return qs::limiter::peek(m_config, state ? *state : State{}, now);
    }

    AlgorithmState state(std::string_view key) override
    {
        const std::uint64_t hash = hashKey(key, m_seed);
        Shard &shard = shardOf(hash);
        std::lock_guard guard(shard.lock);
        const State *state = shard.table.find(hash, key);
        return state ? *state : State{};
    }

    std::size_t sweep(Micros now) override
    {
        std::size_t dropped = 0;
        for (std::size_t i = 0; i < kShards; ++i) {
            std::lock_guard guard(m_shards[i].lock);
            dropped += shed(m_shards[i], now);
        }
        return dropped;
    }

    void addUsage(EngineUsage &usage) override
    {
        for (std::size_t i = 0; i < kShards; ++i) {
            std::lock_guard guard(m_shards[i].lock);
            usage.keys += m_shards[i].table.size();
            usage.bytes += m_shards[i].table.bytes();
        }
    }

private:
    static constexpr std::size_t kShards = 64;

    struct alignas(64) Shard {
        SpinLock lock;
        KeyTable<State> table;
    };

    Shard &shardOf(std::uint64_t hash) { return m_shards[hash >> 58]; }

    std::size_t shed(Shard &shard, Micros now)
    {
        const std::size_t dropped
            = shard.table.rebuild([&](const State &s) { return !isFresh(m_config, s, now); },
                [&](std::string_view k) { return hashKey(k, m_seed); });
        m_budget.release(dropped);
        return dropped;
    }

    State *insertFresh(Shard &shard, std::uint64_t hash, std::string_view key, Micros now)
    {
        if (!m_budget.tryTake()) {
            shed(shard, now);
            if (!m_budget.tryTake())
                return nullptr;
        }
        if (!shard.table.hasRoomForOne())
            shed(shard, now); // rebuilds larger, dropping keys that are fresh anyway
        return shard.table.insert(hash, key);
    }

    Decision tableFull(Micros now, std::int64_t cost) const
    {
        State fresh{};
        Decision d = qs::limiter::decide(m_config, fresh, now, cost); // for limit and window
        d.allowed = false;
        d.delay = 0;
        d.reason = Reason::KeyTableFull;
        m_budget.countDenial();
        return d;
    }

    const Config m_config;
    const AlgorithmConfig m_variant;
    const std::uint64_t m_seed;
    KeyBudget &m_budget;
    std::unique_ptr<Shard[]> m_shards;
};

} // namespace qs::limiter::detail
