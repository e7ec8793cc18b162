// kong: Kong's rate-limiting plugin with `policy: redis` (kong/plugins/rate-limiting/policies):
//   ratelimit:<route_id>:<service_id>:<identifier>:<period_start_ms>:<period>
// a string counter INCRed on every request before the decision (denied ones count too). The
// identifier may contain ':' (IPv6), so the key is read from both ends. The limit is not in
// Redis: the route's supplies it. The TTL is not trusted for the reset (with sync_rate it is
// wrong): the period start and length in the key are.
#include "model/monitor/layouts/layouts.h"

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
    static const QHash<QByteArray, qint64> seconds = {{"second", 1}, {"minute", 60}, {"hour", 3600},
        {"day", 86400}, {"month", 86400 * 30}, {"year", 86400 * 365}};
    const auto unit = seconds.constFind(key.mid(last + 1));
    bool ok = false;
    const qint64 startMs = key.mid(before + 1, last - before - 1).toLongLong(&ok);
    if (!ok || startMs < 0 || unit == seconds.cend())
        return std::nullopt;
    return Period{startMs * 1000, *unit * limiter::kMicrosPerSecond};
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
