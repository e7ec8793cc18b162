// quotactl probe: plays traffic against a running gateway and compares its decisions with the
// design's, request by request (model/probe, docs/probe.md).
#include "commands.h"
#include "model/export/exporter.h"
#include "model/policy/limitconversion.h"
#include "model/policy/ratesyntax.h"
#include "model/probe/httpprobe.h"
#include "optiontable.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QSaveFile>
#include <QTextStream>
#include <QTimer>

namespace qs::cli {

namespace {

int usage(const QString &message)
{
    return usageError("probe", message);
}

struct ProbeOptions {
    QString policyFile, csv;
    ProbeSettings settings;
    double tolerance = 0.01;
    bool json = false;
};

// Parses one option that takes a value into `o`, or says what is wrong with it.
Expected<void> applyOption(ProbeOptions &o, const QString &name, const QString &v)
{
    ProbeSettings &s = o.settings;
    auto duration = [&](limiter::Micros &out) -> Expected<void> {
        const auto d = parseDuration(v);
        if (!d)
            return name + QStringLiteral(": ") + d.error();
        out = *d;
        return {};
    };
    auto whole = [&](auto &out, qint64 min) -> Expected<void> {
        bool ok = false;
        const qint64 n = v.toLongLong(&ok);
        if (!ok || n < min)
            return QStringLiteral("%1 takes a whole number of at least %2").arg(name).arg(min);
        out = static_cast<std::remove_reference_t<decltype(out)>>(n);
        return {};
    };
    if (name == QLatin1String("--policy"))
        o.policyFile = v;
    else if (name == QLatin1String("--route"))
        s.routeId = v;
    else if (name == QLatin1String("--url"))
        s.url = QUrl(v, QUrl::StrictMode);
    else if (name == QLatin1String("--traffic")) {
        const auto spec = parseTrafficSpec(v);
        if (!spec)
            return spec.error();
        s.traffic = *spec;
    } else if (name == QLatin1String("--duration"))
        return duration(s.duration);
    else if (name == QLatin1String("--timeout"))
        return duration(s.requestTimeout);
    else if (name == QLatin1String("--retry-limit"))
        return v == QLatin1String("0") ? (s.retryCheckLimit = 0, Expected<void>())
                                       : duration(s.retryCheckLimit);
    else if (name == QLatin1String("--clients"))
        return whole(s.clients, 1);
    else if (name == QLatin1String("--max-requests"))
        return whole(s.maxRequests, 1);
    else if (name == QLatin1String("--seed"))
        return whole(s.seed, 0);
    else if (name == QLatin1String("--gateway")) {
        if (!exporterById(v))
            return QStringLiteral("--gateway: unknown target '%1'").arg(v);
        s.gateway = v;
    } else if (name == QLatin1String("--allow-host"))
        s.allowedHost = v;
    else if (name == QLatin1String("--csv"))
        o.csv = v;
    else if (name == QLatin1String("--tolerance")) {
        QString text = v;
        if (text.endsWith(QLatin1Char('%')))
            text.chop(1);
        bool ok = false;
        const double percent = text.toDouble(&ok);
        if (!ok || percent < 0 || percent > 100)
            return QStringLiteral("--tolerance takes a percentage between 0 and 100");
        o.tolerance = percent / 100.0;
    } else
        return QStringLiteral("unknown option '%1'").arg(name);
    return {};
}

OptionTable probeOptions(ProbeOptions &o)
{
    // Each option's value goes through applyOption(), which knows what each one takes.
    const auto valued = [&o](QString name, QString value, QString help) {
        return Option{name, {}, std::move(value), std::move(help),
            [&o, name](const QString &v) -> std::optional<QString> {
                if (const Expected<void> applied = applyOption(o, name, v); !applied)
                    return applied.error();
                return std::nullopt;
            }};
    };
    return OptionTable("probe",
        QStringLiteral(
            "quotactl probe --policy FILE --route ID --url URL --traffic SPEC [options]"),
        QStringLiteral(
            "Sends real HTTP requests to a running gateway in real time and compares, request by "
            "request,\n"
            "what it did (429 or not) with what the policy's limit decides for the same arrival "
            "times. Prints\n"
            "the agreement, the first divergence with an explanation, header problems "
            "(Retry-After,\n"
            "RateLimit, X-RateLimit-*) and the latency. Probe staging or a local gateway, never "
            "production:\n"
            "it sends exactly the traffic you describe, and only to loopback or to --allow-host.\n"
            "\n"
            "Traffic SPEC is the simulator's (quotactl simulate --help): steady:80/s, "
            "poisson:80/s,\n"
            "bursts:100/s,on=1s,off=2s, spike:50,window=10s, ramp:10/s..200/s, "
            "zipf:100/s,clients=50,\n"
            "replay:FILE; each may add ,clients=N and ,keyless=SHARE.\n"
            "\n"
            "Plans: on a route whose numbers differ by plan, ,plans=free:70/pro:30 puts each "
            "client on a plan\n"
            "(default: all on the default plan). A request says its plan as the policy finds it: "
            "the\nplan's name in `from`'s header or query parameter, or for a map one of the "
            "map's keys for\nthat plan. Each is predicted on its plan's numbers; the report adds "
            "figures per plan.\n"),
        {
            valued(QStringLiteral("--policy"), QStringLiteral("FILE"),
                QStringLiteral("the policy the gateway's config was exported from (required)")),
            valued(QStringLiteral("--route"), QStringLiteral("ID"),
                QStringLiteral("the route to probe (required)")),
            valued(QStringLiteral("--url"), QStringLiteral("URL"),
                QStringLiteral("the gateway, e.g. http://127.0.0.1:8080 (required); with a path "
                               "other than\n\"/\" that path is requested, else one the policy "
                               "resolves to the route")),
            valued(QStringLiteral("--traffic"), QStringLiteral("SPEC"),
                QStringLiteral("the traffic (required)")),
            valued(QStringLiteral("--duration"), QStringLiteral("D"),
                QStringLiteral("how long to send (default 10s, at most 1h)")),
            valued(QStringLiteral("--clients"), QStringLiteral("N"),
                QStringLiteral("simulated clients, each with its own identity in the route's key "
                               "header or\nquery parameter (default: the traffic's, 1)")),
            valued(QStringLiteral("--max-requests"), QStringLiteral("N"),
                QStringLiteral("stop sending after N requests (default 10000)")),
            valued(QStringLiteral("--timeout"), QStringLiteral("D"),
                QStringLiteral("per request (default 5s)")),
            valued(QStringLiteral("--gateway"), QStringLiteral("TARGET"),
                QStringLiteral(
                    "the export the gateway runs (nginx, haproxy, ...): divergences that "
                    "its\ndocumented approximation predicts are reported as explained")),
            valued(QStringLiteral("--tolerance"), QStringLiteral("P"),
                QStringLiteral("unexplained divergence allowed, in percent (default 1)")),
            valued(QStringLiteral("--allow-host"), QStringLiteral("HOST"),
                QStringLiteral("probe this non-loopback host (a staging gateway you own)")),
            valued(QStringLiteral("--retry-limit"), QStringLiteral("D"),
                QStringLiteral(
                    "follow a Retry-After up to D once after the traffic (default 30s; 0: never)")),
            valued(QStringLiteral("--seed"), QStringLiteral("S"),
                QStringLiteral("random seed of the traffic (default 1)")),
            valued(QStringLiteral("--csv"), QStringLiteral("OUT"),
                QStringLiteral("write one row per request to OUT")),
            opt::flag(QStringLiteral("--json"),
                QStringLiteral("print the report as one JSON object"), &o.json),
        },
        QStringLiteral("Exit status: 0 unexplained divergence within the tolerance, 1 above it, 2 "
                       "usage error,\n"
                       "3 the gateway could not be reached.\n"));
}

} // namespace

int runProbe(const QStringList &args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    ProbeOptions o;
    QStringList files;
    if (const std::optional<int> stop = probeOptions(o).parse(args, &files))
        return *stop;
    if (files.size() > 1 || (!files.isEmpty() && !o.policyFile.isEmpty()))
        return usage(QStringLiteral("one policy file only"));
    if (!files.isEmpty())
        o.policyFile = files.front();
    if (o.policyFile.isEmpty() || o.settings.routeId.isEmpty() || o.settings.url.isEmpty()
        || o.settings.traffic.text.isEmpty())
        return usage(QStringLiteral("--policy, --route, --url and --traffic are required"));

    const std::optional<Policy> policy = readPolicyOrReport(o.policyFile);
    if (!policy)
        return 1;
    const auto planned = makeProbePlan(*policy, o.settings);
    if (!planned)
        return usage(planned.error());
    const ProbePlan &plan = *planned;

    std::optional<EnforcedLimit> gateway;
    if (!o.settings.gateway.isEmpty()) {
        const auto config = toAlgorithmConfig(policy->routes[plan.routeIndex].limit());
        gateway = exporterById(o.settings.gateway)->enforcedLimit(*config);
        if (!gateway)
            err << "quotactl probe: " << o.settings.gateway
                << "'s behaviour is not modelled; comparing with the design alone\n";
    }

    if (!o.json)
        err << "probing " << plan.method << ' ' << plan.url.toString() << ": "
            << plan.requests.size() << " requests over " << formatDuration(o.settings.duration)
            << " (Ctrl-C stops and reports)\n";
    HttpProbe probe(*policy, plan, o.settings, gateway);
    const std::atomic<bool> &stop = stopOnSignals();
    QTimer stopPoll;
    QObject::connect(&stopPoll, &QTimer::timeout, &probe, [&] {
        if (stop.load())
            probe.cancel();
    });
    stopPoll.start(100);
    QObject::connect(&probe, &HttpProbe::finished, QCoreApplication::instance(),
        [] { QCoreApplication::exit(0); });
    probe.start();
    QCoreApplication::exec();

    const ProbeReport &report = probe.report();
    if (!o.csv.isEmpty()) {
        QSaveFile file(o.csv);
        if (!file.open(QIODevice::WriteOnly) || file.write(toCsv(report)) < 0 || !file.commit())
            err << "quotactl probe: cannot write " << o.csv << ": " << file.errorString() << '\n';
    }
    if (o.json)
        out << QJsonDocument(toJson(report)).toJson(QJsonDocument::Indented);
    else
        out << toText(report);
    out.flush();
    if (!report.unreachable.isEmpty()) {
        if (o.json)
            err << "quotactl probe: the gateway could not be reached: " << report.unreachable
                << '\n';
        return 3;
    }
    return withinTolerance(report, o.tolerance) ? 0 : 1;
}

} // namespace qs::cli
