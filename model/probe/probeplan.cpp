#include "model/probe/probeplan.h"

#include "model/policy/plans.h"
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

// Puts the probe's clients on plans (a route whose numbers differ by plan) and works out how
// their requests say it; an error when the traffic asks for a plan no request can be on.
Expected<bool> planClients(const Policy &policy, const Route &route, const TrafficSpec &spec,
    std::uint64_t seed, ProbePlan &plan)
{
    auto assigned = assignPlans(policy, route, spec, seed);
    if (!assigned)
        return assigned.error();
    plan.plans = *std::move(assigned);
    if (plan.plans.empty())
        return true;
    const PlanSettings &settings = policy.plans;
    const QStringList &names = plan.plans.names;
    const QString fallback = names[plan.plans.fallback];
    if (settings.from
        && (settings.from->kind == KeySelector::Kind::Header
            || settings.from->kind == KeySelector::Kind::Query))
        plan.planPart = settings.from;
    if (settings.fromMap()) {
        if (!settings.map)
            return QStringLiteral("route '%1' has plans from the map file %2, which was not "
                                  "read: give the policy as a file (the map is read beside it)")
                .arg(route.id, *settings.mapFile);
        plan.planMapValues.resize(std::size_t(names.size()));
        for (const PlanMapEntry &e : settings.map->entries)
            if (const qsizetype at = names.indexOf(e.plan); at >= 0)
                plan.planMapValues[std::size_t(at)] << e.value;
    }
    // The clients on each plan (counted among the first million: a probe has far fewer).
    std::vector<std::uint32_t> onPlan(std::size_t(names.size()), 0);
    for (std::uint32_t c = 0; c < std::min<std::uint32_t>(plan.clients, 1u << 20); ++c)
        ++onPlan[std::size_t(plan.plans.of(c))];
    if (!plan.planPart) {
        plan.warnings << QStringLiteral("route '%1': plans are found from the client address, "
                                        "and every probe request comes from 127.0.0.1: they "
                                        "are all on that address's plan")
                             .arg(route.id);
        return true;
    }
    if (spec.plans.isEmpty())
        plan.warnings << QStringLiteral("route '%1''s numbers differ by plan, and every probe "
                                        "client is on the default plan '%2'; traffic plans= "
                                        "spreads them (plans=%3)")
                             .arg(route.id, fallback,
                                 names.join(QStringLiteral(":1/")) + QStringLiteral(":1"));
    for (qsizetype p = 0; settings.fromMap() && p < names.size(); ++p) {
        const QStringList &values = plan.planMapValues[std::size_t(p)];
        if (onPlan[std::size_t(p)] == 0 || p == plan.plans.fallback)
            continue;
        if (values.isEmpty())
            return QStringLiteral("traffic plans: no value in the map %1 is on plan '%2', so no "
                                  "probe request can be on it; add a line for it to the map, "
                                  "or leave '%2' out of plans=")
                .arg(*settings.mapFile, names[p]);
        plan.warnings << QStringLiteral("the %1 client(s) on plan '%2' send the map's values "
                                        "for it (%3), not fresh identities: traffic on those "
                                        "keys before the probe (an earlier probe within the "
                                        "limits' windows too) changes the first decisions")
                             .arg(onPlan[std::size_t(p)])
                             .arg(names[p],
                                 values.mid(0, 3).join(QStringLiteral(", "))
                                     + (values.size() > 3 ? QStringLiteral(", …") : QString()));
    }
    return true;
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

QString ProbePlan::planOf(std::uint32_t client) const
{
    return plans.empty() ? QString() : plans.names[plans.of(client)];
}

namespace {

bool containsHeader(const QStringList &names, const QString &name)
{
    return names.contains(name, Qt::CaseInsensitive);
}

bool samePart(const KeySelector &a, KeySelector::Kind kind, const QString &name)
{
    // Header names are case-insensitive; query parameter names are not.
    return a.kind == kind
        && a.name.compare(
               name, kind == KeySelector::Kind::Header ? Qt::CaseInsensitive : Qt::CaseSensitive)
        == 0;
}

} // namespace

QString ProbePlan::valueOf(std::uint32_t client, const KeySelector &part) const
{
    if (!plans.empty() && planPart && samePart(*planPart, part.kind, part.name)) {
        const int plan = plans.of(client);
        if (planMapValues.empty())
            return plans.names[plan]; // from: the plan's name itself
        const QStringList &values = planMapValues[std::size_t(plan)];
        if (plan != plans.fallback && !values.isEmpty())
            return values[qsizetype(client % std::uint32_t(values.size()))];
    }
    return identity(client);
}

QUrl ProbePlan::urlFor(const PlannedRequest &request) const
{
    const bool planQuery = !plans.empty() && planPart && planPart->kind == KeySelector::Kind::Query
        && !identityQueries.contains(planPart->name);
    if ((identityQueries.isEmpty() || request.keyless) && !planQuery)
        return url;
    QUrl u = url;
    QUrlQuery query(u);
    if (!request.keyless)
        for (const QString &name : identityQueries)
            query.addQueryItem(
                name, valueOf(request.client, KeySelector{KeySelector::Kind::Query, name}));
    if (planQuery)
        query.addQueryItem(planPart->name, valueOf(request.client, *planPart));
    u.setQuery(query);
    return u;
}

QList<QPair<QString, QString>> ProbePlan::headersFor(const PlannedRequest &request) const
{
    QList<QPair<QString, QString>> headers;
    bool planSent = false;
    if (!request.keyless)
        for (const QString &name : identityHeaders) {
            const KeySelector part{KeySelector::Kind::Header, name};
            headers.append({name, valueOf(request.client, part)});
            planSent
                = planSent || (planPart && samePart(*planPart, KeySelector::Kind::Header, name));
        }
    if (!plans.empty() && planPart && planPart->kind == KeySelector::Kind::Header && !planSent
        && !(request.keyless && containsHeader(identityHeaders, planPart->name)))
        headers.append({planPart->name, valueOf(request.client, *planPart)});
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
    if (auto planned = planClients(policy, *route, spec, settings.seed, plan); !planned)
        return planned.error();
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
