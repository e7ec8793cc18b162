#include "model/monitor/layoutdecoder.h"
#include "model/policy/plans.h"

#include "model/monitor/layouts/layouts.h"
#include "model/policy/layoutpreset.h"
#include "model/policy/limitconversion.h"
#include "model/policy/policykeys.h"

#include <algorithm>
#include <cmath>

namespace qs {

KeyQuota quotaFromState(const limiter::AlgorithmConfig &config,
    const limiter::AlgorithmState &state, qint64 nowUs, qint64 cost, qint64 ttlMs)
{
    const limiter::Quota q = limiter::peek(config, state, nowUs);
    KeyQuota out;
    out.status = KeyQuota::Status::Read;
    out.limit = q.limit;
    out.remaining = std::clamp<qint64>(q.remaining, 0, q.limit);
    out.resetAfterMs = (std::max<qint64>(0, q.resetAfter) + 999) / 1000;
    out.ttlMs = ttlMs;
    out.throttled = q.remaining < cost;
    return out;
}

std::optional<double> replyNumber(const RespValue &reply)
{
    if (reply.type == RespValue::Type::Integer)
        return double(reply.integer);
    if (reply.type != RespValue::Type::String)
        return std::nullopt;
    bool ok = false;
    const double v = reply.text.toDouble(&ok);
    // "nan" and "inf" parse, but no layout stores them as a count or a time: a bucket of NaN
    // tokens compares false with everything and read as full.
    return ok && std::isfinite(v) ? std::optional(v) : std::nullopt;
}

QString replyKind(const RespValue &reply)
{
    switch (reply.type) {
    case RespValue::Type::Error:
        return reply.text.startsWith("WRONGTYPE")
            ? QStringLiteral("a key of another Redis type")
            : QStringLiteral("an error: %1").arg(QString::fromUtf8(reply.text.left(120)));
    case RespValue::Type::Nil:
        return QStringLiteral("nothing (nil)");
    case RespValue::Type::String:
        return QStringLiteral("'%1'").arg(
            QString::fromUtf8(reply.text.left(40).toPercentEncoding(" :./-_")));
    case RespValue::Type::Integer:
        return QString::number(reply.integer);
    case RespValue::Type::Status:
        return QString::fromUtf8(reply.text.left(40));
    case RespValue::Type::Array:
        return QStringLiteral("a list of %1").arg(reply.elements.size());
    }
    return {};
}

Expected<std::unique_ptr<LayoutDecoder>> makeLayoutDecoder(
    const Policy &policy, const Route &route, qsizetype limitIndex, const QString &plan)
{
    if (route.hasSeveralLimits() || limitIndex >= 0) {
        // One limit of several, or of a route whose numbers differ by plan: Quota Studio's keys
        // of that limit (several.lua, the bundle), and of the plan where the limit has plans.
        const RouteLimit &limit = route.limits[std::max<qsizetype>(0, limitIndex)];
        for (const RedisLayout &l : policy.redis.layouts)
            if (l.routeId == route.id)
                return QStringLiteral("route '%1' has %2 limits; a layout of another system "
                                      "(redis.layouts) reads one limit per route")
                    .arg(route.id)
                    .arg(route.limits.size());
        const std::optional<LimitSpec> spec
            = plan.isEmpty() ? std::optional<LimitSpec>(limit.spec) : specForPlan(limit, plan);
        if (!spec)
            return QStringLiteral("route '%1', limit '%2' is unlimited on plan '%3': no keys")
                .arg(route.id, limit.name, plan);
        auto config = toAlgorithmConfig(*spec);
        if (!config)
            return QStringLiteral("route '%1', limit '%2': %3")
                .arg(route.id, limit.name, config.error().message);
        return layouts::quotaStudio(policy.redis.effectivePrefix(),
            limitKeyPrefix(policy, route, std::max<qsizetype>(0, limitIndex), plan),
            layouts::RouteLimit{*config, route.costOf(limit)});
    }
    auto config = toAlgorithmConfig(route.limit());
    if (!config)
        return QStringLiteral("route '%1': %2").arg(route.id, config.error().message);
    const layouts::RouteLimit limit{*config, route.effectiveCost()};

    const RedisLayout *layout = nullptr;
    for (const RedisLayout &l : policy.redis.layouts)
        if (l.routeId == route.id)
            layout = &l;
    if (!layout)
        return layouts::quotaStudio(
            policy.redis.effectivePrefix(), limitKeyPrefix(policy, route, 0), limit);

    const QString name = layout->preset.value_or(QString::fromLatin1(kDefaultLayoutPreset));
    const LayoutPreset *preset = layoutPreset(name);
    if (!preset)
        return QStringLiteral("route '%1': no layout preset is called '%2'").arg(route.id, name);
    if (!preset->algorithms.contains(limiter::algorithmOf(limit.config)))
        return QStringLiteral("route '%1': the %2 preset does not read %3 state")
            .arg(route.id, name,
                QString::fromUtf8(limiter::algorithmName(limiter::algorithmOf(limit.config))));
    const QString keyText
        = layout->keyTemplate.isEmpty() ? preset->defaultKey : layout->keyTemplate;
    if (!keyText.contains(QStringLiteral("{key}")))
        return QStringLiteral("route '%1': the layout's key template needs {key}").arg(route.id);
    const KeyTemplate key(keyText);
    if (name == QLatin1String("tutorial-hash"))
        return layouts::tutorialHash(key, *layout, limit);
    if (name == QLatin1String("python-limits"))
        return layouts::pythonLimits(key, limit);
    if (name == QLatin1String("kong"))
        return layouts::kong(key, limit);
    if (name == QLatin1String("envoy-ratelimit"))
        return layouts::envoyRatelimit(key, limit);
    if (name == QLatin1String("redis_rate"))
        return layouts::redisRate(key, limit);
    if (name == QLatin1String("spring-cloud-gateway"))
        return layouts::springCloudGateway(key, limit);
    return layouts::expressRateLimit(key, limit);
}

namespace layouts {

KeyQuota windowCounterQuota(qint64 limit, limiter::Micros window, qint64 count,
    limiter::Micros elapsedUs, qint64 cost, qint64 ttlMs)
{
    if (elapsedUs >= window || window <= 0)
        return KeyQuota::gone();
    limiter::FixedWindowConfig config;
    config.limit = limit;
    config.window = window;
    return quotaFromState(config, limiter::FixedWindowState{0, count},
        std::max<limiter::Micros>(0, elapsedUs), cost, ttlMs);
}

std::variant<qint64, KeyQuota> readCounter(const RespValue &value, const QString &what)
{
    if (value.type == RespValue::Type::Nil)
        return KeyQuota::gone();
    const auto count = replyNumber(value);
    if (value.type != RespValue::Type::String || !count || *count < 0
        || *count != std::floor(*count))
        return KeyQuota::unreadable(
            QStringLiteral("expected %1, found %2").arg(what, replyKind(value)));
    return qint64(*count);
}

qint64 unitMicros(double stored, const std::optional<QString> &unit)
{
    QString u = unit.value_or(QString());
    if (u.isEmpty())
        u = stored < 1e11 ? QStringLiteral("s") : stored < 1e14 ? QStringLiteral("ms") : QString();
    return u == QLatin1String("s") ? 1'000'000 : u == QLatin1String("ms") ? 1000 : 1;
}

qint64 toEpochMicros(double stored, const std::optional<QString> &unit)
{
    return qint64(std::llround(stored * double(unitMicros(stored, unit))));
}

KeyQuota tokenBucketQuota(const RouteLimit &limit, const limiter::TokenBucketState &state,
    qint64 nowUs, qint64 ttlMs, qint64 refillStepUs)
{
    if (state.updatedAt - nowUs > kFutureUpdateToleranceUs)
        return KeyQuota::unreadable(
            QStringLiteral("its last update is %1 s ahead of the server's clock: a clock in the "
                           "future, or not a time")
                .arg(double(state.updatedAt - nowUs) / 1e6, 0, 'g', 3));
    if (refillStepUs <= 1)
        return quotaFromState(limit.config, state, nowUs, limit.cost, ttlMs);
    // The deployment's script counts elapsed time in whole steps (`int(time.time())`): it grants
    // what the bucket held at the start of the current step, and the next tokens arrive at the
    // next step's start, not in between.
    const qint64 stepStart = nowUs - (nowUs % refillStepUs + refillStepUs) % refillStepUs;
    KeyQuota q = quotaFromState(limit.config, state, stepStart, limit.cost, ttlMs);
    const qint64 fullAtUs = stepStart + q.resetAfterMs * 1000;
    const qint64 fullAtStepUs = (fullAtUs + refillStepUs - 1) / refillStepUs * refillStepUs;
    q.resetAfterMs = std::max<qint64>(0, (fullAtStepUs - nowUs + 999) / 1000);
    return q;
}

} // namespace layouts

} // namespace qs
