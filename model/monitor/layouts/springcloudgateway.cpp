// spring-cloud-gateway: RedisRateLimiter (request_rate_limiter.lua): two strings per client,
//   request_rate_limiter.{<id>}.tokens      tokens left (a number)
//   request_rate_limiter.{<id>}.timestamp   when they were counted, epoch seconds
// in one hash slot thanks to the {…} tag. A token bucket: the route's capacity is the gateway's
// burstCapacity, its refill the replenishRate. Missing keys are a full bucket.
#include "model/monitor/layouts/layouts.h"

namespace qs::layouts {

namespace {

class SpringCloudGateway : public TemplateLayout {
public:
    using TemplateLayout::TemplateLayout;

    QList<Command> reads(const QByteArray &key) const override
    {
        return {
            {QByteArrayLiteral("MGET"), key, timestampKey(key)}, {QByteArrayLiteral("PTTL"), key}};
    }

    KeyQuota decode(
        const QByteArray &key, const QList<RespValue> &replies, qint64 nowUs) const override
    {
        const RespValue &both = replies.value(0);
        if (both.type != RespValue::Type::Array || both.elements.size() != 2)
            return KeyQuota::unreadable(
                QStringLiteral("expected two values, found %1").arg(replyKind(both)));
        const RespValue &tokens = both.elements[0], &timestamp = both.elements[1];
        if (tokens.type == RespValue::Type::Nil)
            return KeyQuota::gone();
        const auto t = replyNumber(tokens), s = replyNumber(timestamp);
        if (!t || *t < 0)
            return KeyQuota::unreadable(
                QStringLiteral("tokens is %1, not a number").arg(replyKind(tokens)));
        if (!s || *s < 0)
            return KeyQuota::unreadable(
                QStringLiteral("%1 is %2, not epoch seconds")
                    .arg(QString::fromUtf8(timestampKey(key)), replyKind(timestamp)));
        // The script's clock is whole seconds (ARGV `Instant.now().getEpochSecond()`, from 3.x
        // `redis.call('TIME')[1]`): it refills by whole seconds.
        return tokenBucketQuota(m_limit,
            limiter::TokenBucketState{*t, toEpochMicros(*s, QStringLiteral("s"))}, nowUs,
            replies.value(1).integer, limiter::kMicrosPerSecond);
    }

private:
    static QByteArray timestampKey(const QByteArray &tokensKey)
    {
        QByteArray k = tokensKey;
        if (k.endsWith(".tokens"))
            k.chop(7);
        return k + ".timestamp";
    }
};

} // namespace

std::unique_ptr<LayoutDecoder> springCloudGateway(const KeyTemplate &key, RouteLimit limit)
{
    return std::make_unique<SpringCloudGateway>(key, std::move(limit));
}

} // namespace qs::layouts
