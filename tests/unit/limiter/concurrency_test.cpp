// Several threads on ONE key with a shared manual clock: the engine must never admit more than
// the algorithm's bound for the time that passed (the over-admission bug class of limiters that
// read-modify-write without a lock, or let a lagging caller refund itself).
#include "limiter/engine/engine.h"

#include "trace.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

using namespace qs::limiter;
using qs::limiter::test::numbered;

namespace {

constexpr Micros kStart = 1'700'000'000LL * kMicrosPerSecond;
constexpr int kThreads = 4;
constexpr int kRequestsPerThread = 20'000;

struct Outcome {
    std::int64_t admitted = 0;
    Micros elapsed = 0;
};

Outcome hammer(const AlgorithmConfig &config)
{
    Engine engine;
    const RuleId rule = *engine.addRule(config).id;
    ManualClock clock(kStart);
    std::atomic<std::int64_t> admitted{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            std::int64_t mine = 0;
            for (int i = 0; i < kRequestsPerThread; ++i) {
                // Thread 0 moves time on; the others read it, sometimes a little late.
                if (t == 0 && i % 4 == 0)
                    clock.advance(50);
                mine += engine.acquire(rule, "client-1", clock.now(), 1).allowed ? 1 : 0;
            }
            admitted += mine;
        });
    }
    for (auto &th : threads)
        th.join();
    return {admitted.load(), clock.now() - kStart};
}

double perMicro(std::int64_t count, Micros period)
{
    return double(count) / double(period);
}

} // namespace

TEST(Concurrency, TokenBucketNeverOverAdmits)
{
    const Outcome o = hammer(TokenBucketConfig{50, Rate{1000, kMicrosPerSecond}});
    EXPECT_LE(double(o.admitted), 50 + perMicro(1000, kMicrosPerSecond) * double(o.elapsed));
    EXPECT_GE(o.admitted, 50); // it did admit: the test is not vacuous
}

TEST(Concurrency, GcraNeverOverAdmits)
{
    const Outcome o = hammer(GcraConfig{Rate{1000, kMicrosPerSecond}, 50});
    EXPECT_LE(double(o.admitted), 50 + perMicro(1000, kMicrosPerSecond) * double(o.elapsed));
    EXPECT_GE(o.admitted, 50);
}

TEST(Concurrency, LeakyBucketNeverOverAdmits)
{
    const Outcome o = hammer(LeakyBucketConfig{Rate{1000, kMicrosPerSecond}, 49, LeakMode::Police});
    EXPECT_LE(double(o.admitted), 50 + perMicro(1000, kMicrosPerSecond) * double(o.elapsed));
    EXPECT_GE(o.admitted, 50);
}

TEST(Concurrency, WindowsNeverOverAdmit)
{
    FixedWindowConfig fixed;
    fixed.limit = 100;
    fixed.window = 100'000;
    SlidingWindowLogConfig log;
    log.limit = 100;
    log.window = 100'000;
    SlidingWindowCounterConfig counter;
    counter.limit = 100;
    counter.window = 100'000;

    const Outcome f = hammer(fixed);
    EXPECT_LE(f.admitted, 100 * (f.elapsed / fixed.window + 1));
    const Outcome l = hammer(log);
    EXPECT_LE(l.admitted, 100 * (l.elapsed / log.window + 1));
    const Outcome c = hammer(counter);
    EXPECT_LE(c.admitted, 100 * (c.elapsed / counter.window + 1));
    EXPECT_GE(f.admitted, 100);
    EXPECT_GE(l.admitted, 100);
    EXPECT_GE(c.admitted, 100);
}

TEST(Concurrency, DistinctKeysFromManyThreadsAreAllStored)
{
    Engine engine;
    const RuleId rule = *engine.addRule(GcraConfig{Rate{1, kMicrosPerSecond}, 1}).id;
    std::vector<std::thread> threads;
    std::atomic<int> admitted{0};
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 5000; ++i)
                admitted
                    += engine.acquire(rule, numbered("t", t) + numbered("-", i), kStart, 1).allowed;
        });
    for (auto &th : threads)
        th.join();
    EXPECT_EQ(admitted.load(), kThreads * 5000);
    EXPECT_EQ(engine.usage().keys, std::size_t(kThreads * 5000));
}

TEST(Concurrency, HotKeysKeepTheirStateWhileOtherThreadsInsertAndSweep)
{
    // Readers take the lock-free path on existing keys while a writer inserts thousands of new
    // keys (forcing rebuilds of every shard) and sweeps. A rebuild that lost or duplicated a
    // state would refill a hot key's bucket and admit more than its capacity.
    Engine engine;
    const RuleId rule = *engine.addRule(TokenBucketConfig{5, Rate{1, kMicrosPerHour}}).id;
    constexpr int kHotKeys = 100;
    std::atomic<bool> stop{false};
    std::vector<std::atomic<int>> admitted(kHotKeys);
    std::vector<std::thread> readers;
    for (int t = 0; t < 3; ++t)
        readers.emplace_back([&, t] {
            for (int i = 0; !stop.load(std::memory_order_relaxed); ++i) {
                const int k = (i * 7 + t) % kHotKeys;
                if (engine.acquire(rule, numbered("hot-", k), kStart).allowed)
                    ++admitted[std::size_t(k)];
            }
        });
    std::thread writer([&] {
        for (int i = 0; i < 60'000; ++i) {
            engine.acquire(rule, numbered("new-client-with-a-long-key-", i), kStart);
            if (i % 10'000 == 0)
                engine.sweep(kStart);
        }
        stop = true;
    });
    writer.join();
    for (auto &r : readers)
        r.join();
    for (int k = 0; k < kHotKeys; ++k) { // drain what is left: the total must be the capacity
        for (int i = 0; i < 6; ++i)
            admitted[std::size_t(k)] += engine.acquire(rule, numbered("hot-", k), kStart).allowed;
        EXPECT_EQ(admitted[std::size_t(k)].load(), 5) << "hot key " << k;
    }
    EXPECT_EQ(engine.usage().keys, std::size_t(60'000 + kHotKeys));
}

TEST(Concurrency, NewKeysRacedByManyThreadsAreStoredOnce)
{
    // Each thread keeps the keys it inserts in a lane of its own; a key that several threads
    // meet at once must still get one entry, found by all, or it would admit once per copy.
    Engine engine;
    const RuleId rule = *engine.addRule(GcraConfig{Rate{1, kMicrosPerHour}, 1}).id;
    constexpr int kKeys = 4000;
    std::atomic<int> admitted{0};
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            ++ready;
            while (ready.load() < kThreads) { } // start together: the inserts race
            for (int i = 0; i < kKeys; ++i) {
                const int k = t % 2 ? kKeys - 1 - i : i; // half the threads walk backwards
                admitted += engine.acquire(rule, numbered("shared-", k), kStart, 1).allowed;
            }
        });
    for (auto &th : threads)
        th.join();
    EXPECT_EQ(admitted.load(), kKeys);
    EXPECT_EQ(engine.usage().keys, std::size_t(kKeys));
    for (int k = 0; k < kKeys; k += 97) // and every thread's entry is the same one
        EXPECT_FALSE(engine.acquire(rule, numbered("shared-", k), kStart, 1).allowed) << k;
}

TEST(Concurrency, SweepReachesTheKeysOfEveryThread)
{
    Engine engine;
    const RuleId rule = *engine.addRule(TokenBucketConfig{5, Rate{1, kMicrosPerSecond}}).id;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 1000; ++i)
                engine.acquire(rule, numbered("t", t) + numbered("-", i), kStart, 1);
        });
    for (auto &th : threads)
        th.join();
    ASSERT_EQ(engine.usage().keys, std::size_t(kThreads * 1000));
    EXPECT_EQ(engine.sweep(kStart + kMicrosPerSecond / 2), 0u); // not refilled yet: all kept
    EXPECT_EQ(engine.sweep(kStart + 10 * kMicrosPerSecond), std::size_t(kThreads * 1000));
    EXPECT_EQ(engine.usage().keys, 0u);
}
