#include "model/policy/policy.h"

#include <QRegularExpression>

#include <algorithm>
#include <atomic>

namespace qs {

QString KeySelector::toString() const
{
    switch (kind) {
    case Kind::Ip:
        return QStringLiteral("ip");
    case Kind::Global:
        return QStringLiteral("global");
    case Kind::Header:
        return QStringLiteral("header:") + name;
    case Kind::Query:
        return QStringLiteral("query:") + name;
    }
    return {};
}

QList<KeySelector> Policy::keyOf(const Route &route) const
{
    if (route.key)
        return *route.key;
    return defaults.key.value_or(QList<KeySelector>{KeySelector{}});
}

QList<KeySelector> Policy::keyOf(const Route &route, const RouteLimit &limit) const
{
    return limit.key ? *limit.key : keyOf(route);
}

MissingKeyMode Policy::missingKeyOf(const Route &route, const RouteLimit &limit) const
{
    return limit.missingKey ? *limit.missingKey : missingKeyOf(route);
}

QString Route::limitPath(qsizetype i) const
{
    return writtenAsList() ? QStringLiteral("limits[%1]").arg(i) : QStringLiteral("limit");
}

const RouteLimit *Route::findLimit(const QString &name) const
{
    for (const RouteLimit &l : limits)
        if (l.name == name)
            return &l;
    return nullptr;
}

const PlanLimit *RouteLimit::planLimit(const QString &plan) const
{
    for (const PlanLimit &p : plans)
        if (p.plan == plan)
            return &p;
    return nullptr;
}

quint64 nextRouteUid()
{
    static std::atomic<quint64> next{1};
    return next++;
}

MissingKeyMode Policy::missingKeyOf(const Route &route) const
{
    return route.missingKey.value_or(defaults.missingKey.value_or(MissingKeyMode::Shared));
}

const Route *Policy::route(const QString &id) const
{
    for (const Route &r : routes)
        if (r.id == id)
            return &r;
    return nullptr;
}

bool operator==(const Policy &a, const Policy &b)
{
    return a.formatVersion == b.formatVersion && a.name == b.name && a.description == b.description
        && a.defaults == b.defaults && a.redis == b.redis && a.plans == b.plans
        && a.routes == b.routes && a.fieldOrder == b.fieldOrder
        && a.defaultsPresent == b.defaultsPresent;
}

QString routeModeName(RouteMode mode)
{
    return mode == RouteMode::Shadow ? QStringLiteral("shadow") : QStringLiteral("enforce");
}

QString storeErrorPolicyName(limiter::StoreErrorPolicy mode)
{
    return mode == limiter::StoreErrorPolicy::Deny ? QStringLiteral("deny")
                                                   : QStringLiteral("allow");
}

const QStringList &missingKeyModeNames()
{
    static const QStringList names = {QStringLiteral("shared"), QStringLiteral("ip"),
        QStringLiteral("deny"), QStringLiteral("allow")};
    return names;
}

QString missingKeyModeName(MissingKeyMode mode)
{
    return missingKeyModeNames().value(int(mode));
}

bool keyCanBeMissing(const QList<KeySelector> &key)
{
    return std::any_of(key.begin(), key.end(), [](const KeySelector &k) {
        return k.kind == KeySelector::Kind::Header || k.kind == KeySelector::Kind::Query;
    });
}

QString headerStyleName(limiter::HeaderStyle style)
{
    switch (style) {
    case limiter::HeaderStyle::None:
        return QStringLiteral("none");
    case limiter::HeaderStyle::Draft:
        return QStringLiteral("draft");
    case limiter::HeaderStyle::XRateLimit:
        return QStringLiteral("x-ratelimit");
    case limiter::HeaderStyle::Both:
        return QStringLiteral("both");
    }
    return {};
}

QString leakModeName(limiter::LeakMode mode)
{
    return mode == limiter::LeakMode::Shape ? QStringLiteral("shape") : QStringLiteral("police");
}

const QStringList &calendarUnitNames()
{
    static const QStringList names = [] {
        QStringList out;
        for (auto unit : {limiter::CalendarUnit::Day, limiter::CalendarUnit::Week,
                 limiter::CalendarUnit::Month, limiter::CalendarUnit::Year})
            out << QString::fromLatin1(limiter::calendarUnitName(unit).data());
        return out;
    }();
    return names;
}

bool isValidLimitName(const QString &name)
{
    static const QRegularExpression syntax(
        QStringLiteral("^[A-Za-z0-9][A-Za-z0-9_.-]{0,%1}$").arg(RouteLimit::kMaxNameLength - 1));
    return syntax.match(name).hasMatch();
}

QString algorithmDisplayName(limiter::Algorithm algorithm)
{
    QString name = QString::fromLatin1(limiter::algorithmName(algorithm).data());
    name.replace(QLatin1Char('_'), QLatin1Char(' '));
    return name;
}

void rememberField(QStringList &order, const QString &field, qsizetype at)
{
    if (!order.contains(field))
        order.insert(at < 0 || at > order.size() ? order.size() : at, field);
}

} // namespace qs
