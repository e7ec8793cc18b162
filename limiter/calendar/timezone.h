#pragma once
// An IANA time zone read from the system's compiled zone files (RFC 8536 "TZif", Debian's
// tzdata in /usr/share/zoneinfo, or $TZDIR): every UTC offset change as a sorted table, the
// file's closing POSIX rule unrolled to the year 2200 at load time, so that a lookup is a
// binary search with no system call and no lock.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace qs::limiter::calendar {

class TimeZone {
public:
    // UTC, without any file.
    static std::shared_ptr<const TimeZone> utc();
    // The zone called `name` ("Europe/Berlin"), or null and `why` (not a zone name, not
    // installed, not a zone file). Names are checked before any file is opened: no "..", no
    // absolute path. Each zone is read once per process and shared.
    static std::shared_ptr<const TimeZone> load(std::string_view name, std::string &why);
    // The zone in a TZif file's bytes (tests, and load()).
    static std::shared_ptr<const TimeZone> fromTzif(
        std::string name, std::string_view bytes, std::string &why);
    // Whether `name` is written as a zone name can be (letters, digits, . _ + - and /).
    static bool isWellFormedName(std::string_view name);
    // Where zone files are read from: $TZDIR or /usr/share/zoneinfo.
    static std::string directory();
    // The zones of tzdata's zone1970.tab and UTC, sorted: what a picker offers.
    static std::vector<std::string> installedNames();

    const std::string &name() const { return m_name; }
    // Seconds east of UTC in effect at `utcSeconds`.
    std::int32_t offsetAt(std::int64_t utcSeconds) const;
    // The first instant (UTC seconds) whose local time is `localSeconds` or later (local time
    // as seconds since 1970-01-01 00:00 on the local clock). In a gap (clocks jump over the
    // time) that is the jump; when the time occurs twice, its first occurrence.
    std::int64_t firstInstantAtOrAfterLocal(std::int64_t localSeconds) const;

private:
    static std::shared_ptr<const TimeZone> read(std::string_view name, std::string &why);

    std::string m_name;
    std::int32_t m_initialOffset = 0; // before the first change
    std::vector<std::int64_t> m_changes; // UTC seconds, strictly ascending
    std::vector<std::int32_t> m_offsets; // in effect from m_changes[i] on
};

} // namespace qs::limiter::calendar
