#include "model/probe/probeplan.h"

#include "model/policy/ratesyntax.h"
#include "model/policy/routeresolver.h"

#include <QHostAddress>
#include <QRandomGenerator>
#include <QUrlQuery>

#include <random>

namespace qs {

namespace {

bool isLoopbackHost(const QString &host)
{
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}

// Candidate fillers for `*`, `{name}` and `**`: the first that the policy resolves to the
// route wins (a more specific route may claim "/v1/x" but not "/v1/probe").
QString fill(const PathPattern &pattern, const QString &word, bool deepStar)
{
    QString path;
    for (const PathPattern::Segment &s : pattern.segments()) {
        switch (s.kind) {
        case PathPattern::SegmentKind::Literal:
            path += QLatin1Char('/') + s.text;
            break;
        case PathPattern::SegmentKind::Param:
        case PathPattern::SegmentKind::Star:
            path += QLatin1Char('/') + word;
            break;
        case PathPattern::SegmentKind::DoubleStar:
            if (deepStar)
                path += QLatin1Char('/') + word;
            break;
        }
    }
    return path.isEmpty() ? QStringLiteral("/") : path;
}

QString firstMethod(const Route &route)
{
    if (route.methods.isEmpty() || route.methods.contains(QLatin1String("GET")))
        return QStringLiteral("GET");
    return route.methods.front();
}

Expected<std::vector<PlannedRequest>> arrivals(const ProbeSettings &settings,
    const TrafficSpec &spec, const Policy &policy, qsizetype routeIndex)
{
    auto made = makeTrafficSource(spec, settings.seed, settings.duration);
    if (!made)
        return made.error();
    const std::unique_ptr<TrafficSource> source = std::move(*made);
    std::vector<PlannedRequest> out;
    const RouteResolver resolver(policy);
    std::mt19937_64 keylessDice(settings.seed ^ 0x6b65796c657373ULL);
    std::bernoulli_distribution keyless(spec.keyless);
    std::vector<Arrival> batch;
    while (qint64(out.size()) < settings.maxRequests) {
        batch.clear();
        if (source->next(batch, 4096, settings.duration) == 0)
            break;
        for (const Arrival &a : batch) {
            // Replay: only the log's requests that the policy gives to this route.
            const auto &lines = source->requestLines();
            if (!lines.empty()) {
                const RequestLine &line = lines[a.request];
                if (resolver.resolve(line.method, line.target) != routeIndex)
                    continue;
            }
            out.push_back({a.at, a.client, spec.keyless > 0 && keyless(keylessDice)});
            if (qint64(out.size()) >= settings.maxRequests)
                break;
        }
    }
    return out;
}

} // namespace

QString samplePathFor(const Policy &policy, qsizetype index)
{
    const Route &route = policy.routes[index];
    const auto pattern = PathPattern::parse(route.path);
    if (!pattern)
        return {};
    const RouteResolver resolver(policy);
    for (const bool deep : {false, true})
        for (const char *word : {"probe", "qs-probe", "x"}) {
            const QString path = fill(*pattern, QString::fromLatin1(word), deep);
            if (resolver.resolve(firstMethod(route), path) == index)
                return path;
        }
    return {};
}

QString ProbePlan::identity(std::uint32_t client) const
{
    return QStringLiteral("qs-probe-%1-%2").arg(runTag).arg(client);
}

QUrl ProbePlan::urlFor(const PlannedRequest &request) const
{
    if (identityQueries.isEmpty() || request.keyless)
        return url;
    QUrl u = url;
    QUrlQuery query(u);
    for (const QString &name : identityQueries)
        query.addQueryItem(name, identity(request.client));
    u.setQuery(query);
    return u;
}

QList<QPair<QString, QString>> ProbePlan::headersFor(const PlannedRequest &request) const
{
    QList<QPair<QString, QString>> headers;
    if (!request.keyless)
        for (const QString &name : identityHeaders)
            headers.append({name, identity(request.client)});
    return headers;
}

Expected<ProbePlan> makeProbePlan(const Policy &policy, const ProbeSettings &settings)
{
    ProbePlan plan;
    const Route *route = policy.route(settings.routeId);
    if (!route)
        return QStringLiteral("no route has the id '%1'").arg(settings.routeId);
    plan.routeId = route->id;
    plan.routeIndex = route - policy.routes.data();

    const QUrl &url = settings.url;
    if (!url.isValid() || url.host().isEmpty()
        || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
        return QStringLiteral("--url '%1' is not an http:// or https:// URL with a host")
            .arg(url.toString());
    if (!isLoopbackHost(url.host())
        && url.host().compare(settings.allowedHost, Qt::CaseInsensitive) != 0)
        return QStringLiteral("%1 is not a loopback address; the probe sends real traffic, so "
                              "name the host explicitly with --allow-host %1 (a staging "
                              "gateway, never production)")
            .arg(url.host());
    if (settings.maxRequests < 1 || settings.maxRequests > kProbeMaxRequests)
        return QStringLiteral("--max-requests must be between 1 and %1").arg(kProbeMaxRequests);
    if (settings.duration <= 0 || settings.duration > kProbeMaxDuration)
        return QStringLiteral("--duration must be above 0 and at most 1h");

    plan.method = firstMethod(*route);
    plan.url = url;
    if (url.path().isEmpty() || url.path() == QLatin1String("/")) {
        const QString path = samplePathFor(policy, plan.routeIndex);
        if (path.isEmpty())
            return QStringLiteral("no request path resolves to route '%1' (a more specific "
                                  "route claims them all); give the path in --url")
                .arg(route->id);
        plan.url.setPath(path);
    } else if (RouteResolver(policy).resolve(plan.method, url.path()) != plan.routeIndex) {
        plan.warnings << QStringLiteral("%1 %2 does not resolve to route '%3' in the policy: "
                                        "the prediction assumes it does")
                             .arg(plan.method, url.path(), route->id);
    }

    TrafficSpec spec = settings.traffic;
    if (settings.clients > 0)
        spec.clients = settings.clients;
    plan.clients = std::max<std::uint32_t>(1, spec.clients);
    // Every limit's key parts: a route whose limits count under different headers gets each.
    for (const RouteLimit &limit : route->limits) {
        bool identified = false;
        for (const KeySelector &k : policy.keyOf(*route, limit)) {
            QStringList &names
                = k.kind == KeySelector::Kind::Header ? plan.identityHeaders : plan.identityQueries;
            if (k.kind != KeySelector::Kind::Header && k.kind != KeySelector::Kind::Query)
                continue;
            identified = true;
            if (!names.contains(k.name))
                names << k.name;
        }
        if (!identified && route->hasSeveralLimits())
            plan.warnings << QStringLiteral("limit '%1' of route '%2' keys by client address or "
                                            "globally: the probe's clients all count under one "
                                            "key there")
                                 .arg(limit.name, route->id);
    }
    if (plan.identityHeaders.isEmpty() && plan.identityQueries.isEmpty()) {
        plan.warnings << QStringLiteral(
            "route '%1' keys by client address or globally: every request of the probe counts "
            "under one key, and traffic that key saw shortly before the probe changes the first "
            "decisions (probe an idle gateway, or wait for the quota to refill)")
                             .arg(route->id);
    }
    // A fresh tag per run: identities the gateway has never seen start with a full quota.
    plan.runTag = QString::number(QRandomGenerator::global()->generate(), 16);

    if (spec.kind == TrafficSpec::Kind::Spike)
        plan.alignStartTo = spec.window;
    auto requests = arrivals(settings, spec, policy, plan.routeIndex);
    if (!requests)
        return requests.error();
    plan.requests = std::move(*requests);
    if (plan.requests.empty())
        return QStringLiteral("the traffic '%1' sends no request to route '%2' within %3")
            .arg(spec.text, route->id, formatDuration(settings.duration));
    return plan;
}

} // namespace qs
