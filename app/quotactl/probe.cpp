// quotactl probe: plays traffic against a running gateway and compares its decisions with the
// design's, request by request (model/probe, docs/probe.md).
#include "commands.h"
#include "model/export/exporter.h"
#include "model/policy/limitconversion.h"
#include "model/policy/ratesyntax.h"
#include "model/probe/httpprobe.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QSaveFile>
#include <QTextStream>
#include <QTimer>

namespace qs::cli {

namespace {

const char kProbeHelp[]
    = R"(Usage: quotactl probe --policy FILE --route ID --url URL --traffic SPEC [options]

Sends real HTTP requests to a running gateway in real time and compares, request by request,
what it did (429 or not) with what the policy's limit decides for the same arrival times. Prints
the agreement, the first divergence with an explanation, header problems (Retry-After,
RateLimit, X-RateLimit-*) and the latency. Probe staging or a local gateway, never production:
it sends exactly the traffic you describe, and only to loopback or to --allow-host.

Traffic SPEC is the simulator's (quotactl simulate --help): steady:80/s, poisson:80/s,
bursts:100/s,on=1s,off=2s, spike:50,window=10s, ramp:10/s..200/s, zipf:100/s,clients=50,
replay:FILE; each may add ,clients=N and ,keyless=SHARE.

Options:
  --policy FILE     the policy the gateway's config was exported from (required)
  --route ID        the route to probe (required)
  --url URL         the gateway, e.g. http://127.0.0.1:8080 (required); with a path other than
                    "/" that path is requested, else one the policy resolves to the route
  --traffic SPEC    the traffic (required)
  --duration D      how long to send (default 10s, at most 1h)
  --clients N       simulated clients, each with its own identity in the route's key header or
                    query parameter (default: the traffic's, 1)
  --max-requests N  stop sending after N requests (default 10000)
  --timeout D       per request (default 5s)
  --gateway TARGET  the export the gateway runs (nginx, haproxy, ...): divergences that its
                    documented approximation predicts are reported as explained
  --tolerance P     unexplained divergence allowed, in percent (default 1)
  --allow-host HOST probe this non-loopback host (a staging gateway you own)
  --retry-limit D   follow a Retry-After up to D once after the traffic (default 30s; 0: never)
  --seed S          random seed of the traffic (default 1)
  --csv OUT         write one row per request to OUT
  --json            print the report as one JSON object
Exit status: 0 unexplained divergence within the tolerance, 1 above it, 2 usage error,
3 the gateway could not be reached.
)";

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

const QStringList kValueOptions = {QStringLiteral("--policy"), QStringLiteral("--route"),
    QStringLiteral("--url"), QStringLiteral("--traffic"), QStringLiteral("--duration"),
    QStringLiteral("--timeout"), QStringLiteral("--retry-limit"), QStringLiteral("--clients"),
    QStringLiteral("--max-requests"), QStringLiteral("--seed"), QStringLiteral("--gateway"),
    QStringLiteral("--allow-host"), QStringLiteral("--csv"), QStringLiteral("--tolerance")};

} // namespace

int runProbe(const QStringList &args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    ProbeOptions o;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a == QLatin1String("-h") || a == QLatin1String("--help")) {
            out << kProbeHelp;
            return 0;
        }
        if (a == QLatin1String("--json")) {
            o.json = true;
            continue;
        }
        if (!kValueOptions.contains(a)) {
            if (!a.startsWith(QLatin1Char('-')) && o.policyFile.isEmpty()) {
                o.policyFile = a;
                continue;
            }
            return usage(QStringLiteral("unknown option '%1'").arg(a));
        }
        if (i + 1 >= args.size())
            return usage(a + QStringLiteral(" needs a value"));
        if (const Expected<void> applied = applyOption(o, a, args[++i]); !applied)
            return usage(applied.error());
    }
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
        const auto config = toAlgorithmConfig(policy->routes[plan.routeIndex].limit);
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
