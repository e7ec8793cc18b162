#include "model/monitor/monitoredroute.h"

#include "limiter/redis/keylayout.h"

#include <algorithm>

namespace qs {

MonitoredRoute MonitoredRoute::of(const Policy &policy, const Route &route)
{
    namespace layout = limiter::keylayout;
    MonitoredRoute m;
    m.id = route.id;
    auto decoder = makeLayoutDecoder(policy, route);
    if (!decoder)
        m.problem = decoder.error();
    else
        m.decoder = std::move(*decoder);
    // Per-second metrics exist only where Quota Studio's scripts write the keys.
    const bool ownKeys = std::none_of(policy.redis.layouts.cbegin(), policy.redis.layouts.cend(),
        [&](const RedisLayout &l) { return l.routeId == route.id; });
    if (policy.redis.metrics.value_or(false) && ownKeys)
        m.metricsPrefix
            = QByteArray::fromStdString(layout::metricsPrefix(layout::routePrefix(
                  policy.redis.effectivePrefix().toStdString(), route.id.toStdString())))
            + layout::kSeparator;
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
