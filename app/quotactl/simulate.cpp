// quotactl simulate: traffic through a route's limit (or all six algorithms) on a manual clock.
#include "commands.h"
#include "limiter/algorithms/algorithm.h"
#include "model/policy/limitconversion.h"
#include "model/policy/policyreader.h"
#include "model/policy/ratesyntax.h"
#include "model/simulation/simulator.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QTextStream>

namespace qs::cli {

namespace {

const char kSimulateHelp[] = R"(Usage: quotactl simulate FILE --route ID --traffic SPEC [options]

Runs simulated traffic through the route's limit on a manual clock (deterministic, far faster
than real time) and prints a summary: offered, allowed, denied, acceptance, the most requests
admitted in any window of the route's length (where a boundary spike shows), p50/p99 shaping
delay, and the share of denials taken by the top 1% of clients.

Traffic SPEC (RATE as in policies: 100/s, 5/250ms; DUR: 250ms, 10s, 1m; clients default 1):
  steady:RATE[,clients=N]                  evenly spaced requests
  poisson:RATE[,clients=N]                 random gaps, same mean rate
  bursts:RATE,on=DUR,off=DUR[,clients=N]   RATE while on, nothing while off
  spike:N,window=DUR[,gap=DUR]             N requests just before each window edge, N just after
  ramp:RATE..RATE[,clients=N]              rate rising linearly over the duration
  zipf:RATE,clients=N[,s=1.1]              many clients, Zipf popularity
  replay:FILE                              access log: NGINX/Apache combined, or CSV
                                           timestamp,method,path,client (only requests that
                                           resolve to the route count)
Every synthetic kind also takes ,keyless=SHARE (0..1): that share of requests lacks the route's
header or query key part, and the route's missing_key (shared, ip, deny, allow) decides.

Options:
  --route ID        the route to simulate (required)
  --traffic SPEC    the traffic (required)
  --duration D      simulated time (default 1m)
  --seed S          random seed (default 1): the same seed gives the same result
  --compare         run the same traffic through all six algorithms, with parameters derived
                    from the route's so that each allows the same long-run rate and burst
  --csv OUT         write the per-time series (requests/s) to OUT
  --json            print the summary as JSON (an array with --compare)
Exit status: 0 done, 1 the policy or traffic could not be used, 2 usage error.
)";

QJsonObject toJson(const SimulationSummary &s)
{
    return QJsonObject{
        {QStringLiteral("algorithm"), s.algorithm},
        {QStringLiteral("offered"), qint64(s.offered)},
        {QStringLiteral("allowed"), qint64(s.allowed)},
        {QStringLiteral("denied"), qint64(s.denied)},
        {QStringLiteral("delayed"), qint64(s.delayed)},
        {QStringLiteral("acceptance"), s.acceptance},
        {QStringLiteral("window_us"), qint64(s.window)},
        {QStringLiteral("max_admitted_in_window"), qint64(s.maxAdmittedInWindow)},
        {QStringLiteral("p50_delay_us"), s.p50DelayUs},
        {QStringLiteral("p99_delay_us"), s.p99DelayUs},
        {QStringLiteral("top1pct_denial_share"), s.topClientsDenialShare},
        {QStringLiteral("clients"), qint64(s.clients)},
        {QStringLiteral("other_routes"), qint64(s.otherRoutes)},
        {QStringLiteral("keyless"), qint64(s.keyless)},
        {QStringLiteral("missing_key"), missingKeyModeName(s.missingKey)},
    };
}

Expected<void> writeCsv(const QString &path, const std::vector<SimulationResult> &results)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return file.errorString();
    QTextStream out(&file);
    out << "time_s";
    for (const auto &r : results)
        for (const Series &s : r.series)
            out << ',' << (results.size() > 1 ? r.summary.algorithm + QLatin1Char(':') : QString())
                << s.name;
    out << '\n';
    const std::size_t rows = results.front().series.front().t.size();
    for (std::size_t i = 0; i < rows; ++i) {
        out << results.front().series.front().t[i];
        for (const auto &r : results)
            for (const Series &s : r.series)
                out << ',' << (i < s.value.size() ? s.value[i] : 0.0);
        out << '\n';
    }
    out.flush();
    if (!file.commit())
        return file.errorString();
    return {};
}

int usage(const QString &message)
{
    return usageError("simulate", message);
}

} // namespace

int runSimulate(const QStringList &args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QString file, routeId, traffic, csv;
    SimulationSettings settings;
    bool compare = false, json = false;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        auto value = [&]() -> std::optional<QString> {
            if (i + 1 >= args.size())
                return std::nullopt;
            return args[++i];
        };
        if (a == QLatin1String("-h") || a == QLatin1String("--help")) {
            out << kSimulateHelp;
            return 0;
        } else if (a == QLatin1String("--compare")) {
            compare = true;
        } else if (a == QLatin1String("--json")) {
            json = true;
        } else if (a == QLatin1String("--route") || a == QLatin1String("--traffic")
            || a == QLatin1String("--csv") || a == QLatin1String("--duration")
            || a == QLatin1String("--seed")) {
            const auto v = value();
            if (!v)
                return usage(a + QStringLiteral(" needs a value"));
            if (a == QLatin1String("--route"))
                routeId = *v;
            else if (a == QLatin1String("--traffic"))
                traffic = *v;
            else if (a == QLatin1String("--csv"))
                csv = *v;
            else if (a == QLatin1String("--duration")) {
                const auto d = parseDuration(*v);
                if (!d)
                    return usage(QStringLiteral("--duration: ") + d.error());
                settings.duration = *d;
            } else {
                bool ok = false;
                settings.seed = v->toULongLong(&ok);
                if (!ok)
                    return usage(QStringLiteral("--seed takes a whole number"));
            }
        } else if (a.startsWith(QLatin1Char('-'))) {
            return usage(QStringLiteral("unknown option '%1'").arg(a));
        } else if (file.isEmpty()) {
            file = a;
        } else {
            return usage(QStringLiteral("one policy file only"));
        }
    }
    if (file.isEmpty() || routeId.isEmpty() || traffic.isEmpty())
        return usage(QStringLiteral("FILE, --route and --traffic are required"));
    const auto spec = parseTrafficSpec(traffic);
    if (!spec)
        return usage(spec.error());
    settings.traffic = *spec;

    const std::optional<Policy> policy = readPolicyOrReport(file);
    if (!policy)
        return 1;
    const Route *route = policy->route(routeId);
    if (!route)
        return usage(QStringLiteral("no route has the id '%1'").arg(routeId));

    std::vector<SimulationResult> results;
    if (compare) {
        const SimulationResult base = simulate(*policy, *route, settings);
        if (!base.error.isEmpty()) {
            err << "quotactl simulate: " << base.error << '\n';
            return 1;
        }
        const auto converted = *toAlgorithmConfig(route->limit);
        for (const limiter::AlgorithmConfig &c : comparableConfigs(converted))
            results.push_back(simulate(*policy, *route, settings, nullptr, {}, &c));
    } else {
        results.push_back(simulate(*policy, *route, settings));
        if (!results.front().error.isEmpty()) {
            err << "quotactl simulate: " << results.front().error << '\n';
            return 1;
        }
    }
    const SimulationResult &first = results.front();
    if (first.skippedLines > 0) {
        err << "quotactl simulate: skipped " << first.skippedLines << " malformed log line(s)";
        for (const ReplayProblem &p : first.problems)
            err << "\n  line " << p.line << ": " << p.message;
        err << '\n';
    }
    if (!csv.isEmpty()) {
        if (const Expected<void> written = writeCsv(csv, results); !written) {
            err << "quotactl simulate: cannot write " << csv << ": " << written.error() << '\n';
            return 1;
        }
    }
    if (json) {
        if (compare) {
            QJsonArray all;
            for (const auto &r : results)
                all.append(toJson(r.summary));
            out << QJsonDocument(all).toJson(QJsonDocument::Indented);
        } else {
            out << QJsonDocument(toJson(first.summary)).toJson(QJsonDocument::Indented);
        }
        return 0;
    }
    out << QStringLiteral("route %1, traffic %2, %3 simulated, seed %4\n\n")
               .arg(routeId, settings.traffic.text, formatDuration(settings.duration))
               .arg(settings.seed);
    out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8\n")
               .arg(QStringLiteral("algorithm"), -24)
               .arg(QStringLiteral("offered"), 10)
               .arg(QStringLiteral("allowed"), 10)
               .arg(QStringLiteral("denied"), 10)
               .arg(QStringLiteral("accept"), 8)
               .arg(QStringLiteral("max/window"), 16)
               .arg(QStringLiteral("p99 delay"), 10)
               .arg(QStringLiteral("top1% denials"), 14);
    for (const auto &r : results) {
        const SimulationSummary &s = r.summary;
        out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8\n")
                   .arg(s.algorithm, -24)
                   .arg(s.offered, 10)
                   .arg(s.allowed, 10)
                   .arg(s.denied, 10)
                   .arg(QStringLiteral("%1%").arg(s.acceptance * 100, 0, 'f', 1), 8)
                   .arg(QStringLiteral("%1 per %2")
                            .arg(s.maxAdmittedInWindow)
                            .arg(formatDuration(s.window)),
                       16)
                   .arg(QStringLiteral("%1 ms").arg(s.p99DelayUs / 1000, 0, 'f', 1), 10)
                   .arg(QStringLiteral("%1%").arg(s.topClientsDenialShare * 100, 0, 'f', 1), 14);
    }
    if (!results.empty() && results.front().summary.keyless > 0)
        out << QStringLiteral("%1 requests lacked their key; missing_key: %2\n")
                   .arg(results.front().summary.keyless)
                   .arg(missingKeyModeName(results.front().summary.missingKey));
    return 0;
}

} // namespace qs::cli
