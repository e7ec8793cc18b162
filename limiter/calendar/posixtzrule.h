#pragma once
// The POSIX TZ string at the end of a version 2+ time zone file ("CET-1CEST,M3.5.0,M10.5.0/3"):
// the rule that holds after the file's last listed transition. RFC 8536 section 3.3 extends
// POSIX with hours from -167 to 167 in the rule's times (Santiago's "M9.1.6/24").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qs::limiter::calendar {

struct UtcOffsetChange {
    std::int64_t at = 0; // seconds since the Unix epoch, UTC
    std::int32_t offset = 0; // seconds east of UTC from then on
};

class PosixTzRule {
public:
    // Nullopt and `why` when the text is not a TZ string this reader understands.
    static std::optional<PosixTzRule> parse(std::string_view text, std::string &why);

    std::int32_t standardOffset() const { return m_std; } // east of UTC
    bool hasDaylightSaving() const { return m_hasDst; }
    // The (at most two) changes in a calendar year, in time order.
    std::vector<UtcOffsetChange> changesIn(std::int64_t year) const;

private:
    // When DST starts or ends: a date form and the local time of day of the change.
    struct Moment {
        enum class Form { Julian1, Julian0, MonthWeekDay } form = Form::MonthWeekDay;
        int day = 0; // Jn: 1..365, n: 0..365, Mm.w.d: d 0..6 (Sunday 0)
        int week = 0, month = 0; // Mm.w.d only
        std::int32_t time = 2 * 3600; // local seconds after midnight, may be negative or > 24 h
        std::int64_t dayIn(std::int64_t year) const; // days since the epoch
    };
    std::int32_t m_std = 0, m_dst = 0;
    bool m_hasDst = false;
    Moment m_start, m_end;
    friend class PosixTzParser;
};

} // namespace qs::limiter::calendar
