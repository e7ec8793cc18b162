#pragma once
// The one place where a route's `limit:` becomes the limiter's config.
#include "limiter/algorithm.h"
#include "model/policy.h"

#include <QString>

#include <variant>

namespace qs {

struct LimitProblem {
    QString field; // the limit's field at fault ("capacity", "refill", …), empty for the whole
    QString message; // what is wrong and how to fix it
};

std::variant<limiter::AlgorithmConfig, LimitProblem> toAlgorithmConfig(const LimitSpec &spec);

// The largest cost a single request may carry and still be admitted (capacity, burst, …).
qint64 maxAdmissibleCost(const limiter::AlgorithmConfig &config);

// The fields each algorithm takes, in the order the writer emits them.
QStringList limitFields(limiter::Algorithm algorithm);

} // namespace qs
