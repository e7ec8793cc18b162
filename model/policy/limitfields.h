#pragma once
// The fields of a `limit:` block, stated once: their names in the file, the kind and bounds of
// their values, where they live in LimitSpec and which algorithms take them. The reader, the
// writer's order, the descriptions and the route editor all read this table, so that a new
// field or a new bound is one row here.
#include "limiter/algorithms/algorithm.h"
#include "model/policy/policy.h"

#include <QLatin1String>
#include <QStringList>

#include <span>

namespace qs {

struct LimitField {
    enum class Kind {
        Count, // a whole number in [min, max]
        Rate, // `2/s`, `0.5/s`, `1 every 2s`
        Duration, // `10s`, `1m`
        LeakMode, // police | shape
        Calendar, // day | week | month | year
        TimeZone, // an IANA name: Europe/Berlin
    };
    QLatin1String name;
    Kind kind;
    qint64 min = 0, max = 0; // Count only
    // The one member of LimitSpec that holds the value (the one that goes with `kind`).
    std::optional<qint64> LimitSpec::*count = nullptr;
    std::optional<RateValue> LimitSpec::*rate = nullptr;
    std::optional<DurationValue> LimitSpec::*duration = nullptr;
    unsigned algorithms = 0; // a bit per limiter::Algorithm that takes the field
    bool required = true; // false: the algorithm has a default (leaky_bucket's mode)

    bool appliesTo(limiter::Algorithm algorithm) const
    {
        return (algorithms >> unsigned(algorithm)) & 1u;
    }
    QString path() const { return QStringLiteral("limit.") + name; } // below the route
};

// Every field, in the order the writer emits an algorithm's fields.
std::span<const LimitField> limitFieldTable();
// The field called `name`, or nullptr.
const LimitField *limitField(QStringView name);
// The fields an algorithm takes, in the writer's order.
QStringList limitFields(limiter::Algorithm algorithm);
// Whether the field has a value in `spec`.
bool hasLimitValue(const LimitSpec &spec, const LimitField &field);

} // namespace qs
