#pragma once
// Checks that need the whole policy: duplicate ids, route patterns that overlap ambiguously or
// can never match, limits the limiter rejects, costs no limit can admit; and the warnings an
// operator should see (fixed-window spikes, shadow routes, memory-hungry sliding logs).
#include "model/policy/diagnostic.h"
#include "model/policy/policy.h"

namespace qs {

// `already` holds what the reader reported: checks skip fields that already have an error.
Diagnostics validatePolicy(
    const Policy &policy, const QString &fileName, const Diagnostics &already = {});

} // namespace qs
