// Limiter benchmarks: decide() per algorithm, the engine's acquire at 1 / 100k / 1M keys, two
// threads vs one on distinct keys (against two references: private arrays, and an engine per
// thread) and on keys both threads use, a naive baseline (std::mutex +
// std::unordered_map<std::string, state>) in the same run, heap allocations per decision and
// measured heap bytes per key at 1M keys. One more reference shows why the engine gives each
// thread a lane of its own: two threads writing their own lines of one shared array.
// Benchmark thread i runs pinned to the i-th CPU (cpupin.h says why), and the summary prints
// how far apart the two CPUs were, before and after the run.
//
//   cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DQS_BENCH=ON
//   cmake --build build-bench --target limiter_bench && build-bench/tests/bench/limiter_bench
#include "cpupin.h"
#include "keyset.h"
#include "limiter/engine/engine.h"
#include "limiter/engine/plantable.h"
#include "memoryprobe.h"
#include "pointerchase.h"
#include "ratioreporter.h"

#include <benchmark/benchmark.h>

#include <array>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <type_traits>
#include <unordered_map>

using namespace qs::limiter;

// Counting allocator hooks: "no heap allocation on the hot path" is checked, not assumed.
// GCC cannot see that new and delete are replaced together and warns about free() below.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
std::atomic<std::uint64_t> g_allocations{0};
}
void *operator new(std::size_t n)
{
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void *p = std::malloc(n ? n : 1))
        return p;
    throw std::bad_alloc();
}
void operator delete(void *p) noexcept
{
    std::free(p);
}
void operator delete(void *p, std::size_t) noexcept
{
    std::free(p);
}

namespace {

constexpr Micros kStart = 1'700'000'000LL * kMicrosPerSecond;

// One request per µs against a limit of about that rate: the admitting path, which writes state.
TokenBucketConfig tokenBucket()
{
    return {1000, Rate{1'000'000, kMicrosPerSecond}};
}
GcraConfig gcra()
{
    return {Rate{1'000'000, kMicrosPerSecond}, 1000};
}
LeakyBucketConfig leakyBucket()
{
    return {Rate{1'000'000, kMicrosPerSecond}, 1000, LeakMode::Shape};
}
FixedWindowConfig fixedWindow()
{
    FixedWindowConfig c;
    c.limit = 1'000'000;
    c.window = kMicrosPerSecond;
    return c;
}
// The same limit counted in calendar months in Berlin (issue 43, point 7: the calendar adds no
// system call per decision; its window is cached until it ends).
FixedWindowConfig calendarMonth()
{
    FixedWindowConfig c = fixedWindow();
    std::string why;
    c.calendar = std::make_shared<const CalendarWindows>(
        CalendarUnit::Month, calendar::TimeZone::load("Europe/Berlin", why));
    c.window = nominalLength(CalendarUnit::Month);
    c.limit = kMaxCount; // admits every call, as the rolling reference does: the same path
    return c;
}
// Calendar days in Havana with the clock advancing an hour per call: a new window every 24
// calls, so the boundaries are computed again and again (the uncached worst case).
void BM_Decide_FixedWindowCalendarNewDays(benchmark::State &st)
{
    FixedWindowConfig c = fixedWindow();
    std::string why;
    c.calendar = std::make_shared<const CalendarWindows>(
        CalendarUnit::Day, calendar::TimeZone::load("America/Havana", why));
    FixedWindowState s{};
    Micros now = kStart;
    for (auto _ : st) {
        benchmark::DoNotOptimize(decide(c, s, now, 1));
        now += kMicrosPerHour;
    }
    st.SetItemsProcessed(st.iterations());
}

SlidingWindowCounterConfig slidingCounter()
{
    SlidingWindowCounterConfig c;
    c.limit = 1'000'000;
    c.window = kMicrosPerSecond;
    return c;
}
SlidingWindowLogConfig slidingLog()
{
    SlidingWindowLogConfig c;
    c.limit = 1000;
    c.window = 1000;
    return c;
}

template <class Config>
void decideLoop(benchmark::State &st, Config config)
{
    StateFor_t<Config> s{};
    Micros now = kStart;
    std::int64_t admitted = 0;
    for (auto _ : st) {
        const Decision d = decide(config, s, now, 1);
        admitted += d.allowed;
        benchmark::DoNotOptimize(d);
        ++now;
    }
    st.SetItemsProcessed(st.iterations());
    st.counters["admitted"] = double(admitted) / double(st.iterations());
}

void BM_Decide_TokenBucket(benchmark::State &st)
{
    decideLoop(st, tokenBucket());
}
void BM_Decide_Gcra(benchmark::State &st)
{
    decideLoop(st, gcra());
}
void BM_Decide_LeakyBucket(benchmark::State &st)
{
    decideLoop(st, leakyBucket());
}
void BM_Decide_FixedWindow(benchmark::State &st)
{
    decideLoop(st, fixedWindow());
}
void BM_Decide_FixedWindowCalendar(benchmark::State &st)
{
    decideLoop(st, calendarMonth());
}
void BM_Decide_SlidingWindowCounter(benchmark::State &st)
{
    decideLoop(st, slidingCounter());
}
void BM_Decide_SlidingWindowLog(benchmark::State &st)
{
    decideLoop(st, slidingLog());
}
BENCHMARK(BM_Decide_TokenBucket);
BENCHMARK(BM_Decide_Gcra);
BENCHMARK(BM_Decide_LeakyBucket);
BENCHMARK(BM_Decide_FixedWindow);
BENCHMARK(BM_Decide_FixedWindowCalendar);
BENCHMARK(BM_Decide_FixedWindowCalendarNewDays);
BENCHMARK(BM_Decide_SlidingWindowCounter);
BENCHMARK(BM_Decide_SlidingWindowLog);

// The baseline everybody writes first.
class NaiveLimiter {
public:
    explicit NaiveLimiter(TokenBucketConfig c) : m_config(c) { }
    Decision acquire(std::string_view key, Micros now, std::int64_t cost)
    {
        std::lock_guard lock(m_mutex);
        return decide(m_config, m_states[std::string(key)], now, cost);
    }
    std::size_t size() const { return m_states.size(); }

private:
    TokenBucketConfig m_config;
    std::mutex m_mutex;
    std::unordered_map<std::string, TokenBucketState> m_states;
};

// Who inserted the fixture's keys into its engine: the thread that builds it, before the run,
// or each of two benchmark threads, either its own half (a slice) or every other key.
enum class Met { BeforeTheRun, BySlice, Alternately };

struct Fixture {
    qs::bench::PackedKeys keys;
    Engine engine;
    RuleId rule = 0;
    NaiveLimiter naive{tokenBucket()};
    std::once_flag met[2]; // threaded fixtures: thread i has met its keys

    // A fixture for one thread has every key in its engine already (the timed loop measures
    // lookups); one for threads starts empty, and each thread meets its own keys first.
    Fixture(std::size_t n, Met met) : keys(qs::bench::makeKeys(n))
    {
        rule = *engine.addRule(tokenBucket()).id;
        if (met != Met::BeforeTheRun)
            return;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            engine.acquire(rule, keys[i], kStart);
            naive.acquire(keys[i], kStart, 1);
        }
    }
};

// One object per key for the whole process, built by the first thread that asks for it:
// every thread of a multi-threaded benchmark asks before its timed loop.
template <class T, class Key, class Make>
T &sharedBy(const Key &key, Make &&make)
{
    static std::mutex mutex;
    static std::map<Key, std::unique_ptr<T>> objects;
    std::lock_guard lock(mutex);
    auto &o = objects[key];
    if (!o)
        o = make();
    return *o;
}

Fixture &fixture(std::size_t n, Met met = Met::BeforeTheRun)
{
    return sharedBy<Fixture>(std::pair{n, met}, [&] { return std::make_unique<Fixture>(n, met); });
}

// The keys thread `index` of `threads` decides on: threads never share a key.
struct Slice {
    std::size_t begin, size;
};
Slice sliceOf(std::size_t keys, std::size_t threads, std::size_t index)
{
    const std::size_t size = std::max<std::size_t>(1, keys / threads);
    return {keys == 1 ? 0 : size * index, size};
}

// Runs of two threads decide on a fixture of their own in whose engine each thread inserted
// its keys, as a gateway's worker meets its clients' keys first: a key lives in the lane of the
// thread that inserted it (limiter/ruletable.h).
Fixture &fixtureFor(benchmark::State &st, std::size_t keys, Met met)
{
    if (st.threads() == 1)
        return fixture(keys);
    Fixture &f = fixture(keys, met);
    const auto index = std::size_t(st.thread_index());
    std::call_once(f.met[index % 2], [&] {
        if (met == Met::Alternately) {
            for (std::size_t i = index; i < keys; i += 2)
                f.engine.acquire(f.rule, f.keys[i], kStart);
            return;
        }
        const Slice slice = sliceOf(keys, std::size_t(st.threads()), index);
        for (std::size_t i = slice.begin; i < slice.begin + slice.size; ++i)
            f.engine.acquire(f.rule, f.keys[i], kStart);
    });
    return f;
}

// Draws keys of `slice` at random and decides each with `decide(key, now)` (or `decide(key, now,
// index)`, the key's index in `keys`), one request per µs.
template <class Decide>
void pickLoop(benchmark::State &st, const qs::bench::PackedKeys &keys, Slice slice, Decide &&decide)
{
    qs::bench::RandomPick pick(slice.begin, slice.size, 11 + std::uint64_t(st.thread_index()));
    // A gateway holds the key of the request it decides in cache (it has just parsed it). The
    // benchmark draws keys a few requests ahead and touches them, so that it measures the
    // engine's lookups and not its own million-key array.
    constexpr std::size_t kAhead = 8;
    std::size_t queue[kAhead];
    for (auto &q : queue)
        q = pick.next();
    Micros now = kStart + 1'000'000;
    std::size_t i = 0;
    for (auto _ : st) {
        const std::size_t k = queue[i % kAhead];
        queue[i % kAhead] = pick.next();
        __builtin_prefetch(keys.record(queue[i % kAhead]));
        if constexpr (std::is_invocable_v<Decide, std::string_view, Micros, std::size_t>)
            benchmark::DoNotOptimize(decide(keys[k], now, k));
        else
            benchmark::DoNotOptimize(decide(keys[k], now));
        ++i;
        ++now;
    }
    st.SetItemsProcessed(st.iterations());
}

// Plans (issue 43, point 7): a route whose limit differs by plan, the plan found from the API
// key in a map of 10 000 keys (PlanTable), then that plan's rule decides on the key. The
// reference is the same decision on the same keys without the lookup.
struct PlannedFixture {
    static constexpr std::size_t kKeys = 10'000;
    qs::bench::PackedKeys keys{qs::bench::makeKeys(kKeys, 43)};
    Engine engine;
    PlanTable plans;
    std::array<RuleId, 3> rules{}; // one per plan: each holds its plan's clients
    RuleId unplanned = 0; // the reference: one rule holds every client

    PlannedFixture()
    {
        for (std::size_t p = 0; p < rules.size(); ++p)
            rules[p] = *engine
                            .addRule(TokenBucketConfig{
                                1000 * std::int64_t(p + 1), Rate{1'000'000, kMicrosPerSecond}})
                            .id;
        unplanned = *engine.addRule(tokenBucket()).id;
        for (std::size_t i = 0; i < kKeys; ++i) {
            plans.insert(keys[i], PlanTable::Plan(i % rules.size()));
            engine.acquire(rules[i % rules.size()], keys[i], kStart);
            engine.acquire(unplanned, keys[i], kStart);
        }
    }
};

PlannedFixture &plannedFixture()
{
    static PlannedFixture f;
    return f;
}

void BM_EngineWithoutPlans(benchmark::State &st)
{
    PlannedFixture &f = plannedFixture();
    pickLoop(st, f.keys, Slice{0, PlannedFixture::kKeys},
        [&](std::string_view key, Micros now) { return f.engine.acquire(f.unplanned, key, now); });
}
void BM_EngineWithPlans(benchmark::State &st)
{
    PlannedFixture &f = plannedFixture();
    pickLoop(st, f.keys, Slice{0, PlannedFixture::kKeys}, [&](std::string_view key, Micros now) {
        const PlanTable::Plan plan = f.plans.find(key);
        return f.engine.acquire(f.rules[plan == PlanTable::kNoPlan ? 0 : plan], key, now);
    });
}
// The planned decision with the plan known without a lookup (the fixture puts key i on plan
// i mod 3): what three rules cost against one, apart from the lookup.
void BM_EngineKnownPlans(benchmark::State &st)
{
    PlannedFixture &f = plannedFixture();
    pickLoop(st, f.keys, Slice{0, PlannedFixture::kKeys},
        [&](std::string_view key, Micros now, std::size_t index) {
            return f.engine.acquire(f.rules[index % f.rules.size()], key, now);
        });
}
void BM_PlanLookup(benchmark::State &st)
{
    PlannedFixture &f = plannedFixture();
    pickLoop(st, f.keys, Slice{0, PlannedFixture::kKeys},
        [&](std::string_view key, Micros) { return f.plans.find(key); });
}
BENCHMARK(BM_EngineWithoutPlans);
BENCHMARK(BM_EngineWithPlans);
BENCHMARK(BM_EngineKnownPlans);
BENCHMARK(BM_PlanLookup);

// `shared`: every thread draws from all the keys, which both threads inserted alternately (a
// gateway whose requests reach any worker); otherwise each thread draws from its own slice.
template <class Acquire>
void acquireLoop(benchmark::State &st, std::size_t keys, Acquire &&acquire, bool shared = false)
{
    const qs::bench::CpuPin pin(st.thread_index());
    const Slice slice = shared
        ? Slice{0, keys}
        : sliceOf(keys, std::size_t(st.threads()), std::size_t(st.thread_index()));
    Fixture &f = fixtureFor(st, keys, shared ? Met::Alternately : Met::BySlice);
    pickLoop(
        st, f.keys, slice, [&](std::string_view key, Micros now) { return acquire(f, key, now); });
}

void BM_Engine(benchmark::State &st)
{
    acquireLoop(st, std::size_t(st.range(0)), [](Fixture &f, std::string_view k, Micros now) {
        return f.engine.acquire(f.rule, k, now, 1);
    });
}
// Two threads on keys that either thread may have inserted: half of the lookups start in the
// wrong lane. Not "distinct keys": a reference for what lanes cost without key affinity.
void BM_EngineAnyThread(benchmark::State &st)
{
    acquireLoop(
        st, std::size_t(st.range(0)),
        [](Fixture &f, std::string_view k, Micros now) {
            return f.engine.acquire(f.rule, k, now, 1);
        },
        true);
}
void BM_Naive(benchmark::State &st)
{
    acquireLoop(st, std::size_t(st.range(0)),
        [](Fixture &f, std::string_view k, Micros now) { return f.naive.acquire(k, now, 1); });
}
// Batches of 16 decisions through Engine::acquire(rule, keys, ...): the lookups' cache misses
// overlap. Reported per decision.
void BM_EngineBatch(benchmark::State &st)
{
    Fixture &f = fixture(std::size_t(st.range(0)));
    const qs::bench::CpuPin pin(st.thread_index()); // where the one-by-one runs decide
    qs::bench::RandomPick pick(0, f.keys.size(), 11);
    constexpr std::size_t kBatch = 16;
    std::string_view keys[kBatch];
    Decision out[kBatch];
    Micros now = kStart + 1'000'000;
    for (auto _ : st) {
        for (auto &k : keys)
            k = f.keys[pick.next()];
        f.engine.acquire(f.rule, keys, now++, 1, out);
        benchmark::DoNotOptimize(out);
    }
    st.SetItemsProcessed(st.iterations() * std::int64_t(kBatch));
}

// A route with two limits (a token bucket and a fixed window, both keyed by the client) in an
// engine whose two rules hold the same keys: one request decides both through acquireAll(),
// against one limit of the same engine and two separate acquire() calls.
struct TwoLimitFixture {
    qs::bench::PackedKeys keys;
    Engine engine;
    RuleId burst = *engine.addRule(tokenBucket()).id;
    RuleId window = *engine.addRule(fixedWindow()).id;

    explicit TwoLimitFixture(std::size_t n) : keys(qs::bench::makeKeys(n))
    {
        for (std::size_t i = 0; i < keys.size(); ++i) {
            engine.acquire(burst, keys[i], kStart);
            engine.acquire(window, keys[i], kStart);
        }
    }
    SetDecision both(std::string_view key, Micros now)
    {
        const EngineLimit limits[] = {{burst, key}, {window, key}};
        Decision out[2];
        return engine.acquireAll(limits, now, out);
    }
};

template <class Decide>
void twoLimitLoop(benchmark::State &st, Decide &&decide)
{
    const qs::bench::CpuPin pin(st.thread_index());
    const auto n = std::size_t(st.range(0));
    auto &f = sharedBy<TwoLimitFixture>(n, [&] { return std::make_unique<TwoLimitFixture>(n); });
    pickLoop(st, f.keys, Slice{0, n},
        [&](std::string_view key, Micros now) { return decide(f, key, now); });
}

void BM_EngineOneOfTwo(benchmark::State &st)
{
    twoLimitLoop(st, [](TwoLimitFixture &f, std::string_view key, Micros now) {
        return f.engine.acquire(f.burst, key, now);
    });
}
void BM_EngineTwoLimits(benchmark::State &st)
{
    twoLimitLoop(
        st, [](TwoLimitFixture &f, std::string_view key, Micros now) { return f.both(key, now); });
}
// The same two limits as a pair rule (limitpair.h): both states in one slot, one lookup.
struct PairFixture {
    qs::bench::PackedKeys keys;
    Engine engine;
    RuleId pair = *engine.addLimitPair(LimitPairConfig{{tokenBucket(), fixedWindow()}}).id;

    explicit PairFixture(std::size_t n) : keys(qs::bench::makeKeys(n))
    {
        std::array<Decision, 2> out;
        for (std::size_t i = 0; i < keys.size(); ++i)
            engine.acquirePair(pair, keys[i], kStart, out);
    }
};
void BM_EnginePair(benchmark::State &st)
{
    const qs::bench::CpuPin pin(st.thread_index());
    const auto n = std::size_t(st.range(0));
    auto &f = sharedBy<PairFixture>(n, [&] { return std::make_unique<PairFixture>(n); });
    std::array<Decision, 2> out;
    pickLoop(st, f.keys, Slice{0, n}, [&](std::string_view key, Micros now) {
        return f.engine.acquirePair(f.pair, key, now, out);
    });
}

// Two calls, not atomic together (a denial by the second leaves the first charged): what a
// caller without acquireAll() would write.
void BM_EngineTwoCalls(benchmark::State &st)
{
    twoLimitLoop(st, [](TwoLimitFixture &f, std::string_view key, Micros now) {
        f.engine.acquire(f.burst, key, now);
        return f.engine.acquire(f.window, key, now);
    });
}

// The same engine code with nothing shared: each thread decides on an Engine of its own that
// holds only its slice of the keys. Its two-thread ratio is what this machine gives this
// instruction mix (the VM's two vCPUs may be one core's two hyperthreads at times, which the
// guest cannot see and which the private-arrays reference below barely feels), so the shared
// engine's ratio can be judged against it.
struct PrivateEngine {
    Engine engine;
    RuleId rule = 0;
};

PrivateEngine &privateEngine(std::size_t keys, std::size_t threads, std::size_t index)
{
    return sharedBy<PrivateEngine>(std::array{keys, threads, index}, [&] {
        const Fixture &f = fixture(keys);
        auto e = std::make_unique<PrivateEngine>();
        e->rule = *e->engine.addRule(tokenBucket()).id;
        const Slice slice = sliceOf(keys, threads, index);
        for (std::size_t i = slice.begin; i < slice.begin + slice.size; ++i)
            e->engine.acquire(e->rule, f.keys[i], kStart);
        return e;
    });
}

void BM_EnginePrivate(benchmark::State &st)
{
    const std::size_t keys = std::size_t(st.range(0));
    PrivateEngine &p
        = privateEngine(keys, std::size_t(st.threads()), std::size_t(st.thread_index()));
    acquireLoop(st, keys, [&p](Fixture &, std::string_view k, Micros now) {
        return p.engine.acquire(p.rule, k, now, 1);
    });
}

// The machine's floor for one-by-one decisions: one dependent access per step over as many
// bytes as the engine's table holds at that key count (pointerchase.h).
void BM_DependentMiss(benchmark::State &st)
{
    const auto keys = std::size_t(st.range(0));
    const auto &chase = sharedBy<qs::bench::PointerChase>(keys, [&] {
        return std::make_unique<qs::bench::PointerChase>(fixture(keys).engine.usage().bytes);
    });
    const qs::bench::CpuPin pin(st.thread_index()); // where the one-by-one runs decide
    std::size_t at = 0;
    for (auto _ : st)
        benchmark::DoNotOptimize(at = chase.step(at));
    st.SetItemsProcessed(st.iterations());
    st.counters["MB"] = double(chase.bytes()) / 1e6;
}

// The machine's own ceiling for two threads, as a reference for the engine's two-thread runs:
// each thread reads and writes random 64-byte lines of a PRIVATE array as large as the
// engine's table at that key count (about 64 bytes per key), so nothing is shared at all.
void BM_PrivateRandomWrites(benchmark::State &st)
{
    const std::size_t lines = std::max<std::size_t>(64, std::size_t(st.range(0)));
    std::vector<std::array<std::uint64_t, 8>> table(lines);
    const qs::bench::CpuPin pin(st.thread_index());
    qs::bench::RandomPick pick(0, lines, 5 + std::uint64_t(st.thread_index()));
    for (auto _ : st) {
        auto &line = table[pick.next()];
        line[0] += 1;
        benchmark::DoNotOptimize(line[0]);
    }
    st.SetItemsProcessed(st.iterations());
}

// Why the engine keeps a table per thread lane (limiter/ruletable.h): two threads write random
// lines of ONE 8 MB array, each only lines of its own, the array dealt out to them in alternate
// blocks of 64 bytes to 4 KB; one thread writes random lines of the whole array.
void BM_SharedArrayBlocks(benchmark::State &st)
{
    constexpr std::size_t kBytes = 8 << 20;
    static auto *const array = static_cast<std::uint64_t *>(
        ::operator new(kBytes, std::align_val_t(4096))); // never freed: shared by every run
    const auto block = std::size_t(st.range(0));
    const auto threads = std::size_t(st.threads());
    const auto index = std::size_t(st.thread_index());
    const std::size_t linesPerBlock = block / 64;
    const qs::bench::CpuPin pin(st.thread_index());
    qs::bench::RandomPick pick(0, kBytes / 64 / threads, 17 + index);
    for (auto _ : st) {
        const std::size_t mine = pick.next();
        const std::size_t b = mine / linesPerBlock, l = mine % linesPerBlock;
        std::uint64_t &word = array[((b * threads + index) * linesPerBlock + l) * 8];
        word += 1;
        benchmark::DoNotOptimize(word);
    }
    st.SetItemsProcessed(st.iterations());
}

BENCHMARK(BM_Engine)->Arg(1)->Arg(100'000)->Arg(1'000'000);
BENCHMARK(BM_EngineBatch)->Arg(100'000)->Arg(1'000'000);
BENCHMARK(BM_EngineOneOfTwo)->Arg(1)->Arg(100'000)->Arg(1'000'000);
BENCHMARK(BM_EngineTwoLimits)->Arg(1)->Arg(100'000)->Arg(1'000'000);
BENCHMARK(BM_EngineTwoCalls)->Arg(1)->Arg(100'000)->Arg(1'000'000);
BENCHMARK(BM_EnginePair)->Arg(1)->Arg(100'000)->Arg(1'000'000);
BENCHMARK(BM_DependentMiss)->Arg(100'000)->Arg(1'000'000);
BENCHMARK(BM_PrivateRandomWrites)
    ->Arg(1000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime();
BENCHMARK(BM_Naive)->Arg(1)->Arg(100'000)->Arg(1'000'000);
BENCHMARK(BM_EnginePrivate)->Arg(1000)->Arg(100'000)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_SharedArrayBlocks)
    ->Arg(64)
    ->Arg(256)
    ->Arg(4096)
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime();
BENCHMARK(BM_EngineAnyThread)->Arg(1000)->Arg(100'000)->Arg(1'000'000)->Threads(2)->UseRealTime();
BENCHMARK(BM_Engine)
    ->Arg(64)
    ->Arg(1000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime();

std::uint64_t allocationsPerMillionDecisions(const AlgorithmConfig &config)
{
    AlgorithmState s = freshState(config);
    const std::uint64_t before = g_allocations.load();
    for (Micros t = 0; t < 1'000'000; ++t)
        benchmark::DoNotOptimize(decide(config, s, kStart + t, 1));
    return g_allocations.load() - before;
}

template <class Config>
double bytesPerKeyEngine(Config config, const std::vector<std::string> &keys)
{
    const std::size_t before = qs::bench::heapInUse();
    double perKey;
    {
        Engine engine;
        const RuleId rule = *engine.addRule(config).id;
        for (const auto &k : keys)
            engine.acquire(rule, k, kStart);
        perKey = double(qs::bench::heapInUse() - before - qs::bench::keyChars(keys))
            / double(keys.size());
    }
    return perKey;
}

double bytesPerKeyNaive(const std::vector<std::string> &keys)
{
    const std::size_t before = qs::bench::heapInUse();
    NaiveLimiter naive(tokenBucket());
    for (const auto &k : keys)
        naive.acquire(k, kStart, 1);
    return double(qs::bench::heapInUse() - before - qs::bench::keyChars(keys))
        / double(keys.size());
}

void printSummary(const qs::bench::RatioReporter &r, double transferBefore)
{
    std::printf("\n== Ratios (same run) ==\n");
    {
        const double rolling = r.nsPerItem("BM_Decide_FixedWindow");
        const double calendar = r.nsPerItem("BM_Decide_FixedWindowCalendar");
        const double newDays = r.nsPerItem("BM_Decide_FixedWindowCalendarNewDays");
        if (rolling > 0 && calendar > 0)
            std::printf("fixed_window decide(): calendar month in Europe/Berlin %.1f ns = %.2fx "
                        "rolling (%.1f ns, %+.1f ns); the clock an hour on per call (Havana days, "
                        "a new window "
                        "every 24 calls) %.1f ns\n",
                calendar, calendar / rolling, rolling, calendar - rolling, newDays);
    }
    {
        const double without = r.nsPerItem("BM_EngineWithoutPlans");
        const double with = r.nsPerItem("BM_EngineWithPlans");
        const double lookup = r.nsPerItem("BM_PlanLookup");
        const double known = r.nsPerItem("BM_EngineKnownPlans");
        if (without > 0 && with > 0)
            std::printf("acquire with the plan looked up in a map of 10000 API keys: %.1f ns = "
                        "%.2fx without plans (%.1f ns): %+.1f ns per decision (target <= 15 ns); "
                        "the lookup alone %.1f ns\n",
                with, with / without, without, with - without, lookup);
        if (known > 0 && with > 0 && without > 0)
            std::printf("  of which the lookup in the decision %+.1f ns (vs the plan known: "
                        "%.1f ns), three rules' tables instead of one %+.1f ns\n",
                with - known, known, known - without);
    }
    for (const char *keys : {"1", "100000", "1000000"}) {
        const double ours = r.nsPerItem(std::string("BM_Engine/") + keys);
        const double naive = r.nsPerItem(std::string("BM_Naive/") + keys);
        if (ours > 0 && naive > 0)
            std::printf("acquire, %8s keys: engine %6.1f ns, naive %6.1f ns, naive/engine %.2fx\n",
                keys, ours, naive, naive / ours);
    }
    for (const char *keys : {"1", "100000", "1000000"}) {
        const double one = r.nsPerItem(std::string("BM_EngineOneOfTwo/") + keys);
        const double two = r.nsPerItem(std::string("BM_EngineTwoLimits/") + keys);
        const double calls = r.nsPerItem(std::string("BM_EngineTwoCalls/") + keys);
        const double pair = r.nsPerItem(std::string("BM_EnginePair/") + keys);
        if (one > 0 && two > 0)
            std::printf("route with two limits, %8s keys: acquireAll %6.1f ns = %.2fx one limit "
                        "(%.1f ns; target <= 2.2x), %.2fx two acquire() calls (%.1f ns)\n",
                keys, two, two / one, one, calls > 0 ? two / calls : 0.0, calls);
        if (one > 0 && pair > 0)
            std::printf("route with two limits on one key, %8s keys: acquirePair %6.1f ns = "
                        "%.2fx one limit (target <= 2.2x)\n",
                keys, pair, pair / one);
    }
    for (const char *keys : {"100000", "1000000"}) {
        const double single = r.nsPerItem(std::string("BM_Engine/") + keys);
        const double chase = r.nsPerItem(std::string("BM_DependentMiss/") + keys);
        const double batch = r.nsPerItem(std::string("BM_EngineBatch/") + keys);
        if (chase > 0 && single > 0)
            std::printf("acquire, %8s keys: engine %6.1f ns = %.2fx one dependent access over as "
                        "many bytes as its table (pointer chase, %.1f ns)\n",
                keys, single, single / chase, chase);
        if (batch > 0 && single > 0)
            std::printf("acquire, %8s keys, batches of 16: %6.1f ns per decision, %.2fx faster "
                        "than one by one\n",
                keys, batch, single / batch);
    }
    for (const char *keys : {"1000", "100000", "1000000"}) {
        const auto scaling = [&](const char *bench) {
            const std::string base = std::string(bench) + keys + "/real_time/threads:";
            const double one = r.rate(base + "1"), two = r.rate(base + "2");
            return one > 0 && two > 0 ? two / one : 0.0;
        };
        const double engine = scaling("BM_Engine/"), machine = scaling("BM_PrivateRandomWrites/");
        const double unshared = scaling("BM_EnginePrivate/");
        if (engine <= 0)
            continue;
        std::printf("acquire, %8s keys, 2 threads on distinct keys vs 1: %.2fx throughput "
                    "(machine, private arrays of the same size: %.2fx",
            keys, engine, machine);
        if (unshared > 0)
            std::printf("; an engine per thread, nothing shared: %.2fx", unshared);
        std::printf(")\n");
    }
    for (const char *block : {"64", "256", "4096"}) {
        const std::string base
            = std::string("BM_SharedArrayBlocks/") + block + "/real_time/threads:";
        const double one = r.rate(base + "1"), two = r.rate(base + "2");
        if (one > 0 && two > 0)
            std::printf("one 8 MB array, 2 threads writing their own lines in alternate %4s-byte "
                        "blocks vs 1 thread: %.2fx\n",
                block, two / one);
    }
    for (const char *keys : {"1000", "100000", "1000000"}) {
        const double any
            = r.rate(std::string("BM_EngineAnyThread/") + keys + "/real_time/threads:2");
        const double one = r.rate(std::string("BM_Engine/") + keys + "/real_time/threads:1");
        if (any > 0 && one > 0)
            std::printf("acquire, %8s keys, 2 threads on keys that both inserted vs 1 thread: "
                        "%.2fx\n",
                keys, any / one);
    }
    std::printf("a cache line's one-way trip between the two threads' CPUs: %.0f ns before the "
                "benchmarks, %.0f ns after (the host's placement of the vCPUs; "
                "docs/benchmarks.md)\n",
        transferBefore, qs::bench::lineTransferNs());

    std::printf("\n== Heap allocations per 1M decide() calls ==\n");
    for (Algorithm a : kAllAlgorithms) {
        AlgorithmConfig c;
        switch (a) {
        case Algorithm::TokenBucket:
            c = tokenBucket();
            break;
        case Algorithm::LeakyBucket:
            c = leakyBucket();
            break;
        case Algorithm::FixedWindow:
            c = fixedWindow();
            break;
        case Algorithm::SlidingWindowLog:
            c = slidingLog();
            break;
        case Algorithm::SlidingWindowCounter:
            c = slidingCounter();
            break;
        case Algorithm::Gcra:
            c = gcra();
            break;
        }
        std::printf("%-24s %llu\n", std::string(algorithmName(a)).c_str(),
            (unsigned long long)allocationsPerMillionDecisions(c));
    }

    const auto keys = qs::bench::makeKeys(1'000'000, 99);
    std::printf("\n== Heap bytes per key at 1M keys, beyond the key's own %.1f characters "
                "(mallinfo2) ==\n",
        double(qs::bench::keyChars(keys)) / double(keys.size()));
    std::printf("token_bucket             %.1f\n", bytesPerKeyEngine(tokenBucket(), keys));
    std::printf("gcra                     %.1f\n", bytesPerKeyEngine(gcra(), keys));
    std::printf("fixed_window             %.1f\n", bytesPerKeyEngine(fixedWindow(), keys));
    std::printf("sliding_window_counter   %.1f\n", bytesPerKeyEngine(slidingCounter(), keys));
    std::printf("naive token_bucket       %.1f   (std::unordered_map<std::string, state>)\n",
        bytesPerKeyNaive(keys));
}

} // namespace

int main(int argc, char **argv)
{
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    qs::bench::RatioReporter reporter;
    const double transferBefore = qs::bench::lineTransferNs();
    benchmark::RunSpecifiedBenchmarks(&reporter);
    printSummary(reporter, transferBefore);
    benchmark::Shutdown();
    return 0;
}
