#include "limiter/calendar/timezone.h"

#include "limiter/calendar/civildate.h"
#include "limiter/calendar/posixtzrule.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>
#include <optional>

namespace qs::limiter::calendar {

namespace {

constexpr std::int64_t kLastUnrolledYear = 2200;
constexpr std::size_t kMaxZoneFileBytes = 1 << 20; // the largest in tzdata is under 4 KiB
// Real offsets lie within ±26 h; more means a corrupt file.
constexpr std::int32_t kMaxOffset = 26 * 3600;

// A bounds-checked big-endian reader over the file's bytes.
class Bytes {
public:
    explicit Bytes(std::string_view data) : m_data(data) { }
    bool has(std::size_t n) const { return m_data.size() - m_pos >= n; }
    std::uint8_t u8() { return static_cast<std::uint8_t>(m_data[m_pos++]); }
    std::int64_t be(int width)
    {
        std::uint64_t v = 0;
        for (int i = 0; i < width; ++i)
            v = (v << 8) | u8();
        if (width == 4)
            return std::int32_t(std::uint32_t(v));
        return std::int64_t(v);
    }
    void skip(std::size_t n) { m_pos += n; }
    std::string_view rest() const { return m_data.substr(m_pos); }

private:
    std::string_view m_data;
    std::size_t m_pos = 0;
};

struct Header {
    char version = 0;
    std::uint32_t isUtCount = 0, isStdCount = 0, leapCount = 0, timeCount = 0, typeCount = 0,
                  charCount = 0;
    std::size_t blockBytes(int timeWidth) const
    {
        return std::size_t(timeCount) * (timeWidth + 1) + std::size_t(typeCount) * 6 + charCount
            + std::size_t(leapCount) * (timeWidth + 4) + isStdCount + isUtCount;
    }
};

bool readHeader(Bytes &in, Header &h, std::string &why)
{
    if (!in.has(44) || in.rest().substr(0, 4) != "TZif") {
        why = "not a compiled time zone file (no TZif header)";
        return false;
    }
    in.skip(4);
    h.version = char(in.u8());
    in.skip(15);
    std::uint32_t *counts[]
        = {&h.isUtCount, &h.isStdCount, &h.leapCount, &h.timeCount, &h.typeCount, &h.charCount};
    for (std::uint32_t *c : counts)
        *c = std::uint32_t(in.be(4));
    if (h.typeCount == 0 || h.typeCount > 256 || h.timeCount > 100000 || h.charCount > 100000
        || h.leapCount > 100000 || h.isUtCount > h.typeCount || h.isStdCount > h.typeCount) {
        why = "time zone file with impossible counts";
        return false;
    }
    return true;
}

} // namespace

bool TimeZone::isWellFormedName(std::string_view name)
{
    if (name.empty() || name.size() > 255 || name.front() == '/' || name.back() == '/')
        return false;
    std::size_t componentStart = 0;
    for (std::size_t i = 0; i <= name.size(); ++i) {
        if (i == name.size() || name[i] == '/') {
            const std::string_view component = name.substr(componentStart, i - componentStart);
            if (component.empty() || component.front() == '.')
                return false; // "", ".", ".." and hidden files
            componentStart = i + 1;
            continue;
        }
        const char c = name[i];
        const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
            || c == '_' || c == '-' || c == '+' || c == '.';
        if (!ok)
            return false;
    }
    return true;
}

std::string TimeZone::directory()
{
    const char *dir = std::getenv("TZDIR");
    return dir && *dir ? std::string(dir) : std::string("/usr/share/zoneinfo");
}

std::vector<std::string> TimeZone::installedNames()
{
    std::vector<std::string> names{"UTC"};
    std::ifstream table(directory() + "/zone1970.tab");
    std::string line;
    while (std::getline(table, line)) {
        if (line.empty() || line.front() == '#')
            continue;
        // country codes, coordinates, zone name, comment: tab-separated
        const std::size_t first = line.find('\t');
        const std::size_t second = first == std::string::npos ? first : line.find('\t', first + 1);
        if (second == std::string::npos)
            continue;
        const std::size_t third = line.find('\t', second + 1);
        names.push_back(
            line.substr(second + 1, third == std::string::npos ? third : third - second - 1));
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::shared_ptr<const TimeZone> TimeZone::utc()
{
    static const std::shared_ptr<const TimeZone> zone = [] {
        auto z = std::make_shared<TimeZone>();
        z->m_name = "UTC";
        return z;
    }();
    return zone;
}

std::shared_ptr<const TimeZone> TimeZone::load(std::string_view name, std::string &why)
{
    if (name == "UTC")
        return utc();
    // Every limit of a policy with 100 000 routes names its zone: read each file once.
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const TimeZone>, std::less<>> loaded;
    const std::lock_guard lock(mutex);
    if (const auto it = loaded.find(name); it != loaded.end())
        return it->second;
    auto zone = read(name, why);
    if (zone)
        loaded.emplace(std::string(name), zone);
    return zone;
}

std::shared_ptr<const TimeZone> TimeZone::read(std::string_view name, std::string &why)
{
    if (!isWellFormedName(name)) {
        // The name last: GCC 12 warns falsely (-Wrestrict) on "'" + std::string(name) + ….
        why = "not a time zone name (use an IANA name such as Europe/Berlin, or UTC): ";
        why += name;
        return nullptr;
    }
    const std::string path = directory() + "/" + std::string(name);
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        why = "no time zone '" + std::string(name) + "' in " + directory()
            + ": check the spelling (IANA names such as America/New_York), or install tzdata";
        return nullptr;
    }
    std::string bytes;
    bytes.resize(kMaxZoneFileBytes + 1);
    file.read(bytes.data(), std::streamsize(bytes.size()));
    bytes.resize(std::size_t(file.gcount()));
    if (bytes.size() > kMaxZoneFileBytes) {
        why = path + " is too large to be a time zone file";
        return nullptr;
    }
    auto zone = fromTzif(std::string(name), bytes, why);
    if (!zone)
        why = path + ": " + why;
    return zone;
}

std::shared_ptr<const TimeZone> TimeZone::fromTzif(
    std::string name, std::string_view data, std::string &why)
{
    Bytes in(data);
    Header h;
    if (!readHeader(in, h, why))
        return nullptr;
    int timeWidth = 4;
    if (h.version >= '2') { // skip the 32-bit block: the 64-bit one follows with its own header
        if (!in.has(h.blockBytes(4))) {
            why = "time zone file cut short";
            return nullptr;
        }
        in.skip(h.blockBytes(4));
        if (!readHeader(in, h, why))
            return nullptr;
        timeWidth = 8;
    }
    if (!in.has(h.blockBytes(timeWidth))) {
        why = "time zone file cut short";
        return nullptr;
    }
    if (h.leapCount > 0) {
        why = "a zone with leap seconds (the right/ zones) does not count time as Redis does: use "
              "the zone without right/";
        return nullptr;
    }
    std::vector<std::int64_t> times(h.timeCount);
    for (auto &t : times)
        t = in.be(timeWidth);
    std::vector<std::uint8_t> typeOf(h.timeCount);
    for (auto &i : typeOf)
        i = in.u8();
    std::vector<std::int32_t> typeOffsets(h.typeCount);
    for (auto &o : typeOffsets) {
        o = std::int32_t(in.be(4));
        in.skip(2); // isdst, designation index: a window needs only the offset
    }
    in.skip(h.charCount + h.isStdCount + h.isUtCount);

    auto zone = std::make_shared<TimeZone>();
    zone->m_name = std::move(name);
    for (std::int32_t o : typeOffsets)
        if (o < -kMaxOffset || o > kMaxOffset) {
            why = "time zone file with an offset beyond ±26 hours";
            return nullptr;
        }
    zone->m_initialOffset = typeOffsets[0];
    for (std::size_t i = 0; i < times.size(); ++i) {
        if (typeOf[i] >= h.typeCount || (i > 0 && times[i] <= times[i - 1])) {
            why = "time zone file with transitions out of order or of unknown type";
            return nullptr;
        }
        zone->m_changes.push_back(times[i]);
        zone->m_offsets.push_back(typeOffsets[typeOf[i]]);
    }

    // The footer: "\n<POSIX TZ>\n", the rule after the last transition.
    const std::string_view rest = in.rest();
    if (h.version >= '2' && rest.size() >= 2 && rest.front() == '\n') {
        const std::size_t close = rest.find('\n', 1);
        const std::string_view tz = rest.substr(1, close == std::string_view::npos ? 0 : close - 1);
        std::string ruleWhy;
        if (!tz.empty()) {
            const auto rule = PosixTzRule::parse(tz, ruleWhy);
            if (!rule) {
                why = "time zone file's closing rule '" + std::string(tz) + "': " + ruleWhy;
                return nullptr;
            }
            const std::int64_t last = zone->m_changes.empty()
                ? std::numeric_limits<std::int64_t>::min()
                : zone->m_changes.back();
            const std::int64_t firstYear
                = zone->m_changes.empty() ? 1970 : civilFromDays(floorDiv(last, 86400)).year;
            auto current = [&] {
                return zone->m_offsets.empty() ? zone->m_initialOffset : zone->m_offsets.back();
            };
            if (!rule->hasDaylightSaving() && rule->standardOffset() != current()) {
                zone->m_changes.push_back(zone->m_changes.empty() ? 0 : last + 1);
                zone->m_offsets.push_back(rule->standardOffset());
            }
            for (std::int64_t year = firstYear; year <= kLastUnrolledYear; ++year)
                for (const UtcOffsetChange &c : rule->changesIn(year)) {
                    if (!zone->m_changes.empty() && c.at <= zone->m_changes.back())
                        continue;
                    if (c.offset == current())
                        continue;
                    zone->m_changes.push_back(c.at);
                    zone->m_offsets.push_back(c.offset);
                }
        }
    }
    return zone;
}

std::int32_t TimeZone::offsetAt(std::int64_t t) const
{
    const auto after = std::upper_bound(m_changes.begin(), m_changes.end(), t);
    return after == m_changes.begin() ? m_initialOffset
                                      : m_offsets[std::size_t(after - m_changes.begin()) - 1];
}

std::int64_t TimeZone::firstInstantAtOrAfterLocal(std::int64_t local) const
{
    // Local time is UTC plus an offset that is constant between changes. Walk the stretches of
    // constant offset that could hold the answer (offsets are within ±26 h), in time order; the
    // first stretch that reaches `local` holds the first instant.
    const std::int64_t from = local - kMaxOffset - 1;
    std::size_t i = std::size_t(std::upper_bound(m_changes.begin(), m_changes.end(), from)
        - m_changes.begin()); // stretch i runs from m_changes[i-1] (or -inf) to m_changes[i]
    for (;; ++i) {
        const std::int32_t offset = i == 0 ? m_initialOffset : m_offsets[i - 1];
        const bool bounded = i < m_changes.size();
        const std::int64_t end = bounded ? m_changes[i] : std::numeric_limits<std::int64_t>::max();
        if (i > 0 && m_changes[i - 1] + offset >= local)
            return m_changes[i - 1]; // the clock jumped over `local` at this change
        if (local - offset < end)
            return local - offset;
        if (!bounded)
            return local - offset; // unreachable: the last stretch is unbounded
    }
}

} // namespace qs::limiter::calendar
