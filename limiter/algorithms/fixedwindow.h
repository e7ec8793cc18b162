#pragma once
// Fixed window: a counter per window aligned to the Unix epoch, or to the calendar of a time
// zone (a day, week, month or year). Cheap, but a client can spend the whole limit at the end
// of one window and again at the start of the next: 2x the limit within a moment. Bound:
// admitted cost per window <= limit.
#include "limiter/algorithms/algorithmid.h"
#include "limiter/algorithms/decision.h"
#include "limiter/algorithms/windowlimit.h"
#include "limiter/calendar/calendarwindow.h"

#include <memory>

namespace qs::limiter {

struct FixedWindowState;

struct FixedWindowConfig : WindowLimit {
    // Set: windows follow this calendar and `window` is only the unit's nominal length (for
    // descriptions); unset: windows of `window` aligned to the epoch.
    std::shared_ptr<const WindowCalendar> calendar = nullptr;

    std::optional<std::string> validate() const { return WindowLimit::validate(); }
    // The window that holds t.
    WindowBounds windowAt(Micros t) const;

    static constexpr Algorithm kId = Algorithm::FixedWindow;
    static constexpr std::string_view kName
        = "fixed_window"; // traits: limiter/algorithms/algorithm.h
    static constexpr int kRedisParameterCount = 2; // limit, window
    using State = FixedWindowState;
};

struct FixedWindowState {
    Micros windowStart = kNoTime;
    std::int64_t count = 0;
    friend bool operator==(const FixedWindowState &, const FixedWindowState &) = default;
};

Decision decide(
    const FixedWindowConfig &config, FixedWindowState &state, Micros now, std::int64_t cost);
Quota peek(const FixedWindowConfig &config, const FixedWindowState &state, Micros now);
bool isFresh(const FixedWindowConfig &config, const FixedWindowState &state, Micros now);

} // namespace qs::limiter
