// express-rate-limit: rate-limit-redis (source/scripts.ts): `rl:<key>`, a hit counter set with
// PX windowMs at the first hit of a window, so the key's PTTL is the time to the reset. The
// limit (`max`/`limit`) is not in Redis: the route's fixed window supplies it.
#include "model/monitor/layouts/layouts.h"

namespace qs::layouts {

namespace {

class ExpressRateLimit : public TemplateLayout {
public:
    using TemplateLayout::TemplateLayout;

    QList<Command> reads(const QByteArray &key) const override
    {
        return {{QByteArrayLiteral("GET"), key}, {QByteArrayLiteral("PTTL"), key}};
    }

    KeyQuota decode(const QByteArray &, const QList<RespValue> &replies, qint64) const override
    {
        const RespValue &value = replies.value(0);
        const qint64 ttlMs = replies.value(1).integer;
        const auto hits = readCounter(value, QStringLiteral("a hit counter"));
        if (const auto *answer = std::get_if<KeyQuota>(&hits))
            return *answer;
        if (ttlMs < 0)
            return KeyQuota::unreadable(QStringLiteral("the counter has no expiry (rate-limit-"
                                                       "redis always sets one)"));
        const auto &window = std::get<limiter::FixedWindowConfig>(m_limit.config);
        return windowCounterQuota(window.limit, window.window, std::get<qint64>(hits),
            window.window - ttlMs * 1000, m_limit.cost, ttlMs);
    }
};

} // namespace

std::unique_ptr<LayoutDecoder> expressRateLimit(const KeyTemplate &key, RouteLimit limit)
{
    return std::make_unique<ExpressRateLimit>(key, std::move(limit));
}

} // namespace qs::layouts
