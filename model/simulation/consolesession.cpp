#include "model/simulation/consolesession.h"

#include "limiter/algorithms/headers.h"
#include "limiter/algorithms/limitset.h"
#include "model/policy/limitconversion.h"
#include "model/policy/plans.h"

#include <array>

namespace qs {

ConsoleSession::ConsoleSession()
{
    setPolicy(Policy{});
}
ConsoleSession::~ConsoleSession() = default;

void ConsoleSession::setPolicy(const Policy &policy)
{
    m_policy = policy;
    m_resolver = std::make_unique<RouteResolver>(policy);
    m_routes.clear();
    for (const Route &r : policy.routes) {
        RouteRun run;
        if (r.limits.size() > RouteLimit::kMaxLimits) {
            run.problem = QStringLiteral("%1 limits; a route has at most %2")
                              .arg(r.limits.size())
                              .arg(RouteLimit::kMaxLimits);
            m_routes.push_back(std::move(run));
            continue;
        }
        for (const RouteLimit &l : r.limits) {
            LimitRun limit;
            const QString problem = limitRun(policy, r, l, limit);
            if (!problem.isEmpty()) {
                run.limits.clear();
                run.problem = problem;
                break;
            }
            run.limits.push_back(std::move(limit));
        }
        m_routes.push_back(std::move(run));
    }
}

// The limit's config, or one per plan when its numbers differ by plan; why not, if it cannot.
QString ConsoleSession::limitRun(
    const Policy &policy, const Route &route, const RouteLimit &limit, LimitRun &run)
{
    const QString which
        = route.hasSeveralLimits() ? QStringLiteral("limit '%1'").arg(limit.name) : QString();
    run.byPlan = limit.variesByPlan() && !policy.plans.names.isEmpty();
    const QStringList plans = run.byPlan ? policy.plans.names : QStringList{QString()};
    for (const QString &plan : plans) {
        const auto spec = run.byPlan ? specForPlan(limit, plan) : limit.spec;
        if (!spec) {
            run.configs.push_back(std::nullopt);
            continue;
        }
        const auto converted = toAlgorithmConfig(*spec);
        if (!converted) {
            QString where = which;
            if (run.byPlan)
                where += (where.isEmpty() ? QString() : QStringLiteral(" "))
                    + QStringLiteral("on plan '%1'").arg(plan);
            return where.isEmpty() ? converted.error().message
                                   : QStringLiteral("%1: %2").arg(where, converted.error().message);
        }
        run.configs.push_back(*converted);
    }
    return {};
}

// The response headers: a route's only limit under the route's name; several limits as one
// item each under its own name (shadow limits are not the client's business), with what each
// has left once the request is decided; X-RateLimit-* and Retry-After of the deciding limit.
std::vector<limiter::Header> ConsoleSession::headersOf(
    const Route &route, const ConsoleResponse &out) const
{
    const auto style = m_policy.defaults.headers.value_or(limiter::HeaderStyle::Draft);
    if (!route.hasSeveralLimits())
        return limiter::responseHeaders(out.decision, route.id.toStdString(), style);
    std::vector<std::string> names;
    names.reserve(std::size_t(out.limits.size()));
    std::vector<limiter::PolicyItem> items;
    for (const ConsoleLimitResult &l : out.limits) {
        if (l.shadow || !l.counted || !l.quotaAfter)
            continue;
        names.push_back(l.name.toStdString());
        const limiter::Quota &q = *l.quotaAfter;
        const limiter::Micros reset
            = l.decision.allowed ? q.resetAfter : std::max(q.resetAfter, l.decision.retryAfter);
        items.push_back({names.back(), q.limit, q.window, q.remaining, reset});
    }
    return limiter::responseHeaders(items, out.decision, style);
}

ConsoleResponse ConsoleSession::send(const ConsoleRequest &request, limiter::Micros now)
{
    ConsoleResponse out;
    out.route = m_resolver->resolve(request.method, request.target);
    if (!out.route)
        return out; // not limited: the upstream answers
    const qsizetype i = *out.route;
    const Route &route = m_policy.routes[i];
    RouteRun &run = m_routes[std::size_t(i)];
    out.routeId = route.id;
    if (run.limits.empty()) {
        out.problem = run.problem;
        return out;
    }
    const int denyStatus = m_policy.defaults.effectiveStatus();
    out.missingKey = m_policy.missingKeyOf(route);
    const RequestFacts facts{request.client, request.headers, request.target};
    int plan = request.plan ? int(m_policy.plans.names.indexOf(*request.plan))
                            : requestPlan(m_policy, facts);
    if (plan < 0 && !m_policy.plans.names.isEmpty()) // a picked plan the policy lacks
        plan = requestPlan(m_policy, {});
    out.plan = m_policy.plans.names.value(plan);

    // Each limit's key; a limit whose key part is missing passes (allow) or refuses (deny) the
    // request on its own, counted nowhere.
    std::array<limiter::LimitRef, limiter::kMaxLimitsPerRequest> refs;
    std::array<qsizetype, limiter::kMaxLimitsPerRequest> refLimit{};
    std::size_t counted = 0;
    bool refused = false, refusedByShadow = false;
    for (qsizetype l = 0; l < route.limits.size(); ++l) {
        const RouteLimit &limit = route.limits[l];
        const bool shadow = route.modeOf(limit) == RouteMode::Shadow;
        LimitRun &lr = run.limits[std::size_t(l)];
        const std::optional<limiter::AlgorithmConfig> &config
            = lr.configs[lr.byPlan ? std::size_t(plan) : 0];
        const RequestKey key
            = requestKey(m_policy.keyOf(route, limit), m_policy.missingKeyOf(route, limit), facts);
        ConsoleLimitResult result{limit.name,
            lr.byPlan ? out.plan + QLatin1Char(':') + key.key : key.key, key.missing, false, shadow,
            !config, {}, {}};
        if (!config) { // unlimited on this plan: neither counted nor denied here
            out.limits.append(result);
            continue;
        }
        if (key.outcome == RequestKey::Outcome::Denied)
            (shadow ? refusedByShadow : refused) = true;
        if (key.outcome == RequestKey::Outcome::Counted) {
            result.counted = true;
            auto [state, fresh] = lr.states.try_emplace(result.key.toStdString());
            if (fresh)
                state->second = limiter::freshState(*config);
            const std::int64_t cost = request.cost > 0 ? request.cost : route.costOf(limit);
            refs[counted] = {&*config, &state->second, cost, shadow};
            refLimit[counted++] = l;
        }
        out.limits.append(result);
    }
    if (refused) { // missing_key: deny on an enforced limit; nothing is counted
        out.status = denyStatus;
        out.missingKeyParts = out.limits.first().missingKeyParts;
        return out;
    }
    if (counted == 0) {
        out.shadowed = refusedByShadow;
        out.missingKeyParts = out.limits.first().missingKeyParts;
        return out; // passed to the upstream, counted nowhere
    }

    std::array<limiter::Decision, limiter::kMaxLimitsPerRequest> each;
    const limiter::SetDecision set
        = limiter::decideAll(std::span(refs.data(), counted), now, std::span(each.data(), counted));
    for (std::size_t k = 0; k < counted; ++k) {
        ConsoleLimitResult &result = out.limits[refLimit[k]];
        result.decision = each[k];
        result.quotaAfter = limiter::peek(*refs[k].config, *refs[k].state, now);
    }
    // The figures shown: the deciding enforced limit's, or with only shadow limits, the first
    // that would have denied (else the first).
    std::size_t shown = 0;
    if (set.deciding >= 0) {
        shown = std::size_t(set.deciding);
    } else {
        for (std::size_t k = 0; k < counted; ++k)
            if (!each[k].allowed) {
                shown = k;
                break;
            }
    }
    const ConsoleLimitResult &deciding = out.limits[refLimit[shown]];
    out.decidingLimit = deciding.name;
    out.key = deciding.key;
    out.missingKeyParts = deciding.missingKeyParts;
    out.counted = true;
    out.decision = set.deciding >= 0 ? set.decision : each[shown];
    out.quotaAfter = deciding.quotaAfter;
    out.shadowed = set.allowed && (set.shadowDenials > 0 || refusedByShadow);
    out.status = set.allowed ? 200 : denyStatus;
    for (const limiter::Header &h : headersOf(route, out)) {
        // A request a shadow limit passes: telling the client to retry later would be a lie.
        if (set.allowed && h.name == "Retry-After")
            continue;
        out.headers.append({QString::fromStdString(h.name), QString::fromStdString(h.value)});
    }
    return out;
}

} // namespace qs
