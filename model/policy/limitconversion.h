#pragma once
// The one place where a route's `limit:` becomes the limiter's config.
#include "limiter/algorithms/algorithm.h"
#include "model/base/expected.h"
#include "model/policy/policy.h"

#include <QString>

#include <vector>

namespace qs {

struct LimitProblem {
    QString field; // the limit's field at fault ("capacity", "refill", …), empty for the whole
    QString message; // what is wrong and how to fix it
};

Expected<limiter::AlgorithmConfig, LimitProblem> toAlgorithmConfig(const LimitSpec &spec);

// The largest cost a single request may carry and still be admitted (capacity, burst, …).
qint64 maxAdmissibleCost(const limiter::AlgorithmConfig &config);

// The limit that config describes, with canonical texts ("2/s", "5s").
LimitSpec toLimitSpec(const limiter::AlgorithmConfig &config);

// The same limit expressed with another algorithm: the same long-run rate and burst where the
// old limit is complete (see comparableConfigs), a sensible default where it is not.
LimitSpec switchAlgorithm(const LimitSpec &from, limiter::Algorithm to);

// The six algorithms with parameters derived from the config's so that each allows the same
// long-run rate and the same burst (docs/simulation.md says how).
std::vector<limiter::AlgorithmConfig> comparableConfigs(const limiter::AlgorithmConfig &config);

// One line in the policy's own words, for reports: "gcra rate 50/s, burst 25".
QString describeLimit(const LimitSpec &spec);

// A window limit's window in words: its duration as written ("1d"), or its calendar
// ("calendar month in Europe/Berlin", "calendar day in UTC"). Empty for other algorithms.
QString windowDescription(const LimitSpec &spec);

} // namespace qs
