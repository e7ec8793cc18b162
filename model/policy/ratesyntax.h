#pragma once
// The text forms of rates and durations in policy files: `2/s`, `0.5/s`, `100/min`, `5/250ms`,
// `1 every 2s`; `250ms`,
// `10s`, `1m`, `1h`, `1d`. Parsing returns the value or a sentence saying what is wrong.
#include "limiter/algorithms/rate.h"
#include "model/base/expected.h"

#include <QString>

#include <optional>

namespace qs {

// A duration: a positive integer and a unit (ms, s, m, min, h, d; also sec, second(s),
// minute(s), hour(s), day(s)).
Expected<limiter::Micros> parseDuration(const QString &text);
// A rate: N/unit, N/duration or `N every duration`; N whole or with up to six decimals
// (`0.5/s` is exactly 1 per 2 s).
Expected<limiter::Rate> parseRate(const QString &text);

// In words, for people: "1 request every 2 s", "2.5 requests per second".
QString describeRate(const limiter::Rate &rate);
// "12.5 s", "1.5 min", "250 ms": the unit a person would use, never "12500ms".
QString formatDurationInWords(limiter::Micros micros);

// Canonical text: the shortest of the forms above (60000000 µs -> "1m").
QString formatDuration(limiter::Micros micros);
QString formatRate(const limiter::Rate &rate);

} // namespace qs
