// kong: Kong's rate-limiting plugin with `policy: redis` (kong/plugins/rate-limiting/policies):
//   ratelimit:<route_id>:<service_id>:<identifier>:<period_start_ms>:<period>
// a string counter INCRed on every request before the decision (denied ones count too). The
// identifier may contain ':' (IPv6), so the key is read from both ends. The limit is not in
// Redis: the route's supplies it. The TTL is not trusted for the reset (with sync_rate it is
// wrong): the period start and length in the key are. Kong starts its periods on the UTC
// calendar (kong/tools/timestamp.lua get_timestamps: day at 00:00, month on the 1st, year on
// January 1st, all UTC; ../shared/GATEWAY-LIMITS.md section 4), so a month lasts 28 to 31 days
// and a year 365 or 366, though Kong's TTL and Reset header count 30 and 365.
#include "model/monitor/layouts/layouts.h"

#include "limiter/calendar/calendarwindow.h"

namespace qs::layouts {

namespace {

struct Period {
    limiter::Micros start = 0;
    limiter::Micros length = 0;
};

std::optional<Period> periodInKey(const QByteArray &key)
{
    const qsizetype last = key.lastIndexOf(':');
    const qsizetype before = last > 0 ? key.lastIndexOf(':', last - 1) : -1;
    if (before < 0)
        return std::nullopt;
    static const QHash<QByteArray, qint64> seconds
        = {{"second", 1}, {"minute", 60}, {"hour", 3600}, {"day", 86400}};
    const QByteArray name = key.mid(last + 1);
    const auto unit = seconds.constFind(name);
    bool ok = false;
    const qint64 startMs = key.mid(before + 1, last - before - 1).toLongLong(&ok);
    if (!ok || startMs < 0)
        return std::nullopt;
    const limiter::Micros start = startMs * 1000;
    if (unit != seconds.cend())
        return Period{start, *unit * limiter::kMicrosPerSecond};
    const auto calendar = limiter::calendarUnitFromName(name.toStdString());
    if (calendar != limiter::CalendarUnit::Month && calendar != limiter::CalendarUnit::Year)
        return std::nullopt;
    // The period ends where the next calendar month or year starts in UTC.
    static const limiter::CalendarWindows months(limiter::CalendarUnit::Month, nullptr),
        years(limiter::CalendarUnit::Year, nullptr);
    const auto &windows = *calendar == limiter::CalendarUnit::Month ? months : years;
    return Period{start, windows.compute(start).end - start};
}

class Kong : public TemplateLayout {
public:
    using TemplateLayout::TemplateLayout;

    bool accepts(const QByteArray &key) const override
    {
        return TemplateLayout::accepts(key) && periodInKey(key).has_value();
    }

    QList<Command> reads(const QByteArray &key) const override
    {
        return {{QByteArrayLiteral("GET"), key}};
    }

    KeyQuota decode(
        const QByteArray &key, const QList<RespValue> &replies, qint64 nowUs) const override
    {
        const auto period = periodInKey(key);
        const RespValue &value = replies.value(0);
        if (!period)
            return KeyQuota::unreadable(
                QStringLiteral("the key does not end in :<period start ms>:<period>"));
        const auto count = readCounter(value, QStringLiteral("a request counter"));
        if (const auto *answer = std::get_if<KeyQuota>(&count))
            return *answer;
        const auto &window = std::get<limiter::FixedWindowConfig>(m_limit.config);
        return windowCounterQuota(window.limit, period->length, std::get<qint64>(count),
            nowUs - period->start, m_limit.cost, -1);
    }
};

} // namespace

std::unique_ptr<LayoutDecoder> kong(const KeyTemplate &key, RouteLimit limit)
{
    return std::make_unique<Kong>(key, std::move(limit));
}

} // namespace qs::layouts
