// Simulator throughput: generation + decision + bucketing, end to end through simulate(), with
// the embedded Engine (string keys, hash table) on the same arrivals as the reference.
//   build-bench/tests/bench/simulator_bench
#include "model/policy/limitconversion.h"
#include "model/policy/policyreader.h"
#include "model/simulation/simulator.h"
#include "ratioreporter.h"

#include "limiter/engine/engine.h"

#include <benchmark/benchmark.h>

#include <cstdio>

using namespace qs;

namespace {

Policy policy(const char *limit)
{
    const QByteArray text = QByteArray("quota_studio: 1\nname: bench\nroutes:\n  - id: r\n"
                                       "    match: { path: /** }\n    limit: ")
        + limit + "\n";
    return readPolicy(text, QStringLiteral("bench.yaml")).policy;
}

SimulationSettings settings(const char *traffic, limiter::Micros duration)
{
    SimulationSettings s;
    s.traffic = *parseTrafficSpec(QLatin1String(traffic));
    s.duration = duration;
    return s;
}

const char *kBucket = "{ algorithm: token_bucket, capacity: 100, refill: 500000/s }";

void BM_SimulateOneRoute(benchmark::State &st)
{
    const Policy p = policy(kBucket);
    const auto s = settings("steady:1000000/s,clients=1000", 10 * limiter::kMicrosPerSecond);
    std::uint64_t requests = 0;
    for (auto _ : st)
        requests += simulate(p, p.routes[0], s).summary.offered;
    st.SetItemsProcessed(std::int64_t(requests));
}
BENCHMARK(BM_SimulateOneRoute)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same arrivals against two limits of one route (a burst and an hourly window): every
// request decided by both (limitset.h). Its ratio to BM_SimulateOneRoute is what a second limit
// costs the simulator.
void BM_SimulateTwoLimits(benchmark::State &st)
{
    const QByteArray text = "quota_studio: 1\nname: bench\nroutes:\n  - id: r\n"
                            "    match: { path: /** }\n    limits:\n"
                            "      - { name: burst, algorithm: token_bucket, capacity: 100, "
                            "refill: 500000/s }\n"
                            "      - { name: hourly, algorithm: fixed_window, limit: 100000000, "
                            "window: 1h }\n";
    const Policy p = readPolicy(text, QStringLiteral("bench.yaml")).policy;
    const auto s = settings("steady:1000000/s,clients=1000", 10 * limiter::kMicrosPerSecond);
    std::uint64_t requests = 0;
    for (auto _ : st) {
        const SimulationResult r = simulate(p, p.routes[0], s);
        if (!r.error.isEmpty() || r.summary.limits.size() != 2) {
            st.SkipWithError("the two-limit route did not simulate");
            return;
        }
        requests += r.summary.offered;
    }
    st.SetItemsProcessed(std::int64_t(requests));
}
BENCHMARK(BM_SimulateTwoLimits)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same arrivals through the embedded Engine: the keyed path a gateway would use.
void BM_EngineReference(benchmark::State &st)
{
    const Policy p = policy(kBucket);
    const auto config = *toAlgorithmConfig(p.routes[0].limit());
    const auto s = settings("steady:1000000/s,clients=1000", 10 * limiter::kMicrosPerSecond);
    std::vector<std::string> names;
    for (int i = 0; i < 1000; ++i)
        names.push_back("client-" + std::to_string(i));
    std::uint64_t requests = 0;
    for (auto _ : st) {
        limiter::Engine engine;
        const auto rule = *engine.addRule(config).id;
        auto source = std::move(*makeTrafficSource(s.traffic, 1, s.duration));
        std::vector<Arrival> chunk;
        while (true) {
            chunk.clear();
            if (source->next(chunk, 1 << 16, s.duration - 1) == 0)
                break;
            for (const Arrival &a : chunk)
                benchmark::DoNotOptimize(engine.acquire(rule, names[a.client], a.at, 1));
            requests += chunk.size();
        }
    }
    st.SetItemsProcessed(std::int64_t(requests));
}
BENCHMARK(BM_EngineReference)->Unit(benchmark::kMillisecond)->UseRealTime();

// One hour at 10k requests/s (36 million) over 100k Zipf-popular clients.
void BM_HourAt10kOver100kClients(benchmark::State &st)
{
    const Policy p = policy("{ algorithm: gcra, rate: 1/s, burst: 20 }");
    const auto s = settings("zipf:10000/s,clients=100000", limiter::kMicrosPerHour);
    std::uint64_t requests = 0;
    for (auto _ : st)
        requests += simulate(p, p.routes[0], s).summary.offered;
    st.SetItemsProcessed(std::int64_t(requests));
}
BENCHMARK(BM_HourAt10kOver100kClients)
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(1)
    ->Repetitions(3);

} // namespace

int main(int argc, char **argv)
{
    benchmark::Initialize(&argc, argv);
    qs::bench::RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    const double sim = reporter.rate("BM_SimulateOneRoute/real_time");
    const double engine = reporter.rate("BM_EngineReference/real_time");
    if (sim > 0 && engine > 0)
        std::printf("\nsimulate() end to end: %.1f M requests/s; the Engine on the same arrivals: "
                    "%.1f M/s; ratio %.2fx\n",
            sim / 1e6, engine / 1e6, sim / engine);
    const double two = reporter.rate("BM_SimulateTwoLimits/real_time");
    if (sim > 0 && two > 0)
        std::printf("two limits on the route: %.1f M requests/s, %.2fx the one-limit run\n",
            two / 1e6, two / sim);
    const double hour
        = reporter.rate("BM_HourAt10kOver100kClients/iterations:1/repeats:3/real_time");
    if (hour > 0)
        std::printf(
            "one hour at 10k/s over 100k clients: 36M requests in %.2f s (median)\n", 36e6 / hour);
    benchmark::Shutdown();
    return 0;
}
