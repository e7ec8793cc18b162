// tutorial-hash: the classic Lua token-bucket tutorial's hash, `tokens` and a last-update time.
// Field names and the time unit vary between copies of the tutorial: the layout's `fields`
// (ours: tokens, updated_at) and `time_unit` say which; unset, the unit is told by magnitude.
// So does the clock: the classic script is handed `int(time.time())` and refills by whole
// seconds, others refill continuously — the layout's `refill` (per_unit | continuous); unset,
// a whole number of seconds means whole-second refills.
#include "model/monitor/layouts/layouts.h"

#include <cmath>

namespace qs::layouts {

namespace {

class TutorialHash : public TemplateLayout {
public:
    TutorialHash(const KeyTemplate &key, const RedisLayout &layout, RouteLimit limit)
        : TemplateLayout(key, std::move(limit)), m_unit(layout.timeUnit), m_refill(layout.refill),
          m_tokens(fieldName(layout, QStringLiteral("tokens"), QStringLiteral("tokens"))),
          m_updated(fieldName(layout, QStringLiteral("updated_at"), QStringLiteral("last_updated")))
    {
    }

    QList<Command> reads(const QByteArray &key) const override
    {
        return {{QByteArrayLiteral("HMGET"), key, m_tokens, m_updated},
            {QByteArrayLiteral("PTTL"), key}};
    }

    KeyQuota decode(
        const QByteArray &, const QList<RespValue> &replies, qint64 nowUs) const override
    {
        const RespValue &fields = replies.value(0);
        const qint64 ttlMs = replies.value(1).integer;
        if (fields.type != RespValue::Type::Array || fields.elements.size() != 2)
            return KeyQuota::unreadable(
                QStringLiteral("expected a hash, found %1").arg(replyKind(fields)));
        const RespValue &tokens = fields.elements[0], &updated = fields.elements[1];
        if (tokens.type == RespValue::Type::Nil && updated.type == RespValue::Type::Nil)
            return ttlMs == -2 ? KeyQuota::gone()
                               : KeyQuota::unreadable(QStringLiteral("the hash has neither '%1' "
                                                                     "nor '%2'")
                                                          .arg(QString::fromUtf8(m_tokens),
                                                              QString::fromUtf8(m_updated)));
        const auto t = replyNumber(tokens), u = replyNumber(updated);
        if (!t || *t < 0)
            return KeyQuota::unreadable(QStringLiteral("field '%1' is %2, not a token count")
                                            .arg(QString::fromUtf8(m_tokens), replyKind(tokens)));
        if (!u || *u < 0)
            return KeyQuota::unreadable(QStringLiteral("field '%1' is %2, not a time")
                                            .arg(QString::fromUtf8(m_updated), replyKind(updated)));
        return tokenBucketQuota(m_limit, limiter::TokenBucketState{*t, toEpochMicros(*u, m_unit)},
            nowUs, ttlMs, refillStepUs(*u));
    }

private:
    static QByteArray fieldName(
        const RedisLayout &layout, const QString &ours, const QString &fallback)
    {
        for (const auto &[o, theirs] : layout.fields)
            if (o == ours)
                return theirs.toUtf8();
        return fallback.toUtf8();
    }

    qint64 refillStepUs(double stored) const
    {
        if (m_refill == QLatin1String("continuous"))
            return 1;
        const qint64 unit = unitMicros(stored, m_unit);
        if (m_refill == QLatin1String("per_unit"))
            return unit;
        return unit == 1'000'000 && stored == std::floor(stored) ? unit : 1;
    }

    std::optional<QString> m_unit, m_refill;
    QByteArray m_tokens, m_updated;
};

} // namespace

std::unique_ptr<LayoutDecoder> tutorialHash(
    const KeyTemplate &key, const RedisLayout &layout, RouteLimit limit)
{
    return std::make_unique<TutorialHash>(key, layout, std::move(limit));
}

} // namespace qs::layouts
