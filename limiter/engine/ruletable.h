#pragma once
// One rule's keyed states: 64 shards, each a KeyTable per lane. Internal to the engine.
//
// Lanes: a key lives in the lane of the thread that inserted it (the thread's registry number
// modulo kLanes), and a lookup looks in the caller's lane first. Threads deciding on distinct
// keys, as a gateway's workers do for their own connections' clients, then write only memory of
// their own lanes. Sharing costs far beyond a cache line: on the development VM, whenever the
// host puts the two vCPUs on cores that do not share a cache, two threads writing random lines
// of one array, each only its own lines, ran 0.4-0.7x as fast as one when their lines
// alternated in 64-byte blocks, at most 1.4x in 256-byte blocks, and 2x only when each owned
// whole 4 KB pages (docs/benchmarks.md). No layout of one table keeps two threads' random keys in
// separate pages; a table per lane does. The price: a key inserted by another thread costs a look
// into the caller's lane first (with large tables, a second cache miss).
//
// Hot path (the key exists): the thread announces itself in its own registry line, finds the
// slot without any shared lock and locks only that slot, which sits in the cache line the lookup
// fetched anyway.
// Slow path (a new key, a shard being rebuilt, or a thread without a registry line): the
// shard's lock, which serialises inserts and rebuilds in all its lanes (so a key that two
// threads meet at once is inserted once); rebuilds also wait until no reader is inside the
// shard (ReaderRegistry).
#include "limiter/algorithms/algorithm.h"
#include "limiter/engine/engine.h"
#include "limiter/engine/keybudget.h"
#include "limiter/engine/keyhash.h"
#include "limiter/engine/keytable.h"
#include "limiter/engine/limitpair.h"
#include "limiter/engine/readerregistry.h"
#include "limiter/engine/spinlock.h"

#include <cstring>
#include <mutex>
#include <new>
#include <span>
#include <type_traits>

namespace qs::limiter::detail {

// Lanes per shard: threads beyond this many share lanes.
inline constexpr std::size_t kLanes = 4;

// One limit of a request whose slot stays locked while the request's other limits decide
// (Engine::acquireAll), and what giving its decision back needs.
struct HeldLimit {
    // Room for a copy of any state but the sliding log's (whose give-back needs none); a pair
    // rule (two limits' states) is the largest.
    static constexpr std::size_t kBeforeBytes = sizeof(LimitPairState);

    // All set by hold() (no initialisers: the engine keeps 16 of these on its stack per call).
    void *slot; // locked; nullptr when the key could not be stored (table full)
    std::atomic<const void *> *announced; // the reader entry keeping the slot in place
    SpinLock *shardLock; // or the shard's lock, held (a thread without an entry)
    alignas(8) unsigned char before[kBeforeBytes];
};

class RuleTableBase {
public:
    virtual ~RuleTableBase() = default;
    virtual const AlgorithmConfig &config() const = 0;
    virtual Decision acquire(std::string_view key, Micros now, std::int64_t cost) = 0;
    virtual void acquireBatch(std::span<const std::string_view> keys, Micros now, std::int64_t cost,
        std::span<Decision> out)
        = 0;
    // Several limits (Engine::acquireAll): hash and prefetch a key, then hold its slot and
    // decide, then release it, giving the decision back when the request was denied.
    virtual std::uint64_t prefetch(std::string_view key, std::size_t lane) = 0;
    virtual void hold(std::uint64_t hash, std::string_view key, std::size_t lane, std::size_t entry,
        Micros now, std::int64_t cost, HeldLimit &held, Decision &out)
        = 0;
    virtual void release(HeldLimit &held, bool giveBack, std::int64_t cost) = 0;
    // A rule of two limits on one key (limitpair.h): both decided in one slot. Refused
    // (Reason::InvalidRule) by a rule of one limit.
    virtual SetDecision acquirePair(std::string_view key, Micros now, std::span<Decision, 2> out)
        = 0;
    virtual Quota peek(std::string_view key, Micros now) = 0;
    virtual AlgorithmState state(std::string_view key) = 0;
    virtual std::size_t sweep(Micros now) = 0;
    virtual void addUsage(EngineUsage &usage) = 0;
};

template <class Config>
class RuleTable final : public RuleTableBase {
    static constexpr bool kIsPair = std::is_same_v<Config, LimitPairConfig>;
    using State = StateFor_t<Config>;
    using Table = KeyTable<State>;
    using Slot = typename Table::Slot;

    static constexpr std::size_t kShards = 64;

    struct alignas(64) Shard {
        SpinLock lock; // inserts and rebuilds, in every lane
        std::atomic<bool> rebuilding{false}; // readers back off to the lock while set
        // Bit i: lane i holds keys. Written under the lock; readers take it as a hint (a stale
        // value sends them to the locked path, which looks everywhere).
        std::atomic<std::uint8_t> lanesInUse{0};
        Table lanes[kLanes];
    };

public:
    RuleTable(
        const Config &config, std::uint64_t seed, KeyBudget &budget, const ReaderRegistry &readers)
        : m_config(config), m_variant(variantOf(config)), m_seed(seed), m_budget(budget),
          m_readers(readers), m_shards(std::make_unique<Shard[]>(kShards))
    {
    }

    // A pair's is its first limit's.
    const AlgorithmConfig &config() const override { return m_variant; }

    // Flattened: the hot path as one function, without the register saves of five call levels
    // (instructions per decision before and after: docs/benchmarks.md). With tables larger than the
    // cache, a decision waits for one cache miss, and the fewer instructions follow it, the sooner
    // the next call's miss starts while this one is still under way (docs/benchmarks.md).
    [[gnu::flatten]] Decision acquire(std::string_view key, Micros now, std::int64_t cost) override
    {
        const std::uint64_t hash = hashKey(key, m_seed);
        const std::size_t lane = ReaderRegistry::laneOfThisThread(kLanes);
        shardOf(hash).lanes[lane].prefetch(hash);
        return acquireHashed(hash, key, lane, now, cost);
    }

    void acquireBatch(std::span<const std::string_view> keys, Micros now, std::int64_t cost,
        std::span<Decision> out) override
    {
        // Hash and prefetch a group ahead, then decide: up to kGroup slot misses in flight.
        constexpr std::size_t kGroup = 16;
        const std::size_t lane = ReaderRegistry::laneOfThisThread(kLanes);
        std::uint64_t hashes[kGroup];
        for (std::size_t start = 0; start < keys.size(); start += kGroup) {
            const std::size_t n = std::min(kGroup, keys.size() - start);
            for (std::size_t i = 0; i < n; ++i) {
                hashes[i] = hashKey(keys[start + i], m_seed);
                shardOf(hashes[i]).lanes[lane].prefetch(hashes[i]);
            }
            for (std::size_t i = 0; i < n; ++i)
                out[start + i] = acquireHashed(hashes[i], keys[start + i], lane, now, cost);
        }
    }

    SetDecision acquirePair(std::string_view key, Micros now, std::span<Decision, 2> out) override
    {
        if constexpr (!kIsPair) {
            SetDecision refused;
            refused.allowed = refused.decision.allowed = false;
            refused.decision.reason = Reason::InvalidRule;
            return refused;
        } else {
            const std::uint64_t hash = hashKey(key, m_seed);
            const std::size_t lane = ReaderRegistry::laneOfThisThread(kLanes);
            Shard &shard = shardOf(hash);
            shard.lanes[lane].prefetch(hash);
            {
                ReaderScope reader(m_readers, shard);
                if (reader.entered())
                    if (Slot *slot = find(shard, hash, key, lane))
                        return decidePairLocked(*slot, now, out);
            }
            std::lock_guard guard(shard.lock);
            Slot *slot = find(shard, hash, key, lane);
            if (!slot)
                slot = insertFresh(shard, lane, hash, key, now);
            if (slot)
                return decidePairLocked(*slot, now, out);
            State fresh{};
            SetDecision full = decidePair(m_config, fresh, now, 1, out);
            for (Decision &d : out) {
                d.allowed = false;
                d.reason = Reason::KeyTableFull;
            }
            full.allowed = full.decision.allowed = false;
            full.decision.reason = Reason::KeyTableFull;
            m_budget.countDenial();
            return full;
        }
    }

    std::uint64_t prefetch(std::string_view key, std::size_t lane) override
    {
        const std::uint64_t hash = hashKey(key, m_seed);
        shardOf(hash).lanes[lane].prefetch(hash);
        return hash;
    }

    // Locks the key's slot and decides, leaving it locked and kept in place (a reader entry of
    // its own, or the shard's lock) until release(). Slots are held in rule order by every
    // caller, so two requests that hold slots of the same rules never wait for each other in a
    // cycle; a rebuild that waits for this thread to leave a shard waits for a thread that only
    // waits for rules after that shard's.
    // The decision goes straight to `out` (decideHeld() says why).
    [[gnu::flatten]] void hold(std::uint64_t hash, std::string_view key, std::size_t lane,
        std::size_t entry, Micros now, std::int64_t cost, HeldLimit &held, Decision &out) override
    {
        held.slot = nullptr;
        held.announced = nullptr;
        held.shardLock = nullptr;
        Shard &shard = shardOf(hash);
        if (auto *announced = enterShard(m_readers, shard, entry)) {
            if (Slot *slot = find(shard, hash, key, lane)) {
                held.announced = announced;
                decideHeld(*slot, now, cost, held, out);
                return;
            }
            leaveShard(announced);
        }
        holdLocked(shard, hash, key, lane, entry, now, cost, held, out);
    }

    void release(HeldLimit &held, bool giveBack, std::int64_t cost) override
    {
        if (!held.slot)
            return;
        auto &slot = *static_cast<Slot *>(held.slot);
        if (giveBack) {
            // The rule of limitset.cpp: a sliding log drops the entries the admission appended
            // (nothing after them was removed); any other state returns to its copy.
            if constexpr (std::is_same_v<State, SlidingWindowLogState>)
                slot.state.stamps.resize(slot.state.stamps.size() - std::size_t(cost));
            else
                std::memcpy(&slot.state, held.before, sizeof(State));
        }
        slot.unlock();
        leaveShard(held.announced);
        if (held.shardLock)
            held.shardLock->unlock();
    }

private:
    // hold()'s slow path (a new key, a shard being rebuilt, a thread without entries), out of
    // line so that flattening hold() leaves it out.
    [[gnu::noinline]] void holdLocked(Shard &shard, std::uint64_t hash, std::string_view key,
        std::size_t lane, std::size_t entry, Micros now, std::int64_t cost, HeldLimit &held,
        Decision &out)
    {
        shard.lock.lock();
        Slot *slot = find(shard, hash, key, lane);
        if (!slot)
            slot = insertFresh(shard, lane, hash, key, now);
        if (!slot) {
            shard.lock.unlock();
            out = tableFull(now, cost);
            return;
        }
        // Under the lock no rebuild is under way, so the entry is taken, and keeps the slot in
        // place once the lock goes; a thread without entries keeps the lock instead.
        if ((held.announced = enterShard(m_readers, shard, entry)))
            shard.lock.unlock();
        else
            held.shardLock = &shard.lock;
        decideHeld(*slot, now, cost, held, out);
    }

    void decideHeld(Slot &slot, Micros now, std::int64_t cost, HeldLimit &held, Decision &out)
    {
        slot.lock();
        if constexpr (!std::is_same_v<State, SlidingWindowLogState>) {
            static_assert(std::is_trivially_copyable_v<State>);
            static_assert(sizeof(State) <= HeldLimit::kBeforeBytes);
            std::memcpy(held.before, &slot.state, sizeof(State));
        }
        held.slot = &slot;
        // Built in place: `out = decide(...)` copied a temporary with wider loads than decide()
        // stored it with, a store-forwarding stall that cost a third of the call.
        static_assert(std::is_trivially_destructible_v<Decision>);
        ::new (static_cast<void *>(&out)) Decision(decide(m_config, slot.state, now, cost));
    }

    Decision acquireHashed(
        std::uint64_t hash, std::string_view key, std::size_t lane, Micros now, std::int64_t cost)
    {
        Shard &shard = shardOf(hash);
        {
            ReaderScope reader(m_readers, shard);
            if (reader.entered())
                if (Slot *slot = find(shard, hash, key, lane))
                    return decideLocked(*slot, now, cost);
        }
        return acquireLocked(shard, hash, key, lane, now, cost);
    }

    // The slow path, out of line so that flattening acquire() leaves it out.
    [[gnu::noinline]] Decision acquireLocked(Shard &shard, std::uint64_t hash, std::string_view key,
        std::size_t lane, Micros now, std::int64_t cost)
    {
        std::lock_guard guard(shard.lock);
        Slot *slot = find(shard, hash, key, lane);
        if (!slot)
            slot = insertFresh(shard, lane, hash, key, now);
        if (!slot)
            return tableFull(now, cost);
        return decideLocked(*slot, now, cost);
    }

    // The key's slot in whichever lane holds it, looking in `first` first. With keys in one lane
    // only (one thread, or all keys met by one) that is one lookup; otherwise the lanes' filters
    // spare a cache miss in each lane that does not hold the key.
    static Slot *find(Shard &shard, std::uint64_t hash, std::string_view key, std::size_t first)
    {
        const unsigned inUse = shard.lanesInUse.load(std::memory_order_relaxed);
        if (inUse == 1u << first)
            return shard.lanes[first].find(hash, key);
        for (std::size_t n = 0; n < kLanes; ++n) {
            const std::size_t i = (first + n) % kLanes;
            if ((inUse >> i & 1) && shard.lanes[i].mayContain(hash))
                if (Slot *slot = shard.lanes[i].find(hash, key))
                    return slot;
        }
        return nullptr;
    }

public:
    Quota peek(std::string_view key, Micros now) override
    {
        return withState(key, [&](const State &s) { return qs::limiter::peek(m_config, s, now); });
    }

    // A pair's: its first limit's.
    AlgorithmState state(std::string_view key) override
    {
        if constexpr (kIsPair)
            return withState(key, [this](const State &s) { return stateOf(m_config, s, 0); });
        else
            return withState(key, [](const State &s) { return AlgorithmState(s); });
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
            for (const Table &t : m_shards[i].lanes) {
                usage.keys += t.size();
                usage.bytes += t.bytes();
            }
        }
    }

private:
    Shard &shardOf(std::uint64_t hash) { return m_shards[hash >> 58]; }

    static AlgorithmConfig variantOf(const Config &config)
    {
        if constexpr (kIsPair)
            return config.limits[0];
        else
            return config;
    }

    SetDecision decidePairLocked(Slot &slot, Micros now, std::span<Decision, 2> out)
    {
        slot.lock();
        const SetDecision d = decidePair(m_config, slot.state, now, 1, out);
        slot.unlock();
        return d;
    }

    Decision decideLocked(Slot &slot, Micros now, std::int64_t cost)
    {
        slot.lock();
        const Decision d = decide(m_config, slot.state, now, cost);
        slot.unlock();
        return d;
    }

    // Runs f on a copy-free view of the key's state (a fresh one when absent), under locks.
    template <class F>
    auto withState(std::string_view key, F &&f)
    {
        const std::uint64_t hash = hashKey(key, m_seed);
        Shard &shard = shardOf(hash);
        std::lock_guard guard(shard.lock); // no rebuild while we hold the slot
        Slot *slot = find(shard, hash, key, 0);
        if (!slot)
            return f(State{});
        slot->lock();
        auto result = f(slot->state);
        slot->unlock();
        return result;
    }

    // Rebuilds the shard's lanes that hold keys (or only lane `only`) without their fresh keys,
    // making room in `only` for `pendingKey`. Caller holds shard.lock.
    std::size_t shed(
        Shard &shard, Micros now, std::size_t only = kLanes, std::string_view pendingKey = {})
    {
        shard.rebuilding.store(true, std::memory_order_seq_cst);
        m_readers.waitUntilNoneIn(&shard);
        std::size_t dropped = 0;
        for (std::size_t i = 0; i < kLanes; ++i)
            if (i == only || (only == kLanes && shard.lanes[i].size() > 0))
                dropped += shard.lanes[i].rebuild(
                    [&](const State &s) { return !isFresh(m_config, s, now); },
                    [&](std::string_view k) { return hashKey(k, m_seed); },
                    i == only ? pendingKey : std::string_view{});
        std::uint8_t inUse = 0;
        for (std::size_t i = 0; i < kLanes; ++i)
            inUse |= std::uint8_t((shard.lanes[i].size() > 0 ? 1u : 0u) << i);
        shard.lanesInUse.store(inUse, std::memory_order_relaxed);
        shard.rebuilding.store(false, std::memory_order_release);
        m_budget.release(dropped);
        return dropped;
    }

    Slot *insertFresh(
        Shard &shard, std::size_t lane, std::uint64_t hash, std::string_view key, Micros now)
    {
        if (!m_budget.tryTake()) {
            shed(shard, now);
            if (!m_budget.tryTake())
                return nullptr;
        }
        Table &table = shard.lanes[lane];
        if (table.needsRebuild(key))
            shed(shard, now, lane, key); // rebuilds larger, dropping keys that are fresh anyway
        Slot *slot = table.insert(hash, key);
        shard.lanesInUse.store(
            std::uint8_t(shard.lanesInUse.load(std::memory_order_relaxed) | 1u << lane),
            std::memory_order_relaxed);
        return slot;
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
    const ReaderRegistry &m_readers;
    std::unique_ptr<Shard[]> m_shards;
};

} // namespace qs::limiter::detail
