// redis_rate: go-redis/redis_rate's GCRA (rate.go, lua.go): `rate:<key>`, a string holding the
// theoretical arrival time as float seconds since 2017-01-01 UTC (its script subtracts
// 1483228800 from TIME), SET with EX only when a request is admitted. The route's rate and
// burst supply the limit; the limiter's GCRA peek does the rest.
#include "model/monitor/layouts/layouts.h"

#include <cmath>

namespace qs::layouts {

namespace {

constexpr qint64 kRedisRateEpochSeconds = 1483228800; // 2017-01-01T00:00:00Z

class RedisRate : public TemplateLayout {
public:
    using TemplateLayout::TemplateLayout;

    QList<Command> reads(const QByteArray &key) const override
    {
        return {{QByteArrayLiteral("GET"), key}, {QByteArrayLiteral("PTTL"), key}};
    }

    KeyQuota decode(
        const QByteArray &, const QList<RespValue> &replies, qint64 nowUs) const override
    {
        const RespValue &value = replies.value(0);
        if (value.type == RespValue::Type::Nil)
            return KeyQuota::gone();
        const auto tat = replyNumber(value);
        if (value.type != RespValue::Type::String || !tat || !(*tat >= 0) || *tat > 4e9)
            return KeyQuota::unreadable(
                QStringLiteral("expected a theoretical arrival time in seconds since 2017, "
                               "found %1")
                    .arg(replyKind(value)));
        const auto tatUs = limiter::Micros(std::llround((*tat + kRedisRateEpochSeconds) * 1e6));
        return quota(limiter::GcraState{tatUs}, nowUs, replies.value(1).integer);
    }
};

} // namespace

std::unique_ptr<LayoutDecoder> redisRate(const KeyTemplate &key, RouteLimit limit)
{
    return std::make_unique<RedisRate>(key, std::move(limit));
}

} // namespace qs::layouts
