#include "model/monitor/monitoredroute.h"

#include "limiter/redis/keylayout.h"
#include "model/policy/plans.h"

#include <algorithm>

namespace qs {

std::vector<MonitoredTarget> monitoredTargets(const Policy &policy)
{
    std::vector<MonitoredTarget> out;
    for (qsizetype r = 0; r < policy.routes.size(); ++r) {
        const Route &route = policy.routes[r];
        // A route whose numbers differ by plan is kept as several limits are (the bundle calls
        // several.lua for it), each limit under its name.
        const bool planned = routeVariesByPlan(policy, route);
        if (!route.hasSeveralLimits() && !planned) {
            out.push_back({route.id, r, -1, route.effectiveMode() == RouteMode::Shadow, {}, true});
            continue;
        }
        bool first = true;
        for (qsizetype l = 0; l < route.limits.size(); ++l) {
            const RouteLimit &limit = route.limits[l];
            const QString id
                = route.hasSeveralLimits() ? route.id + QLatin1Char('/') + limit.name : route.id;
            const bool shadow = route.modeOf(limit) == RouteMode::Shadow;
            if (!planned || !limit.variesByPlan()) {
                out.push_back({id, r, l, shadow, {}, first});
                first = false;
                continue;
            }
            for (const QString &plan : policy.plans.names) {
                if (!specForPlan(limit, plan))
                    continue; // unlimited: no keys
                out.push_back({id + QLatin1Char('@') + plan, r, l, shadow, plan, first});
                first = false;
            }
        }
    }
    return out;
}

MonitoredRoute MonitoredRoute::of(const Policy &policy, const MonitoredTarget &target)
{
    namespace layout = limiter::keylayout;
    const Route &route = policy.routes[target.route];
    MonitoredRoute m;
    m.id = target.id;
    auto decoder = makeLayoutDecoder(policy, route, target.limit, target.plan);
    if (!decoder)
        m.problem = decoder.error();
    else
        m.decoder = std::move(*decoder);
    // Per-second metrics exist only where Quota Studio's scripts write the keys.
    const bool ownKeys = std::none_of(policy.redis.layouts.cbegin(), policy.redis.layouts.cend(),
        [&](const RedisLayout &l) { return l.routeId == route.id; });
    // A route with several limits counts each request once, under the route: read by its
    // first limit's target only, so that totals over all targets count it once.
    if (policy.redis.metrics.value_or(false) && ownKeys && target.firstOfRoute)
        m.metricsPrefix
            = QByteArray::fromStdString(layout::metricsPrefix(layout::routePrefix(
                  policy.redis.effectivePrefix().toStdString(), route.id.toStdString())))
            + layout::kSeparator;
    if (!m.metricsPrefix.isEmpty() && routeVariesByPlan(policy, route))
        m.plans = policy.plans.names;
    if (m.decoder)
        m.readCost = qint64(m.decoder->reads("k").size());
    return m;
}

std::vector<ScanGroup> ScanGroup::of(const std::vector<MonitoredRoute> &routes)
{
    std::vector<ScanGroup> groups;
    for (size_t r = 0; r < routes.size(); ++r) {
        if (!routes[r].decoder)
            continue;
        const QByteArray pattern = routes[r].decoder->scanGroupPattern();
        auto group = std::find_if(
            groups.begin(), groups.end(), [&](const ScanGroup &g) { return g.pattern == pattern; });
        if (group == groups.end())
            group = groups.insert(groups.end(), ScanGroup{pattern, {}});
        group->routes.push_back(int(r));
    }
    return groups;
}

} // namespace qs
