#include "model/simulation/planassignment.h"

#include "model/policy/plans.h"

#include <algorithm>

namespace qs {

int PlanAssignment::of(std::uint32_t client) const
{
    if (cumulative.empty())
        return fallback;
    // splitmix64 of (seed, client): a uniform draw in [0, total).
    std::uint64_t x = seed ^ (std::uint64_t(client) * 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    const double u = double(x >> 11) / double(1ULL << 53) * cumulative.back();
    const auto at = std::upper_bound(cumulative.begin(), cumulative.end(), u);
    return int(std::min<std::ptrdiff_t>(at - cumulative.begin(), cumulative.size() - 1));
}

Expected<PlanAssignment> assignPlans(
    const Policy &policy, const Route &route, const TrafficSpec &traffic, std::uint64_t seed)
{
    PlanAssignment plans;
    plans.seed = seed;
    if (!routeVariesByPlan(policy, route))
        return plans;
    plans.names = policy.plans.names;
    plans.fallback = std::max(0, int(plans.names.indexOf(policy.plans.effectiveDefault())));
    if (traffic.plans.isEmpty())
        return plans;
    plans.cumulative.assign(std::size_t(plans.names.size()), 0);
    for (const auto &[name, weight] : traffic.plans) {
        const qsizetype at = plans.names.indexOf(name);
        if (at < 0)
            return QStringLiteral("traffic plans: '%1' is not a plan of this policy (%2)")
                .arg(name, plans.names.join(QStringLiteral(", ")));
        plans.cumulative[std::size_t(at)] += weight;
    }
    for (std::size_t i = 1; i < plans.cumulative.size(); ++i)
        plans.cumulative[i] += plans.cumulative[i - 1];
    return plans;
}

} // namespace qs
