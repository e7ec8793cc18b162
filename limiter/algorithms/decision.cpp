#include "limiter/algorithms/decision.h"

namespace qs::limiter {

std::string_view reasonText(Reason reason)
{
    switch (reason) {
    case Reason::None:
        return "admitted";
    case Reason::LimitExceeded:
        return "rate limit exceeded";
    case Reason::CostExceedsLimit:
        return "request cost exceeds what the limit can ever admit";
    case Reason::KeyTableFull:
        return "key table full: too many distinct keys";
    case Reason::StoreError:
        return "rate-limit store unavailable";
    case Reason::InvalidRule:
        return "unknown or invalid rule";
    case Reason::InvalidKey:
        return "key too long";
    case Reason::InvalidCost:
        return "negative request cost";
    }
    return "unknown";
}

} // namespace qs::limiter
