// python-limits: the keys of the Python `limits` library (slowapi, Flask-Limiter), read from its
// source (limits/limits.py key_for, limits/storage/redis.py, resources/redis/lua_scripts/):
//   LIMITER/<identifiers…>/<amount>/<multiples>/<granularity>   (3.7+ may prefix "LIMITS:")
// The key names its own limit. Fixed window: a string counter with EXPIRE set at the first hit
// (the window ends with the key). Moving window: a list of float epoch seconds, newest first,
// trimmed to `amount`.
#include "model/monitor/layouts/layouts.h"

#include "limiter/redis/redisstate.h"

#include <cmath>

namespace qs::layouts {

namespace {

struct KeyLimit {
    qint64 amount = 0;
    limiter::Micros window = 0;
};

// The last three segments of the key: amount, multiples and granularity (limits.py TIME_TYPES).
std::optional<KeyLimit> limitInKey(const QByteArray &key)
{
    const QList<QByteArray> parts = key.split('/');
    if (parts.size() < 4)
        return std::nullopt;
    static const QHash<QByteArray, qint64> seconds = {{"second", 1}, {"minute", 60}, {"hour", 3600},
        {"day", 86400}, {"month", 86400 * 30}, {"year", 86400 * 30 * 12}};
    bool okAmount = false, okMultiples = false;
    const qint64 amount = parts[parts.size() - 3].toLongLong(&okAmount);
    const qint64 multiples = parts[parts.size() - 2].toLongLong(&okMultiples);
    const auto unit = seconds.constFind(parts.last());
    if (!okAmount || !okMultiples || amount <= 0 || multiples <= 0 || unit == seconds.cend())
        return std::nullopt;
    return KeyLimit{amount, multiples * *unit * limiter::kMicrosPerSecond};
}

class PythonLimits : public TemplateLayout {
public:
    PythonLimits(const KeyTemplate &key, RouteLimit limit)
        : TemplateLayout(key, std::move(limit)),
          m_moving(limiter::algorithmOf(m_limit.config) == limiter::Algorithm::SlidingWindowLog)
    {
    }

    bool accepts(const QByteArray &key) const override
    {
        return TemplateLayout::accepts(key) && limitInKey(key).has_value();
    }

    QList<Command> reads(const QByteArray &key) const override
    {
        if (m_moving)
            return {
                {QByteArrayLiteral("LRANGE"), key, QByteArrayLiteral("0"), QByteArrayLiteral("-1")},
                {QByteArrayLiteral("PTTL"), key}};
        return {{QByteArrayLiteral("GET"), key}, {QByteArrayLiteral("PTTL"), key}};
    }

    KeyQuota decode(
        const QByteArray &key, const QList<RespValue> &replies, qint64 nowUs) const override
    {
        const auto limit = limitInKey(key);
        if (!limit)
            return KeyQuota::unreadable(QStringLiteral("the key does not end in "
                                                       "/<amount>/<multiples>/<granularity>"));
        const RespValue &value = replies.value(0);
        const qint64 ttlMs = replies.value(1).integer;
        if (value.type == RespValue::Type::Nil
            || (value.type == RespValue::Type::Array && value.elements.isEmpty()))
            return KeyQuota::gone();
        return m_moving ? moving(*limit, value, nowUs, ttlMs) : fixed(*limit, value, ttlMs);
    }

private:
    KeyQuota fixed(const KeyLimit &limit, const RespValue &value, qint64 ttlMs) const
    {
        const auto count = readCounter(value, QStringLiteral("a hit counter"));
        if (const auto *answer = std::get_if<KeyQuota>(&count))
            return *answer;
        if (ttlMs < 0)
            return KeyQuota::unreadable(QStringLiteral("the counter has no expiry (python-limits "
                                                       "always sets one)"));
        return windowCounterQuota(limit.amount, limit.window, std::get<qint64>(count),
            limit.window - ttlMs * 1000, m_limit.cost, ttlMs);
    }

    KeyQuota moving(const KeyLimit &limit, const RespValue &value, qint64 nowUs, qint64 ttlMs) const
    {
        if (value.type != RespValue::Type::Array)
            return KeyQuota::unreadable(
                QStringLiteral("expected a list of timestamps, found %1").arg(replyKind(value)));
        std::vector<double> stamps;
        for (const RespValue &e : value.elements) {
            const auto seconds = replyNumber(e);
            if (!seconds)
                return KeyQuota::unreadable(
                    QStringLiteral("a list entry is %1, not a timestamp").arg(replyKind(e)));
            stamps.push_back(std::round(*seconds * 1e6));
        }
        std::string why;
        const auto state = limiter::decodeRedisLog(stamps, why);
        if (!state)
            return KeyQuota::unreadable(QString::fromStdString(why));
        limiter::SlidingWindowLogConfig config;
        config.limit = limit.amount;
        config.window = limit.window;
        return quotaFromState(config, *state, nowUs, m_limit.cost, ttlMs);
    }

    bool m_moving;
};

} // namespace

std::unique_ptr<LayoutDecoder> pythonLimits(const KeyTemplate &key, RouteLimit limit)
{
    return std::make_unique<PythonLimits>(key, std::move(limit));
}

} // namespace qs::layouts
