#include "model/policy/layoutpreset.h"

namespace qs {

using limiter::Algorithm;

const QList<LayoutPreset> &layoutPresets()
{
    static const QList<LayoutPreset> presets = {
        {QStringLiteral("tutorial-hash"), QStringLiteral("rate_limit:{key}"),
            {Algorithm::TokenBucket}, false,
            QStringLiteral("a hash of tokens and a last-update time (the classic Lua token-bucket "
                           "tutorial)")},
        {QStringLiteral("python-limits"), QStringLiteral("LIMITER/{key}"),
            {Algorithm::FixedWindow, Algorithm::SlidingWindowLog}, true,
            QStringLiteral("the Python limits library (slowapi, Flask-Limiter): fixed-window "
                           "counters and moving-window lists")},
        {QStringLiteral("kong"), QStringLiteral("ratelimit:{key}"), {Algorithm::FixedWindow}, false,
            QStringLiteral("Kong's rate-limiting plugin with policy redis: one counter per "
                           "period")},
        {QStringLiteral("envoy-ratelimit"), QString(), {Algorithm::FixedWindow}, false,
            QStringLiteral("envoyproxy/ratelimit: one counter per descriptor and window")},
        {QStringLiteral("redis_rate"), QStringLiteral("rate:{key}"), {Algorithm::Gcra}, false,
            QStringLiteral("go-redis/redis_rate: GCRA's theoretical arrival time")},
        {QStringLiteral("spring-cloud-gateway"),
            QStringLiteral("request_rate_limiter.{key}.tokens"), {Algorithm::TokenBucket}, false,
            QStringLiteral("Spring Cloud Gateway's RedisRateLimiter: tokens and timestamp keys")},
        {QStringLiteral("express-rate-limit"), QStringLiteral("rl:{key}"), {Algorithm::FixedWindow},
            false,
            QStringLiteral("rate-limit-redis for express-rate-limit: a hit counter that expires "
                           "with its window")},
    };
    return presets;
}

const LayoutPreset *layoutPreset(const QString &name)
{
    for (const LayoutPreset &p : layoutPresets())
        if (p.name == name)
            return &p;
    return nullptr;
}

QStringList layoutPresetNames()
{
    QStringList names;
    for (const LayoutPreset &p : layoutPresets())
        names << p.name;
    return names;
}

} // namespace qs
