// tutorial-hash: the classic Lua token-bucket tutorial's hash, `tokens` and a last-update time.
// Field names and the time unit vary between copies of the tutorial: the layout's `fields`
// (ours: tokens, updated_at) and `time_unit` say which; unset, the unit is told by magnitude.
#include "model/monitor/layouts/layouts.h"

namespace qs::layouts {

namespace {

class TutorialHash : public TemplateLayout {
public:
    TutorialHash(const KeyTemplate &key, const RedisLayout &layout, RouteLimit limit)
        : TemplateLayout(key, std::move(limit)), m_unit(layout.timeUnit),
          m_tokens(fieldName(layout, QStringLiteral("tokens"), QStringLiteral("tokens"))),
          m_updated(fieldName(layout, QStringLiteral("updated_at"), QStringLiteral("last_updated")))
    {
    }

    QList<Command> reads(const QByteArray &key) const override
    {
        return {{"HMGET", key, m_tokens, m_updated}, {"PTTL", key}};
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
        return quota(limiter::TokenBucketState{*t, toEpochMicros(*u, m_unit)}, nowUs, ttlMs);
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

    std::optional<QString> m_unit;
    QByteArray m_tokens, m_updated;
};

} // namespace

std::unique_ptr<LayoutDecoder> tutorialHash(
    const KeyTemplate &key, const RedisLayout &layout, RouteLimit limit)
{
    return std::make_unique<TutorialHash>(key, layout, std::move(limit));
}

} // namespace qs::layouts
