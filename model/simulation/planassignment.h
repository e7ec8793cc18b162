#pragma once
// Which plan each simulated client is on: drawn once per client from the traffic's `plans=`
// weights (the same seed, the same plans), or the policy's default plan for everyone. The
// simulator and the probe draw alike, so a probe's clients are on the plans a simulation of the
// same traffic puts them on.
#include "model/base/expected.h"
#include "model/policy/policy.h"
#include "model/simulation/traffic.h"

#include <cstdint>
#include <vector>

namespace qs {

struct PlanAssignment {
    QStringList names; // empty: the policy has no plans, or the route's numbers do not vary
    std::vector<double> cumulative; // the weights' running sums, in names' order
    int fallback = 0; // the default plan's index, for everyone when no weights are given
    std::uint64_t seed = 0;

    // An index into names (0 when there are none).
    int of(std::uint32_t client) const;
    std::size_t count() const { return std::size_t(std::max<qsizetype>(1, names.size())); }
    bool empty() const { return names.isEmpty(); }
};

// The assignment for `route`'s clients under `traffic`, or why the traffic's plans do not fit the
// policy (a name that is not one of its plans).
Expected<PlanAssignment> assignPlans(
    const Policy &policy, const Route &route, const TrafficSpec &traffic, std::uint64_t seed);

} // namespace qs
