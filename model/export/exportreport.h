#pragma once
// What every exporter needs besides its own syntax: diagnostics placed at the route's field in
// the policy file and tagged with the target, collision-free names built from route ids, and
// names made safe for comments.
#include "limiter/algorithms/algorithm.h"
#include "model/policy/diagnostic.h"
#include "model/policy/pathpattern.h"
#include "model/policy/policy.h"

#include <QRegularExpression>
#include <QSet>
#include <QStringList>

#include <algorithm>
#include <optional>
#include <vector>

namespace qs {

class ExportReport {
public:
    // `severalLimits`: the target writes routes with several limits (Exporter::
    // writesSeveralLimits); otherwise such a route is an error at its `limits`.
    ExportReport(const Policy &policy, QString target, bool severalLimits = false)
        : m_policy(policy), m_target(std::move(target)), m_severalLimits(severalLimits)
    {
    }

    // A finding at routes[i]<field>, tagged with the route and the target (the file name is the
    // caller's).
    void note(Diagnostic::Severity severity, qsizetype route, const QString &field,
        const QString &message);
    // A finding about the whole export, at the policy's `field` (e.g. "routes"), tagged with
    // the target and no route.
    void notePolicy(Diagnostic::Severity severity, const QString &field, const QString &message);
    const Diagnostics &diagnostics() const { return m_diagnostics; }
    bool hasErrors() const { return qs::hasErrors(m_diagnostics); }

    // The route's path pattern, or nullopt after noting why at .match.path.
    std::optional<PathPattern> pathPattern(qsizetype route);
    // The route's limit as the limiter's config, or nullopt after noting why at .limit (or
    // at .limits, when the route has several and the target writes one).
    std::optional<limiter::AlgorithmConfig> algorithmConfig(qsizetype route);
    // Limit `limit` of the route, for targets that write several. For a target that does not
    // tell plans apart, a limit with per-plan numbers is noted: every client gets its own.
    std::optional<limiter::AlgorithmConfig> algorithmConfig(qsizetype route, qsizetype limit);
    // The limit's config on `plan` (its numbers with the plan's in their place); nullopt after
    // noting why at the plan's entry. Not for a plan that is unlimited there.
    std::optional<limiter::AlgorithmConfig> planConfig(
        qsizetype route, qsizetype limit, const QString &plan);
    // The target exports each plan's numbers (planConfig()).
    void setPlans() { m_plans = true; }

    // prefix + the id with every character outside `allowed` replaced by `filler`, made unique
    // among the names this report handed out by appending `filler`.
    QString uniqueName(const QString &prefix, const QString &id,
        const QRegularExpression &disallowed, QChar filler);

    // The calendar units the target counts natively, aligned to UTC (Kong: day, month, year;
    // envoyproxy/ratelimit: day). A calendar limit in another unit or zone is exported as its
    // nominal rolling length with a warning that states the worst case (algorithmConfig()).
    void setNativeCalendarUnits(std::initializer_list<limiter::CalendarUnit> units)
    {
        m_nativeCalendar = units;
    }
    // The target computes calendar windows itself, in any zone (the Redis bundle).
    void setNativeCalendarEverywhere() { m_calendarEverywhere = true; }
    // Whether `config` is a calendar window the target counts natively (UTC, a native unit).
    bool isNativeCalendar(const limiter::AlgorithmConfig &config) const;

    // The gateway's name in messages ("NGINX"); the target's id until set.
    void setDisplayName(QString name) { m_displayName = std::move(name); }

    // Keeps a fixed name (a catch-all route, say) from being handed out for a route.
    void reserve(const QString &name) { m_names.insert(name); }

    // Text for a comment line: anything unprintable (a newline) becomes '?'.
    static QString commentSafe(const QString &text);

private:
    void noteCalendar(qsizetype route, qsizetype limit, const limiter::FixedWindowConfig &config);

    const Policy &m_policy;
    QString m_target, m_displayName = m_target;
    bool m_severalLimits = false;
    std::vector<limiter::CalendarUnit> m_nativeCalendar;
    bool m_calendarEverywhere = false;
    bool m_plans = false;
    Diagnostics m_diagnostics;
    QSet<QString> m_names;
};

// Gateways that take the first route that matches (NGINX regex locations, Envoy, HAProxy, Kong
// and Traefik priorities) resolve as the policy does when routes come most specific first.
// T has a `pattern` member: a PathPattern, or something that dereferences to one.
template <class T>
void sortMostSpecificFirst(std::vector<T> &routes)
{
    std::stable_sort(routes.begin(), routes.end(), [](const T &a, const T &b) {
        const auto &pa = a.pattern, &pb = b.pattern;
        if constexpr (std::is_same_v<std::decay_t<decltype(pa)>, PathPattern>)
            return PathPattern::compareSpecificity(pa, pb) > 0;
        else
            return PathPattern::compareSpecificity(*pa, *pb) > 0;
    });
}

} // namespace qs
