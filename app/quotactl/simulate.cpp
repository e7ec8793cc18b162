// quotactl simulate: traffic through a route's limit (or all six algorithms) on a manual clock.
#include "commands.h"
#include "optiontable.h"

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

#include <limits>

namespace qs::cli {

namespace {

// A route with several limits: an object per limit, by name.
QJsonObject limitsJson(const SimulationSummary &s)
{
    QJsonObject limits;
    for (const LimitSummary &l : s.limits)
        limits.insert(l.name,
            QJsonObject{
                {QStringLiteral("algorithm"), l.algorithm},
                {QStringLiteral("mode"),
                    l.shadow ? QStringLiteral("shadow") : QStringLiteral("enforce")},
                {QStringLiteral("allowed"), qint64(l.allowed)},
                {QStringLiteral("denied"), qint64(l.denied)},
                {QStringLiteral("deciding_denials"), qint64(l.deciding)},
                {QStringLiteral("window_us"), qint64(l.window)},
                {QStringLiteral("max_admitted_in_window"), qint64(l.maxAdmittedInWindow)},
            });
    return limits;
}

QJsonObject toJson(const SimulationSummary &s)
{
    QJsonObject out{
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
    if (!s.limits.empty())
        out.insert(QStringLiteral("limits"), limitsJson(s));
    if (!s.plans.empty()) {
        QJsonObject plans;
        for (const PlanSummary &p : s.plans)
            plans.insert(p.name,
                QJsonObject{{QStringLiteral("clients"), qint64(p.clients)},
                    {QStringLiteral("offered"), qint64(p.offered)},
                    {QStringLiteral("allowed"), qint64(p.allowed)},
                    {QStringLiteral("denied"), qint64(p.denied)},
                    {QStringLiteral("acceptance"),
                        p.offered ? double(p.allowed) / double(p.offered) : 0.0}});
        out.insert(QStringLiteral("plans"), plans);
    }
    return out;
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

struct SimulateOptions {
    QString routeId, traffic, csv, duration;
    bool compare = false, json = false;
};

OptionTable simulateOptions(SimulateOptions &o, SimulationSettings &settings)
{
    return OptionTable("simulate",
        QStringLiteral("quotactl simulate FILE --route ID --traffic SPEC [options]"),
        QStringLiteral(
            "Runs simulated traffic through the route's limit on a manual clock (deterministic, "
            "far faster\n"
            "than real time) and prints a summary: offered, allowed, denied, acceptance, the most "
            "requests\n"
            "admitted in any window of the route's length (where a boundary spike shows), p50/p99 "
            "shaping\n"
            "delay, and the share of denials taken by the top 1% of clients.\n"
            "\n"
            "Traffic SPEC (RATE as in policies: 100/s, 5/250ms; DUR: 250ms, 10s, 1m; clients "
            "default 1):\n"
            "  steady:RATE[,clients=N]                  evenly spaced requests\n"
            "  poisson:RATE[,clients=N]                 random gaps, same mean rate\n"
            "  bursts:RATE,on=DUR,off=DUR[,clients=N]   RATE while on, nothing while off\n"
            "  spike:N,window=DUR[,gap=DUR]             N requests just before each window edge, N "
            "just after\n"
            "  ramp:RATE..RATE[,clients=N]              rate rising linearly over the duration\n"
            "  zipf:RATE,clients=N[,s=1.1]              many clients, Zipf popularity\n"
            "  replay:FILE                              access log: NGINX/Apache combined, or CSV\n"
            "                                           timestamp,method,path,client (only "
            "requests that\n"
            "                                           resolve to the route count)\n"
            "Every synthetic kind also takes ,keyless=SHARE (0..1): that share of requests lacks "
            "the route's\n"
            "header or query key part, and the route's missing_key (shared, ip, deny, allow) "
            "decides.\n"
            "With plans, ,plans=free:70/pro:25/enterprise:5 puts that share of the clients on "
            "each plan\n"
            "(default: all on the policy's default plan); the summary adds a line per plan.\n"),
        {
            opt::text(QStringLiteral("--route"), QStringLiteral("ID"),
                QStringLiteral("the route to simulate (required)"), &o.routeId),
            opt::text(QStringLiteral("--traffic"), QStringLiteral("SPEC"),
                QStringLiteral("the traffic (required)"), &o.traffic),
            opt::text(QStringLiteral("--duration"), QStringLiteral("D"),
                QStringLiteral("simulated time (default 1m)"), &o.duration),
            opt::integer(QStringLiteral("--seed"),
                QStringLiteral("random seed (default 1): the same seed gives the same result"), 0,
                std::numeric_limits<qint64>::max(),
                [&settings](qint64 n) { settings.seed = std::uint64_t(n); }),
            opt::flag(QStringLiteral("--compare"),
                QStringLiteral("run the same traffic through all six algorithms, with parameters "
                               "derived\nfrom the route's so that each allows the same long-run "
                               "rate and burst"),
                &o.compare),
            opt::text(QStringLiteral("--csv"), QStringLiteral("OUT"),
                QStringLiteral("write the per-time series (requests/s) to OUT"), &o.csv),
            opt::flag(QStringLiteral("--json"),
                QStringLiteral("print the summary as JSON (an array with --compare; a route with "
                               "several limits adds `limits`, an object per limit by name; plans "
                               "add `plans`)"),
                &o.json),
        },
        QStringLiteral(
            "Exit status: 0 done, 1 the policy or traffic could not be used, 2 usage error.\n"));
}

} // namespace

int runSimulate(const QStringList &args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    SimulationSettings settings;
    SimulateOptions o;
    QStringList files;
    if (const std::optional<int> stop = simulateOptions(o, settings).parse(args, &files))
        return *stop;
    if (files.size() > 1)
        return usage(QStringLiteral("one policy file only"));
    const QString file = files.value(0), &routeId = o.routeId, &traffic = o.traffic, &csv = o.csv;
    const bool compare = o.compare, json = o.json;
    if (!o.duration.isEmpty()) {
        const auto d = parseDuration(o.duration);
        if (!d)
            return usage(QStringLiteral("--duration: ") + d.error());
        settings.duration = *d;
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
    if (compare && route->hasSeveralLimits())
        return usage(QStringLiteral("--compare runs a route's limit with each algorithm; route "
                                    "'%1' has %2 limits: simulate it without --compare")
                         .arg(routeId)
                         .arg(route->limits.size()));
    if (compare) {
        const SimulationResult base = simulate(*policy, *route, settings);
        if (!base.error.isEmpty()) {
            err << "quotactl simulate: " << base.error << '\n';
            return 1;
        }
        const auto converted = *toAlgorithmConfig(route->limit());
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
    if (!first.summary.limits.empty()) {
        out << QStringLiteral("\n%1 %2 %3 %4 %5 %6\n")
                   .arg(QStringLiteral("limit"), -24)
                   .arg(QStringLiteral("algorithm"), -24)
                   .arg(QStringLiteral("allowed"), 10)
                   .arg(QStringLiteral("denied"), 10)
                   .arg(QStringLiteral("decided"), 10)
                   .arg(QStringLiteral("max/window"), 16);
        for (const LimitSummary &l : first.summary.limits)
            out << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                       .arg(l.shadow ? l.name + QStringLiteral(" (shadow)") : l.name, -24)
                       .arg(l.algorithm, -24)
                       .arg(l.allowed, 10)
                       .arg(l.denied, 10)
                       .arg(l.deciding, 10)
                       .arg(QStringLiteral("%1 per %2")
                                .arg(l.maxAdmittedInWindow)
                                .arg(formatDuration(l.window)),
                           16);
        out << QStringLiteral("decided: the denials this limit made, the longest wait of those "
                              "that denied; a shadow limit's denied would have been\n");
    }
    if (!first.summary.plans.empty()) {
        out << QStringLiteral("\n%1 %2 %3 %4 %5 %6\n")
                   .arg(QStringLiteral("plan"), -24)
                   .arg(QStringLiteral("clients"), 10)
                   .arg(QStringLiteral("offered"), 10)
                   .arg(QStringLiteral("allowed"), 10)
                   .arg(QStringLiteral("denied"), 10)
                   .arg(QStringLiteral("accepted"), 8);
        for (const PlanSummary &p : first.summary.plans)
            out << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                       .arg(p.name, -24)
                       .arg(p.clients, 10)
                       .arg(p.offered, 10)
                       .arg(p.allowed, 10)
                       .arg(p.denied, 10)
                       .arg(QStringLiteral("%1%").arg(
                                p.offered ? 100.0 * double(p.allowed) / double(p.offered) : 0.0, 0,
                                'f', 1),
                           8);
    }
    if (!results.empty() && results.front().summary.keyless > 0)
        out << QStringLiteral("%1 requests lacked their key; missing_key: %2\n")
                   .arg(results.front().summary.keyless)
                   .arg(missingKeyModeName(results.front().summary.missingKey));
    return 0;
}

} // namespace qs::cli
