#pragma once
// How much a limit can admit, at most, within any stretch of time: the bound each algorithm's
// header states, as a number. Used to tell when one limit of a route makes another one idle
// (a daily quota that a per-minute limit never lets a client reach).
#include "limiter/algorithms/algorithm.h"

#include <cstdint>

namespace qs::limiter {

// An upper bound on the cost admitted for one key within any interval of length `span`
// (saturating at INT64_MAX). Not tight for the window algorithms: it counts the windows the
// interval can touch.
std::int64_t admissionBound(const AlgorithmConfig &config, Micros span);

} // namespace qs::limiter
