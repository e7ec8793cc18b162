// Quota Studio's own keys: `<prefix>:<route id>:<client>`, a packed-doubles string (a sorted set
// for the sliding window log), decoded with limiter/redis/redisstate.h (docs/redis-layout.md). One
// command per key: the scripts set the TTL to the time until the state is fresh, which the
// state itself says, so reading PTTL would double the cost for nothing.
#include "model/monitor/layouts/layouts.h"

#include "limiter/redis/keylayout.h"
#include "limiter/redis/redisstate.h"

namespace qs::layouts {

namespace {

class QuotaStudioLayout : public LayoutDecoder {
public:
    QuotaStudioLayout(const QString &policyPrefix, std::string keyPrefix, RouteLimit limit)
        : m_prefix((policyPrefix + QLatin1Char(limiter::keylayout::kSeparator)).toUtf8()),
          m_route(std::move(keyPrefix)),
          m_head(QByteArray::fromStdString(m_route) + limiter::keylayout::kSeparator),
          m_limit(std::move(limit)),
          m_isLog(limiter::algorithmOf(m_limit.config) == limiter::Algorithm::SlidingWindowLog)
    {
    }

    // Prefix and route id are restricted to characters no glob treats specially.
    QByteArray scanPattern() const override { return m_head + '*'; }
    QByteArray scanGroupPattern() const override { return m_prefix + '*'; }

    bool accepts(const QByteArray &key) const override
    {
        // The per-second metrics hashes share the route's prefix.
        return limiter::keylayout::isStateKey(
            std::string_view(key.constData(), size_t(key.size())), m_route);
    }

    QList<Command> reads(const QByteArray &key) const override
    {
        // Literals: no allocation for a command name, a million times per refresh.
        if (m_isLog)
            return {{QByteArrayLiteral("ZRANGE"), key, QByteArrayLiteral("0"),
                QByteArrayLiteral("-1"), QByteArrayLiteral("WITHSCORES")}};
        return {{QByteArrayLiteral("GET"), key}};
    }

    KeyQuota decode(
        const QByteArray &, const QList<RespValue> &replies, qint64 nowUs) const override
    {
        const RespValue &value = replies.value(0);
        if (value.type == RespValue::Type::Nil
            || (m_isLog && value.type == RespValue::Type::Array && value.elements.isEmpty()))
            return KeyQuota::gone();
        std::string why;
        std::optional<limiter::AlgorithmState> state;
        if (m_isLog && value.type == RespValue::Type::Array)
            state = logState(value, why);
        else if (!m_isLog && value.type == RespValue::Type::String)
            state = limiter::decodeRedisState(limiter::algorithmOf(m_limit.config),
                std::string_view(value.text.constData(), size_t(value.text.size())), why);
        else
            why = QStringLiteral("expected %1, found %2")
                      .arg(m_isLog ? QStringLiteral("a sorted set") : QStringLiteral("a string"),
                          replyKind(value))
                      .toStdString();
        if (!state)
            return KeyQuota::unreadable(QString::fromStdString(why));
        return quotaFromState(m_limit.config, *state, nowUs, m_limit.cost, KeyQuota::kTtlNotRead);
    }

private:
    static std::optional<limiter::AlgorithmState> logState(const RespValue &pairs, std::string &why)
    {
        std::vector<double> scores;
        for (qsizetype i = 1; i < pairs.elements.size(); i += 2) {
            const auto score = replyNumber(pairs.elements[i]);
            if (!score) {
                why = "a sorted-set score that is not a number";
                return std::nullopt;
            }
            scores.push_back(*score);
        }
        return limiter::decodeRedisLog(scores, why);
    }

    QByteArray m_prefix;
    std::string m_route; // "<prefix>:<route>", or a limit's (model/policy/policykeys.h)
    QByteArray m_head; // m_route and the separator
    RouteLimit m_limit;
    bool m_isLog;
};

} // namespace

std::unique_ptr<LayoutDecoder> quotaStudio(
    const QString &policyPrefix, std::string keyPrefix, RouteLimit limit)
{
    return std::make_unique<QuotaStudioLayout>(
        policyPrefix, std::move(keyPrefix), std::move(limit));
}

} // namespace qs::layouts
