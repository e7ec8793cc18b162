#include "model/limitconversion.h"

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

} // namespace

QStringList limitFields(limiter::Algorithm algorithm)
{
    using limiter::Algorithm;
    switch (algorithm) {
    case Algorithm::TokenBucket:
        return {QStringLiteral("capacity"), QStringLiteral("refill")};
    case Algorithm::LeakyBucket:
        return {QStringLiteral("rate"), QStringLiteral("queue"), QStringLiteral("mode")};
    case Algorithm::FixedWindow:
    case Algorithm::SlidingWindowLog:
    case Algorithm::SlidingWindowCounter:
        return {QStringLiteral("limit"), QStringLiteral("window")};
    case Algorithm::Gcra:
        return {QStringLiteral("rate"), QStringLiteral("burst")};
    }
    return {};
}

std::variant<limiter::AlgorithmConfig, LimitProblem> toAlgorithmConfig(const LimitSpec &s)
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

} // namespace qs
