// How lint and export scale with the number of routes: the same generated policy at 2 000,
// 20 000 and 100 000 routes, read + validated (what `quotactl lint` does) and exported to every
// target. Two references of the same text in the same run: yaml-cpp's event parser on one thread
// (the floor of a sequential reader: no policy code can be faster than reading the file) and
// YAML::Load (what the reader used before). The reader parses a large text in parts on every
// core (yamlcuts.h), shown on its own line. Per-route cost that stays flat from 2 000 to 100 000
// routes is linear; a quadratic step shows as a ratio that grows with the count. Runs as quotactl
// does, restarted with transparent huge pages where the kernel gives them on request
// (model/base/hugepages.h); QS_NO_HUGEPAGES=1 measures without.
//   build-bench/tests/bench/routecount_bench
#include "model/base/hugepages.h"
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"
#include "model/policy/yamldocument.h"
#include "ratioreporter.h"

#include <yaml-cpp/yaml.h>

#include <benchmark/benchmark.h>

#include <cstdio>

using namespace qs;

namespace {

// Routes of every algorithm, some method-bound, exact, parameter and `**` paths, keyed by a
// header (so missing_key maps are written too), a hundred per service prefix.
QByteArray policyText(int routes)
{
    static const char *const kLimits[] = {
        "{ algorithm: token_bucket, capacity: 10, refill: 2/s }",
        "{ algorithm: gcra, rate: 5/s, burst: 10 }",
        "{ algorithm: fixed_window, limit: 100, window: 1m }",
        "{ algorithm: sliding_window_counter, limit: 50, window: 10s }",
    };
    QByteArray out = "quota_studio: 1\nname: big\ndefaults: { key: header:X-Api-Key }\nroutes:\n";
    for (int i = 0; i < routes; ++i) {
        const QByteArray suffix = i % 7 == 0 ? "/**" : i % 5 == 0 ? "/{id}" : "";
        out += "  - id: r" + QByteArray::number(i) + "\n    match: { "
            + (i % 3 == 0 ? "methods: [GET], " : "") + "path: \"/v1/svc"
            + QByteArray::number(i / 100) + "/res" + QByteArray::number(i) + suffix
            + "\" }\n    limit: " + kLimits[i % 4] + "\n";
    }
    return out;
}

const QByteArray &text(int routes)
{
    static std::map<int, QByteArray> cache;
    auto it = cache.find(routes);
    if (it == cache.end())
        it = cache.emplace(routes, policyText(routes)).first;
    return it->second;
}

void BM_YamlParse(benchmark::State &st)
{
    const QByteArray &t = text(int(st.range(0)));
    for (auto _ : st)
        benchmark::DoNotOptimize(YAML::Load(t.constData()));
    st.SetItemsProcessed(st.iterations() * st.range(0));
}

// The reader's tree on one thread: yaml-cpp's scanner and nothing of ours but the tree.
void BM_YamlEvents(benchmark::State &st)
{
    const std::string t = text(int(st.range(0))).toStdString();
    for (auto _ : st)
        benchmark::DoNotOptimize(YamlDocument::parse(t, YamlParseOptions{1}).ok());
    st.SetItemsProcessed(st.iterations() * st.range(0));
}

// The same tree as the reader builds it: in parts, one per core, when the text is large.
void BM_YamlEventsInParts(benchmark::State &st)
{
    const std::string t = text(int(st.range(0))).toStdString();
    int parts = 0;
    for (auto _ : st)
        parts = YamlDocument::parse(t).parts();
    st.counters["parts"] = parts;
    st.SetItemsProcessed(st.iterations() * st.range(0));
}

void BM_Lint(benchmark::State &st)
{
    const QByteArray &t = text(int(st.range(0)));
    for (auto _ : st) {
        const PolicyReadResult r = readPolicy(t, QStringLiteral("big.yaml"));
        if (hasErrors(r.diagnostics))
            st.SkipWithError("the generated policy has errors");
        benchmark::DoNotOptimize(r.diagnostics.size());
    }
    st.SetItemsProcessed(st.iterations() * st.range(0));
}

void BM_Export(benchmark::State &st, const char *target)
{
    const Policy policy = readPolicy(text(int(st.range(0))), QStringLiteral("big.yaml")).policy;
    const Exporter *exporter = exporterById(QString::fromLatin1(target));
    for (auto _ : st) {
        const ExportResult r = exporter->exportPolicy(policy);
        if (hasErrors(r.diagnostics))
            st.SkipWithError("the export has errors");
        benchmark::DoNotOptimize(r.files.size());
    }
    st.SetItemsProcessed(st.iterations() * st.range(0));
}

void counts(benchmark::internal::Benchmark *b)
{
    b->Arg(2'000)->Arg(20'000)->Arg(100'000)->Unit(benchmark::kMillisecond)->Iterations(2);
}

BENCHMARK(BM_YamlParse)->Apply(counts);
BENCHMARK(BM_YamlEvents)->Apply(counts);
BENCHMARK(BM_YamlEventsInParts)->Apply(counts);
BENCHMARK(BM_Lint)->Apply(counts);
BENCHMARK_CAPTURE(BM_Export, nginx, "nginx")->Apply(counts);
BENCHMARK_CAPTURE(BM_Export, haproxy, "haproxy")->Apply(counts);
BENCHMARK_CAPTURE(BM_Export, envoy, "envoy")->Apply(counts);
BENCHMARK_CAPTURE(BM_Export, traefik, "traefik")->Apply(counts);
BENCHMARK_CAPTURE(BM_Export, kong, "kong")->Apply(counts);
BENCHMARK_CAPTURE(BM_Export, redis_bundle, "redis-bundle")->Apply(counts);

} // namespace

int main(int argc, char **argv)
{
    qs::restartWithHugePages(argv); // as quotactl runs; QS_NO_HUGEPAGES=1 measures without
    benchmark::Initialize(&argc, argv);
    qs::bench::RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    const auto ms = [&](const std::string &name, int n) {
        return reporter.nsPerItem(name + "/" + std::to_string(n) + "/iterations:2") * n / 1e6;
    };
    std::printf("\n%-22s %10s %10s %10s   %s\n", "per route (µs)", "2 000", "20 000", "100 000",
        "100k/2k (1 = linear)");
    for (const char *name : {"BM_YamlParse", "BM_YamlEvents", "BM_YamlEventsInParts", "BM_Lint",
             "BM_Export/nginx", "BM_Export/haproxy", "BM_Export/envoy", "BM_Export/traefik",
             "BM_Export/kong", "BM_Export/redis_bundle"}) {
        const double a = ms(name, 2'000) / 2'000 * 1e3, b = ms(name, 20'000) / 20'000 * 1e3,
                     c = ms(name, 100'000) / 100'000 * 1e3;
        if (a > 0 && c > 0)
            std::printf("%-22s %10.2f %10.2f %10.2f   %.2f\n", name, a, b, c, c / a);
    }
    std::printf("\nmalloc asks for transparent huge pages: %s\n",
        qs::mallocUsesHugePages() ? "yes (as quotactl)" : "no");
    // What `quotactl export` does: read and validate once, then write one target.
    for (const int n : {20'000, 100'000}) {
        const double lint = ms("BM_Lint", n), floor = ms("BM_YamlEvents", n);
        if (lint <= 0 || floor <= 0)
            continue;
        std::printf("\n%d routes: lint %.0f ms (%.2fx the event parse on one thread, %.0f ms; "
                    "%.0f ms in parts); lint + export:\n",
            n, lint, lint / floor, floor, ms("BM_YamlEventsInParts", n));
        for (const char *t : {"nginx", "haproxy", "envoy", "traefik", "kong", "redis_bundle"})
            if (const double e = ms(std::string("BM_Export/") + t, n); e > 0)
                std::printf("  %-13s %6.0f ms\n", t, lint + e);
    }
    benchmark::Shutdown();
    return 0;
}
