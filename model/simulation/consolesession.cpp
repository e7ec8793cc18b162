#include "model/simulation/consolesession.h"

#include "limiter/algorithms/headers.h"
#include "model/policy/limitconversion.h"

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
    m_engine = std::make_unique<limiter::Engine>();
    m_rules.clear();
    m_problems.clear();
    for (const Route &r : policy.routes) {
        const auto converted = toAlgorithmConfig(r.limit());
        if (!converted) {
            m_rules.append(std::nullopt);
            m_problems.append(converted.error().message);
            continue;
        }
        const limiter::RuleResult added = m_engine->addRule(*converted);
        m_rules.append(added.id);
        m_problems.append(QString::fromStdString(added.error));
    }
}

ConsoleResponse ConsoleSession::send(const ConsoleRequest &request, limiter::Micros now)
{
    ConsoleResponse out;
    out.route = m_resolver->resolve(request.method, request.target);
    if (!out.route)
        return out; // not limited: the upstream answers
    const qsizetype i = *out.route;
    const Route &route = m_policy.routes[i];
    out.routeId = route.id;
    if (!m_rules[i]) {
        out.problem = m_problems[i];
        return out;
    }
    const bool enforce = route.effectiveMode() == RouteMode::Enforce;
    const int denyStatus = m_policy.defaults.effectiveStatus();
    out.missingKey = m_policy.missingKeyOf(route);
    const RequestKey key = requestKey(
        m_policy.keyOf(route), out.missingKey, {request.client, request.headers, request.target});
    out.key = key.key;
    out.missingKeyParts = key.missing;
    if (key.outcome == RequestKey::Outcome::Unlimited)
        return out; // passed to the upstream, counted nowhere
    if (key.outcome == RequestKey::Outcome::Denied) {
        out.shadowed = !enforce;
        out.status = enforce ? denyStatus : 200;
        return out;
    }
    out.counted = true;
    const std::string engineKey = out.key.toStdString();
    const std::int64_t cost = request.cost > 0 ? request.cost : route.effectiveCost();
    out.decision = m_engine->acquire(*m_rules[i], engineKey, now, cost);
    out.quotaAfter = m_engine->peek(*m_rules[i], engineKey, now);
    out.shadowed = !out.decision.allowed && !enforce;
    out.status = out.decision.allowed || !enforce ? 200 : denyStatus;
    const auto style = m_policy.defaults.headers.value_or(limiter::HeaderStyle::Draft);
    for (const limiter::Header &h :
        limiter::responseHeaders(out.decision, route.id.toStdString(), style)) {
        // A shadow route passes the request: telling the client to retry later would be a lie.
        if (out.shadowed && h.name == "Retry-After")
            continue;
        out.headers.append({QString::fromStdString(h.name), QString::fromStdString(h.value)});
    }
    return out;
}

} // namespace qs
