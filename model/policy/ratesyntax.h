#pragma once
// The text forms of rates and durations in policy files: `2/s`, `100/min`, `5/250ms`; `250ms`,
// `10s`, `1m`, `1h`, `1d`. Parsing returns the value or a sentence saying what is wrong.
#include "limiter/rate.h"

#include <QString>

#include <optional>
#include <variant>

namespace qs {

// A duration: a positive integer and a unit (ms, s, m, min, h, d; also sec, second(s),
// minute(s), hour(s), day(s)).
std::variant<limiter::Micros, QString> parseDuration(const QString &text);
// A rate: N/unit or N/duration.
std::variant<limiter::Rate, QString> parseRate(const QString &text);

// Canonical text: the shortest of the forms above (60000000 µs -> "1m").
QString formatDuration(limiter::Micros micros);
QString formatRate(const limiter::Rate &rate);

} // namespace qs
