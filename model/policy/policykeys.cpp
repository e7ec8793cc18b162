#include "model/policy/policykeys.h"

#include "limiter/redis/keylayout.h"
#include "model/policy/plans.h"

namespace qs {

bool keysLimitsByName(const Policy &policy, const Route &route)
{
    return route.hasSeveralLimits() || routeVariesByPlan(policy, route);
}

std::string limitKeyPrefix(
    const Policy &policy, const Route &route, qsizetype limit, const QString &plan)
{
    std::string prefix = limiter::keylayout::routePrefix(
        policy.redis.effectivePrefix().toStdString(), route.id.toStdString());
    if (!keysLimitsByName(policy, route))
        return prefix;
    const RouteLimit &l = route.limits[limit];
    prefix = limiter::keylayout::stateKey(prefix, l.name.toStdString());
    if (!plan.isEmpty() && l.variesByPlan())
        prefix = limiter::keylayout::stateKey(prefix, plan.toStdString());
    return prefix;
}

} // namespace qs
