#pragma once
// What a limit amounts to for gateways that only know "N per period, with a burst": the
// long-run rate, how many may pass at once, and which kind of algorithm the numbers came from
// (so that an exporter can say in its warning what the approximation changes). Shared by the
// Traefik, Envoy and Kong exporters.
#include "limiter/algorithms/algorithm.h"

#include <QString>

#include <optional>

namespace qs {

struct LimitShape {
    qint64 count = 0; // long-run rate: count per period
    limiter::Micros period = 0;
    qint64 burst = 0; // how many may pass back to back
    bool windowed = false; // fixed / sliding window: count per window, burst = count
    bool shaping = false; // leaky bucket in shape mode: delays that a rejecting gateway drops
};

LimitShape limitShape(const limiter::AlgorithmConfig &config);

// A rate restated per calendar unit (second, minute, hour, day, …), as Kong and Envoy's rate
// limit service count: rounded down so that the export never admits more than designed.
struct UnitRate {
    QString unit; // "second", "minute", "hour", "day"
    limiter::Micros unitMicros = 0;
    qint64 perUnit = 0;
    bool sameWindow = false; // the period is exactly one unit
    bool exactRate = false; // count / period == perUnit / unit
};

// Empty when even the longest unit cannot hold one request (a rate below one per day).
std::optional<UnitRate> toUnitRate(qint64 count, limiter::Micros period);

} // namespace qs
