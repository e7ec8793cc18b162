#pragma once
// What an operator needs to know to choose an algorithm: its guarantee, how it treats a burst,
// what a client key costs in memory (measured: docs/benchmarks.md) and when to choose it.
// Shown by the Design page's explanation panel; kept here so quotactl and docs can share it.
#include "limiter/algorithms/algorithm.h"

#include <QString>

namespace qs {

struct AlgorithmGuide {
    QString title;
    QString guarantee;
    QString burst;
    QString memory;
    QString chooseWhen;
};

AlgorithmGuide algorithmGuide(limiter::Algorithm algorithm);

} // namespace qs
