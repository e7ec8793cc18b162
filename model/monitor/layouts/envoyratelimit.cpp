// envoy-ratelimit: envoyproxy/ratelimit's fixed windows (src/limiter/cache_key.go):
//   [prefix]<domain>_<key1>_<value1>_…_<window start, unix seconds>
// a string counter (INCRBY) whose window is epoch-aligned; the TTL carries random jitter, so the
// window start in the key and the route's window length say when it resets. Values may contain
// '_': the template names the descriptor head, the window start is the last '_' field.
#include "model/monitor/layouts/layouts.h"

namespace qs::layouts {

namespace {

std::optional<limiter::Micros> windowStartInKey(const QByteArray &key)
{
    const qsizetype at = key.lastIndexOf('_');
    if (at < 0)
        return std::nullopt;
    bool ok = false;
    const qint64 seconds = key.mid(at + 1).toLongLong(&ok);
    if (!ok || seconds < 0)
        return std::nullopt;
    return seconds * limiter::kMicrosPerSecond;
}

class EnvoyRatelimit : public TemplateLayout {
public:
    using TemplateLayout::TemplateLayout;

    bool accepts(const QByteArray &key) const override
    {
        return TemplateLayout::accepts(key) && windowStartInKey(key).has_value();
    }

    QList<Command> reads(const QByteArray &key) const override
    {
        return {{QByteArrayLiteral("GET"), key}, {QByteArrayLiteral("PTTL"), key}};
    }

    KeyQuota decode(
        const QByteArray &key, const QList<RespValue> &replies, qint64 nowUs) const override
    {
        const auto start = windowStartInKey(key);
        const RespValue &value = replies.value(0);
        if (!start)
            return KeyQuota::unreadable(QStringLiteral("the key does not end in _<window start>"));
        const auto count = readCounter(value, QStringLiteral("a request counter"));
        if (const auto *answer = std::get_if<KeyQuota>(&count))
            return *answer;
        const auto &window = std::get<limiter::FixedWindowConfig>(m_limit.config);
        return windowCounterQuota(window.limit, window.window, std::get<qint64>(count),
            nowUs - *start, m_limit.cost, replies.value(1).integer);
    }
};

} // namespace

std::unique_ptr<LayoutDecoder> envoyRatelimit(const KeyTemplate &key, RouteLimit limit)
{
    return std::make_unique<EnvoyRatelimit>(key, std::move(limit));
}

} // namespace qs::layouts
