#pragma once
// Where a policy's limits keep their state in Redis: the one place that turns a route, one of its
// limits and a plan into a key prefix (docs/redis-layout.md). The Redis bundle, the load
// generator (and with it the Monitor tab's demo) and the monitor's decoder all ask here, so what
// one writes the others find.
//
//   <prefix>:<route>                          a route with one limit, the same for every plan
//   <prefix>:<route>:<limit>                  one limit of several, or of a route that has plans
//   <prefix>:<route>:<limit>:<plan>           a limit whose numbers differ by plan, on that plan
#include "model/policy/policy.h"

#include <string>

namespace qs {

// Whether the route's limits are decided together under their names (several.lua, acquireAll):
// several limits, or numbers that differ by plan.
bool keysLimitsByName(const Policy &policy, const Route &route);

// RedisRule::keyPrefix of the route's limit `limit` for requests on `plan` (empty: no plan, or
// the policy has none). The plan is part of the prefix only for a limit whose numbers differ by
// plan; the others are shared by every plan.
std::string limitKeyPrefix(
    const Policy &policy, const Route &route, qsizetype limit, const QString &plan = {});

} // namespace qs
