#include "model/policy/limitfields.h"

namespace qs {

namespace {

using limiter::Algorithm;
using Kind = LimitField::Kind;

constexpr unsigned bit(Algorithm a)
{
    return 1u << unsigned(a);
}

constexpr unsigned kWindows = bit(Algorithm::FixedWindow) | bit(Algorithm::SlidingWindowLog)
    | bit(Algorithm::SlidingWindowCounter);

// A capacity, limit or burst of 0 admits nothing; a queue of 0 is a bucket that only serves.
const LimitField kFields[] = {
    {QLatin1String("capacity"), Kind::Count, 1, limiter::kMaxCount, &LimitSpec::capacity, nullptr,
        nullptr, bit(Algorithm::TokenBucket)},
    {QLatin1String("refill"), Kind::Rate, 0, 0, nullptr, &LimitSpec::refill, nullptr,
        bit(Algorithm::TokenBucket)},
    {QLatin1String("rate"), Kind::Rate, 0, 0, nullptr, &LimitSpec::rate, nullptr,
        bit(Algorithm::LeakyBucket) | bit(Algorithm::Gcra)},
    {QLatin1String("queue"), Kind::Count, 0, limiter::kMaxCount, &LimitSpec::queue, nullptr,
        nullptr, bit(Algorithm::LeakyBucket)},
    {QLatin1String("mode"), Kind::LeakMode, 0, 0, nullptr, nullptr, nullptr,
        bit(Algorithm::LeakyBucket), false},
    {QLatin1String("limit"), Kind::Count, 1, limiter::kMaxCount, &LimitSpec::limit, nullptr,
        nullptr, kWindows},
    {QLatin1String("window"), Kind::Duration, 0, 0, nullptr, nullptr, &LimitSpec::window, kWindows},
    // A fixed window may follow the calendar instead (then `window` is not given): reset at
    // local midnight, on Mondays, on the 1st or on January 1st of a time zone.
    {QLatin1String("calendar"), Kind::Calendar, 0, 0, nullptr, nullptr, nullptr,
        bit(Algorithm::FixedWindow), false},
    {QLatin1String("time_zone"), Kind::TimeZone, 0, 0, nullptr, nullptr, nullptr,
        bit(Algorithm::FixedWindow), false},
    {QLatin1String("burst"), Kind::Count, 1, limiter::kMaxCount, &LimitSpec::burst, nullptr,
        nullptr, bit(Algorithm::Gcra)},
};

} // namespace

std::span<const LimitField> limitFieldTable()
{
    return kFields;
}

const LimitField *limitField(QStringView name)
{
    for (const LimitField &f : kFields)
        if (f.name == name)
            return &f;
    return nullptr;
}

QStringList limitFields(limiter::Algorithm algorithm)
{
    QStringList out;
    for (const LimitField &f : kFields)
        if (f.appliesTo(algorithm))
            out << f.name;
    return out;
}

bool hasLimitValue(const LimitSpec &spec, const LimitField &field)
{
    switch (field.kind) {
    case Kind::Count:
        return (spec.*field.count).has_value();
    case Kind::Rate:
        return (spec.*field.rate).has_value();
    case Kind::Duration:
        return (spec.*field.duration).has_value();
    case Kind::LeakMode:
        return spec.mode.has_value();
    case Kind::Calendar:
        return spec.calendar.has_value();
    case Kind::TimeZone:
        return spec.timeZone.has_value();
    }
    return false;
}

} // namespace qs
