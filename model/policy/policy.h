#pragma once
// The policy document as the rest of the program sees it. Values keep the text the operator
// wrote where it carries meaning (a rate written `120/min` stays `120/min` on save), and every
// object remembers the order of its fields so that a load/save round trip keeps the file's
// shape. Field locations (line, column) are kept per field path for diagnostics.
#include "limiter/algorithms/algorithm.h"
#include "limiter/algorithms/headers.h"
#include "limiter/algorithms/limitset.h"
#include "limiter/algorithms/storeerror.h"
#include "model/policy/sourcelocations.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace qs {

class PlanMap;

// Who a limit counts: `ip`, `header:<Name>`, `query:<name>`, `global`.
struct KeySelector {
    enum class Kind { Ip, Header, Query, Global };
    Kind kind = Kind::Ip;
    QString name; // header or query parameter name
    QString toString() const;
    friend bool operator==(const KeySelector &, const KeySelector &) = default;
};

// A rate or duration as written, with its value.
struct RateValue {
    QString text;
    limiter::Rate rate;
    friend bool operator==(const RateValue &a, const RateValue &b) { return a.text == b.text; }
};
struct DurationValue {
    QString text;
    limiter::Micros micros = 0;
    friend bool operator==(const DurationValue &a, const DurationValue &b)
    {
        return a.text == b.text;
    }
};

// The `limit:` of a route. Which fields apply depends on the algorithm:
//   token_bucket: capacity, refill        leaky_bucket: rate, queue, mode (police|shape)
//   fixed_window, sliding_window_log, sliding_window_counter: limit, window
//   fixed_window: calendar and time_zone instead of window (a window that follows the calendar)
//   gcra: rate, burst
struct LimitSpec {
    limiter::Algorithm algorithm = limiter::Algorithm::TokenBucket;
    std::optional<qint64> capacity, limit, burst, queue;
    std::optional<RateValue> refill, rate;
    std::optional<DurationValue> window;
    std::optional<limiter::LeakMode> mode;
    std::optional<limiter::CalendarUnit> calendar;
    std::optional<QString> timeZone; // an IANA name; unset: UTC (calendar windows only)
    QStringList fieldOrder;
    friend bool operator==(const LimitSpec &, const LimitSpec &) = default;
};

enum class RouteMode { Enforce, Shadow };

// A limit's numbers for one plan (`plans: { pro: { capacity: 100 }, enterprise: unlimited }`):
// the fields the plan sets; every other field is the limit's own (plans.h, specForPlan).
struct PlanLimit {
    QString plan;
    bool unlimited = false; // the plan is not limited here: its requests are neither counted
                            // nor denied by this limit
    LimitSpec spec; // algorithm: the limit's; fieldOrder: the fields the plan sets, as written
    friend bool operator==(const PlanLimit &, const PlanLimit &) = default;
};

// What a route does with a request that lacks a header or query part of its key (absent or
// empty). `shared` is the default: all such requests count as one client, so leaving the key
// out never escapes the limit, and nothing depends on trusting the client address.
//   shared: one bucket for every request without the part
//   ip:     the client address stands in for the missing part
//   deny:   refused with the policy's status, counted nowhere
//   allow:  not limited (what NGINX and HAProxy did silently before this was a choice)
enum class MissingKeyMode { Shared, Ip, Deny, Allow };

// Which route of the file a route in memory came from, so that saving can keep that route's
// own text (comments, layout) and change only what was edited. Not content: two routes are
// equal whatever their origin. 0: not from the file (new, duplicated).
struct RouteOrigin {
    quint64 uid = 0;
    // Values the file has but the reader could not accept, as written, by field path below the
    // route (`limit.capacity` -> "-5"): the editor shows them instead of inventing a value.
    QHash<QString, QString> invalidText;
    friend bool operator==(const RouteOrigin &, const RouteOrigin &) { return true; }
};
quint64 nextRouteUid();

// One named limit of a route: its algorithm fields, and optionally its own key, missing-key
// choice, cost and mode; unset, the route's apply. In a file, an item of `limits:` holds all of
// these in one map (spec.fieldOrder keeps that map's order, `name` and `key` included); a route
// written with `limit:` has one, named `default`.
struct RouteLimit {
    QString name = defaultName();
    LimitSpec spec;
    std::optional<QList<KeySelector>> key; // unset: the route's
    std::optional<MissingKeyMode> missingKey; // unset: the route's
    std::optional<qint64> cost; // unset: the route's
    std::optional<RouteMode> mode; // unset: the route's
    QList<PlanLimit> plans; // the plans whose numbers differ, in file order
    friend bool operator==(const RouteLimit &, const RouteLimit &) = default;

    const PlanLimit *planLimit(const QString &plan) const;
    bool variesByPlan() const { return !plans.isEmpty(); }

    static QString defaultName() { return QStringLiteral("default"); }
    static constexpr int kMaxNameLength = 32;
    static constexpr qsizetype kMaxLimits = qsizetype(limiter::kMaxLimitsPerRequest); // per route
};

struct Route {
    RouteOrigin origin;
    QString id;
    QString description;
    QStringList methods; // upper case; empty: any method
    QString path;
    std::optional<QList<KeySelector>> key; // unset: the policy's default key
    std::optional<MissingKeyMode> missingKey; // unset: the policy's default
    // Never empty. A request is admitted only when every enforced limit admits it.
    QList<RouteLimit> limits{RouteLimit{}};
    // The file says `limits:` (a list) rather than `limit:`; a route with several limits is
    // always written as a list, one with a single limit keeps the form it was read in.
    bool limitList = false;
    std::optional<qint64> cost; // unset: 1
    std::optional<RouteMode> mode; // unset: enforce
    QStringList fieldOrder, matchFieldOrder;
    friend bool operator==(const Route &, const Route &) = default;

    static constexpr qint64 kMaxCost = 1'000'000; // units one request may take
    qint64 effectiveCost() const { return cost.value_or(1); }
    RouteMode effectiveMode() const { return mode.value_or(RouteMode::Enforce); }

    // The first limit's algorithm fields. What still handles one limit per route reads this;
    // each such place says what it does with the others (docs/policy-format.md, "Several
    // limits").
    const LimitSpec &limit() const { return limits.first().spec; }
    LimitSpec &limit() { return limits.first().spec; }
    bool hasSeveralLimits() const { return limits.size() > 1; }
    bool writtenAsList() const { return limitList || hasSeveralLimits(); }
    // The field path of limit `i` (`limit` or `limits[i]`), for locations and diagnostics.
    QString limitPath(qsizetype i) const;
    qint64 costOf(const RouteLimit &limit) const { return limit.cost.value_or(effectiveCost()); }
    RouteMode modeOf(const RouteLimit &limit) const { return limit.mode.value_or(effectiveMode()); }
    const RouteLimit *findLimit(const QString &name) const;
};

struct Defaults {
    std::optional<QList<KeySelector>> key; // unset: ip
    std::optional<MissingKeyMode> missingKey; // unset: shared
    std::optional<int> status; // unset: 429
    std::optional<limiter::StoreErrorPolicy> onStoreError; // unset: allow
    std::optional<limiter::HeaderStyle> headers; // unset: draft
    QStringList fieldOrder;
    friend bool operator==(const Defaults &, const Defaults &) = default;

    // The status a denied request gets: the file's, or the HTTP standard's 429.
    static constexpr int kDefaultStatus = 429;
    int effectiveStatus() const { return status.value_or(kDefaultStatus); }
    limiter::StoreErrorPolicy effectiveOnStoreError() const
    {
        return onStoreError.value_or(limiter::StoreErrorPolicy::Allow);
    }
};

// How a route's state is laid out in a Redis deployment that Quota Studio did not write (a
// hand-written token bucket hash with `tokens` / `last_updated` fields, say).
struct RedisLayout {
    QString routeId;
    std::optional<QString> preset; // a LayoutPreset name; unset: tutorial-hash
    QString keyTemplate; // e.g. "ratelimit:{key}"; empty: the preset's default
    QList<QPair<QString, QString>> fields; // our field name -> their field name, in file order
    std::optional<QString> timeUnit; // s | ms | us; unset: told by magnitude
    // How the deployment's script refills (tutorial-hash): continuous | per_unit (elapsed time
    // in whole `time_unit`s). Unset: per_unit when the stored time is a whole number of seconds.
    std::optional<QString> refill;
    QStringList fieldOrder;
    friend bool operator==(const RedisLayout &, const RedisLayout &) = default;
};

struct RedisSettings {
    std::optional<QString> prefix; // unset: "qs"
    std::optional<bool> metrics; // unset: false
    QList<RedisLayout> layouts; // `layouts:` in the file, keyed by route id
    QStringList fieldOrder;
    bool present = false; // the file has a `redis:` section
    friend bool operator==(const RedisSettings &, const RedisSettings &) = default;

    static QString defaultPrefix() { return QStringLiteral("qs"); }
    QString effectivePrefix() const { return prefix.value_or(defaultPrefix()); }
};

// `plans:`: the plans a policy knows and how a request's plan is found, either from a request
// attribute that names it (`from: header:X-Plan`, set by the auth layer) or from a file that maps
// a key's value to a plan (`from: { key: header:X-Api-Key, map: plans.map }`). A request whose
// plan is missing or unknown gets `default` (unset: the first name, which the docs ask to be the
// most restricted plan: guessing never grants more).
struct PlanSettings {
    QStringList names;
    std::optional<KeySelector> from; // the attribute, or the map's key
    std::optional<QString>
        mapFile; // set: `from` is looked up in this file (relative to the policy)
    std::optional<QString> defaultPlan;
    QStringList fieldOrder, fromFieldOrder;
    bool present = false; // the file has a `plans:` section
    // The map file as read when the policy was (plans.h); derived, not content.
    std::shared_ptr<const PlanMap> map;

    static constexpr qsizetype kMaxPlans = 32;
    QString effectiveDefault() const { return defaultPlan.value_or(names.value(0)); }
    bool fromMap() const { return mapFile.has_value(); }
    friend bool operator==(const PlanSettings &a, const PlanSettings &b)
    {
        return a.names == b.names && a.from == b.from && a.mapFile == b.mapFile
            && a.defaultPlan == b.defaultPlan && a.fieldOrder == b.fieldOrder
            && a.fromFieldOrder == b.fromFieldOrder && a.present == b.present;
    }
};

struct Policy {
    int formatVersion = 1; // the file's `quota_studio:` field
    QString name;
    QString description;
    Defaults defaults;
    RedisSettings redis;
    PlanSettings plans;
    QList<Route> routes;
    QStringList fieldOrder;
    bool defaultsPresent = false;

    // Where each field was read, by path (`routes[2].limit.capacity`); empty for new policies.
    SourceLocations locations;

    QList<KeySelector> keyOf(const Route &route) const;
    MissingKeyMode missingKeyOf(const Route &route) const;
    // A limit's own key and missing-key choice, or its route's.
    QList<KeySelector> keyOf(const Route &route, const RouteLimit &limit) const;
    MissingKeyMode missingKeyOf(const Route &route, const RouteLimit &limit) const;
    const Route *route(const QString &id) const;

    // Content equality: locations are not content.
    friend bool operator==(const Policy &a, const Policy &b);
};

// Adds a field the file did not have to an object's field order (at `at`, or at the end when
// `at` is out of range), so that saving writes it; a field already there keeps its place.
void rememberField(QStringList &order, const QString &field, qsizetype at = -1);

// Text forms used in files, shared by the reader, the writer and the UI.
QString routeModeName(RouteMode mode);
QString storeErrorPolicyName(limiter::StoreErrorPolicy mode);
QString missingKeyModeName(MissingKeyMode mode);
const QStringList &missingKeyModeNames(); // in enum order
// Whether a key has a part a request can lack (a header or a query parameter).
bool keyCanBeMissing(const QList<KeySelector> &key);
QString headerStyleName(limiter::HeaderStyle style);
QString leakModeName(limiter::LeakMode mode);
const QStringList &calendarUnitNames(); // day, week, month, year: in CalendarUnit's order
// A limit's or a plan's name: 1-32 letters, digits, '_', '.' or '-', starting with a letter or
// digit (names become zone, table, key and header item names).
bool isValidLimitName(const QString &name);
QString algorithmDisplayName(limiter::Algorithm algorithm);

} // namespace qs
