// How lint and export scale with the number of routes: the same generated policy at 2 000,
// 20 000 and 100 000 routes, read + validated (what `quotactl lint` does) and exported to every
// target. The reference, in the same run: libfyaml's own event parse of the same text (the floor
// of a reader built on it: no policy code can be faster than reading the file), and its
// document tree for comparison. Per-route cost that stays flat from 2 000 to 100 000 routes is
// linear; a quadratic step shows as a ratio that grows with the count. Run on one core, as the
// issue's figures are taken:
//   taskset -c 0 build-bench/tests/bench/routecount_bench
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"
#include "model/policy/yamldocument.h"
#include "ratioreporter.h"

#include <libfyaml.h>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>

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

fy_parse_cfg quietParse()
{
    fy_parse_cfg cfg{};
    cfg.flags = FYPCF_QUIET;
    return cfg;
}

// libfyaml's scanner and parser, every event and every scalar's text, and nothing else.
void BM_LibfyamlEvents(benchmark::State &st)
{
    const QByteArray &t = text(int(st.range(0)));
    const fy_parse_cfg cfg = quietParse();
    for (auto _ : st) {
        fy_parser *parser = fy_parser_create(&cfg);
        fy_parser_set_string(parser, t.constData(), size_t(t.size()));
        std::size_t bytes = 0;
        while (fy_event *e = fy_parser_parse(parser)) {
            if (e->type == FYET_SCALAR) {
                size_t length = 0;
                fy_token_get_text(e->scalar.value, &length);
                bytes += length;
            }
            fy_parser_event_free(parser, e);
        }
        fy_parser_destroy(parser);
        benchmark::DoNotOptimize(bytes);
    }
    st.SetItemsProcessed(st.iterations() * st.range(0));
}

// libfyaml's own document tree (fy_document_build_from_string).
void BM_LibfyamlDocument(benchmark::State &st)
{
    const QByteArray &t = text(int(st.range(0)));
    const fy_parse_cfg cfg = quietParse();
    for (auto _ : st) {
        fy_document *doc = fy_document_build_from_string(&cfg, t.constData(), size_t(t.size()));
        benchmark::DoNotOptimize(doc);
        fy_document_destroy(doc);
    }
    st.SetItemsProcessed(st.iterations() * st.range(0));
}

// The reader's tree: libfyaml's events and the flat arrays built from them.
void BM_YamlDocument(benchmark::State &st)
{
    const std::string t = text(int(st.range(0))).toStdString();
    for (auto _ : st)
        benchmark::DoNotOptimize(YamlDocument::parse(t).ok());
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
    b->Arg(2'000)
        ->Arg(20'000)
        ->Arg(100'000)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(2)
        ->UseRealTime();
}

BENCHMARK(BM_LibfyamlEvents)->Apply(counts);
BENCHMARK(BM_LibfyamlDocument)->Apply(counts);
BENCHMARK(BM_YamlDocument)->Apply(counts);
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
    benchmark::Initialize(&argc, argv);
    qs::bench::RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    const auto ms = [&](const std::string &name, int n) {
        return reporter.nsPerItem(name + "/" + std::to_string(n) + "/iterations:2/real_time") * n
            / 1e6;
    };
    std::printf("\n%-22s %10s %10s %10s   %s\n", "per route (µs)", "2 000", "20 000", "100 000",
        "100k/2k (1 = linear)");
    for (const char *name : {"BM_LibfyamlEvents", "BM_LibfyamlDocument", "BM_YamlDocument",
             "BM_Lint", "BM_Export/nginx", "BM_Export/haproxy", "BM_Export/envoy",
             "BM_Export/traefik", "BM_Export/kong", "BM_Export/redis_bundle"}) {
        const double a = ms(name, 2'000) / 2'000 * 1e3, b = ms(name, 20'000) / 20'000 * 1e3,
                     c = ms(name, 100'000) / 100'000 * 1e3;
        if (a > 0 && c > 0)
            std::printf("%-22s %10.2f %10.2f %10.2f   %.2f\n", name, a, b, c, c / a);
    }
    // What `quotactl export` does: read and validate once, then write one target (or all).
    for (const int n : {20'000, 100'000}) {
        const double lint = ms("BM_Lint", n), floor = ms("BM_LibfyamlEvents", n);
        if (lint <= 0 || floor <= 0)
            continue;
        std::printf("\n%d routes: lint %.0f ms = %.2fx libfyaml's event parse (%.0f ms), "
                    "%.2fx its document (%.0f ms); lint + export:\n",
            n, lint, lint / floor, floor, lint / ms("BM_LibfyamlDocument", n),
            ms("BM_LibfyamlDocument", n));
        double all = lint;
        for (const char *t : {"nginx", "haproxy", "envoy", "traefik", "kong", "redis_bundle"})
            if (const double e = ms(std::string("BM_Export/") + t, n); e > 0) {
                std::printf("  %-13s %6.0f ms\n", t, lint + e);
                all += e;
            }
        std::printf("  %-13s %6.0f ms\n", "all", all);
    }
    benchmark::Shutdown();
    return 0;
}
