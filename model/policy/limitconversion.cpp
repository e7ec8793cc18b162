#include "model/policy/limitconversion.h"

#include "model/policy/limitfields.h"
#include "model/policy/ratesyntax.h"

namespace qs {

namespace {

template <class T>
bool missing(const std::optional<T> &value, const char *field, LimitProblem &problem,
    limiter::Algorithm algorithm)
{
    if (value)
        return false;
    problem = {QString::fromLatin1(field),
        QStringLiteral("%1 needs `%2`; it takes %3")
            .arg(QString::fromLatin1(limiter::algorithmName(algorithm).data()),
                QString::fromLatin1(field), limitFields(algorithm).join(QStringLiteral(" and ")))};
    return true;
}

// Which field a limiter validation message is about (the limiter phrases start with it).
QString fieldOfMessage(const std::string &message, const QStringList &fields)
{
    for (const QString &f : fields)
        if (QString::fromStdString(message).startsWith(f))
            return f;
    return {};
}

// The windows of a calendar limit: its unit in its zone (UTC unless given).
std::shared_ptr<const limiter::CalendarWindows> calendarWindows(
    const LimitSpec &s, LimitProblem &problem)
{
    std::shared_ptr<const limiter::calendar::TimeZone> zone = limiter::calendar::TimeZone::utc();
    if (s.timeZone) {
        std::string why;
        zone = limiter::calendar::TimeZone::load(s.timeZone->toStdString(), why);
        if (!zone) {
            problem = {QStringLiteral("time_zone"), QString::fromStdString(why)};
            return nullptr;
        }
    }
    return std::make_shared<const limiter::CalendarWindows>(*s.calendar, std::move(zone));
}

} // namespace

QString describeLimit(const LimitSpec &spec)
{
    QStringList parts;
    for (const LimitField &field : limitFieldTable()) {
        if (!field.appliesTo(spec.algorithm) || !hasLimitValue(spec, field))
            continue;
        QString value;
        switch (field.kind) {
        case LimitField::Kind::Count:
            value = QString::number(*(spec.*field.count));
            break;
        case LimitField::Kind::Rate:
            value = (spec.*field.rate)->text;
            break;
        case LimitField::Kind::Duration:
            value = (spec.*field.duration)->text;
            break;
        case LimitField::Kind::LeakMode:
            value = leakModeName(*spec.mode);
            break;
        case LimitField::Kind::Calendar:
            value = QString::fromLatin1(limiter::calendarUnitName(*spec.calendar).data());
            break;
        case LimitField::Kind::TimeZone:
            value = *spec.timeZone;
            break;
        }
        parts << field.name + QLatin1Char(' ') + value;
    }
    return QString::fromLatin1(limiter::algorithmName(spec.algorithm).data()) + QLatin1Char(' ')
        + parts.join(QStringLiteral(", "));
}

QString windowDescription(const LimitSpec &spec)
{
    if (spec.calendar)
        return QStringLiteral("calendar %1 in %2")
            .arg(QString::fromLatin1(limiter::calendarUnitName(*spec.calendar).data()),
                spec.timeZone.value_or(QStringLiteral("UTC")));
    return spec.window ? spec.window->text : QString();
}

Expected<limiter::AlgorithmConfig, LimitProblem> toAlgorithmConfig(const LimitSpec &s)
{
    using limiter::Algorithm;
    LimitProblem problem;
    limiter::AlgorithmConfig config;
    switch (s.algorithm) {
    case Algorithm::TokenBucket:
        if (missing(s.capacity, "capacity", problem, s.algorithm)
            || missing(s.refill, "refill", problem, s.algorithm))
            return problem;
        config = limiter::TokenBucketConfig{*s.capacity, s.refill->rate};
        break;
    case Algorithm::LeakyBucket:
        if (missing(s.rate, "rate", problem, s.algorithm)
            || missing(s.queue, "queue", problem, s.algorithm))
            return problem;
        config = limiter::LeakyBucketConfig{
            s.rate->rate, *s.queue, s.mode.value_or(limiter::LeakMode::Police)};
        break;
    case Algorithm::FixedWindow:
        if (s.calendar) {
            if (missing(s.limit, "limit", problem, s.algorithm))
                return problem;
            auto calendar = calendarWindows(s, problem);
            if (!calendar)
                return problem;
            limiter::FixedWindowConfig fixed{{*s.limit, limiter::nominalLength(*s.calendar)}};
            fixed.calendar = std::move(calendar);
            config = fixed;
            break;
        }
        [[fallthrough]];
    case Algorithm::SlidingWindowLog:
    case Algorithm::SlidingWindowCounter: {
        if (missing(s.limit, "limit", problem, s.algorithm)
            || missing(s.window, "window", problem, s.algorithm))
            return problem;
        const limiter::WindowLimit w{*s.limit, s.window->micros};
        if (s.algorithm == Algorithm::FixedWindow)
            config = limiter::FixedWindowConfig{w};
        else if (s.algorithm == Algorithm::SlidingWindowLog)
            config = limiter::SlidingWindowLogConfig{w};
        else
            config = limiter::SlidingWindowCounterConfig{w};
        break;
    }
    case Algorithm::Gcra:
        if (missing(s.rate, "rate", problem, s.algorithm)
            || missing(s.burst, "burst", problem, s.algorithm))
            return problem;
        config = limiter::GcraConfig{s.rate->rate, *s.burst};
        break;
    }
    if (auto message = limiter::validate(config))
        return LimitProblem{
            fieldOfMessage(*message, limitFields(s.algorithm)), QString::fromStdString(*message)};
    return config;
}

qint64 maxAdmissibleCost(const limiter::AlgorithmConfig &config)
{
    return std::visit(
        [](const auto &c) -> qint64 {
            using C = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<C, limiter::TokenBucketConfig>)
                return c.capacity;
            else if constexpr (std::is_same_v<C, limiter::LeakyBucketConfig>)
                return c.queue + 1;
            else if constexpr (std::is_same_v<C, limiter::GcraConfig>)
                return c.burst;
            else
                return c.limit;
        },
        config);
}

LimitSpec toLimitSpec(const limiter::AlgorithmConfig &config)
{
    LimitSpec s;
    s.algorithm = limiter::algorithmOf(config);
    s.fieldOrder = QStringList{QStringLiteral("algorithm")} + limitFields(s.algorithm);
    const auto rate = [](const limiter::Rate &r) { return RateValue{formatRate(r), r}; };
    std::visit(
        [&](const auto &c) {
            using C = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<C, limiter::TokenBucketConfig>) {
                s.capacity = c.capacity;
                s.refill = rate(c.refill);
            } else if constexpr (std::is_same_v<C, limiter::LeakyBucketConfig>) {
                s.rate = rate(c.rate);
                s.queue = c.queue;
                s.mode = c.mode;
            } else if constexpr (std::is_same_v<C, limiter::GcraConfig>) {
                s.rate = rate(c.rate);
                s.burst = c.burst;
            } else {
                s.limit = c.limit;
                s.window = DurationValue{formatDuration(c.window), c.window};
                if constexpr (std::is_same_v<C, limiter::FixedWindowConfig>)
                    if (const limiter::CalendarWindows *zoned
                        = c.calendar ? c.calendar->zoned() : nullptr) {
                        s.window.reset();
                        s.calendar = zoned->unit();
                        if (zoned->zone().name() != "UTC")
                            s.timeZone = QString::fromStdString(zoned->zone().name());
                    }
            }
        },
        config);
    s.fieldOrder.removeIf([&](const QString &field) {
        const LimitField *f = limitField(field);
        return f && !hasLimitValue(s, *f);
    });
    return s;
}

LimitSpec switchAlgorithm(const LimitSpec &from, limiter::Algorithm to)
{
    if (from.algorithm == to)
        return from;
    const auto converted = toAlgorithmConfig(from);
    // An unfinished limit has no rate to keep: start from 10 per second, bursts of 10.
    const limiter::AlgorithmConfig base
        = converted.valueOr(limiter::TokenBucketConfig{10, {10, limiter::kMicrosPerSecond}});
    for (const limiter::AlgorithmConfig &c : comparableConfigs(base))
        if (limiter::algorithmOf(c) == to)
            return toLimitSpec(c);
    return from;
}

std::vector<limiter::AlgorithmConfig> comparableConfigs(const limiter::AlgorithmConfig &config)
{
    // The long-run rate R and the burst B of the given config.
    const limiter::Quota fresh = limiter::peek(config, limiter::freshState(config), 0);
    const std::int64_t burst = std::max<std::int64_t>(1, fresh.limit);
    limiter::Rate rate{burst, std::max<limiter::Micros>(1, fresh.window)};
    std::visit(
        [&](const auto &c) {
            using C = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<C, limiter::TokenBucketConfig>)
                rate = c.refill;
            else if constexpr (std::is_same_v<C,
                                   limiter::
                                       GcraConfig> || std::is_same_v<C, limiter::LeakyBucketConfig>)
                rate = c.rate;
        },
        config);
    // A window holding B requests at rate R lasts B/R.
    const limiter::Micros window = std::max<limiter::Micros>(limiter::kMicrosPerMilli,
        limiter::Micros(double(burst) * double(rate.period) / double(rate.count)));
    const limiter::WindowLimit w{burst, window};
    return {
        limiter::TokenBucketConfig{burst, rate},
        limiter::LeakyBucketConfig{rate, burst - 1, limiter::LeakMode::Police},
        limiter::FixedWindowConfig{w},
        limiter::SlidingWindowLogConfig{w},
        limiter::SlidingWindowCounterConfig{w},
        limiter::GcraConfig{rate, burst},
    };
}

} // namespace qs
