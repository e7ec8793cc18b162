#include "model/simulation/consolesession.h"

#include "limiter/headers.h"
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
        const auto converted = toAlgorithmConfig(r.limit);
        if (const auto *problem = std::get_if<LimitProblem>(&converted)) {
            m_rules.append(std::nullopt);
            m_problems.append(problem->message);
            continue;
        }
        const limiter::RuleResult added
            = m_engine->addRule(std::get<limiter::AlgorithmConfig>(converted));
        m_rules.append(added.id);
        m_problems.append(QString::fromStdString(added.error));
    }
}

QString ConsoleSession::engineKey(const QList<KeySelector> &selectors, const QString &client)
{
    QStringList parts;
    for (const KeySelector &k : selectors)
        parts << (k.kind == KeySelector::Kind::Global ? QStringLiteral("all") : client);
    return parts.join(QLatin1Char('|'));
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
    out.key = engineKey(m_policy.keyOf(route), request.client);
    const std::string key = out.key.toStdString();
    const std::int64_t cost = request.cost > 0 ? request.cost : route.effectiveCost();
    out.decision = m_engine->acquire(*m_rules[i], key, now, cost);
    out.quotaAfter = m_engine->peek(*m_rules[i], key, now);
    const bool enforce = route.effectiveMode() == RouteMode::Enforce;
    out.shadowed = !out.decision.allowed && !enforce;
    out.status = out.decision.allowed || !enforce ? 200 : m_policy.defaults.status.value_or(429);
    const auto style = m_policy.defaults.headers.value_or(limiter::HeaderStyle::Draft);
    for (const limiter::Header &h :
        limiter::responseHeaders(out.decision, route.id.toStdString(), style))
        out.headers.append({QString::fromStdString(h.name), QString::fromStdString(h.value)});
    return out;
}

} // namespace qs
