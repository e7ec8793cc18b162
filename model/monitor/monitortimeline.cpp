#include "model/monitor/monitortimeline.h"

#include <cmath>
#include <limits>
#include <map>

namespace qs {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double seconds(qint64 us)
{
    return double(us) / 1e6;
}

// A target's route and plan from its id (`route`, `route/limit`, `route/limit@plan`,
// monitoredroute.h: '/' and '@' are in no route id).
QString routeOf(const QString &target)
{
    return target.section(QLatin1Char('/'), 0, 0).section(QLatin1Char('@'), 0, 0);
}

QString planOf(const QString &target)
{
    const qsizetype at = target.lastIndexOf(QLatin1Char('@'));
    return at < 0 ? QString() : target.mid(at + 1);
}

} // namespace

void MonitorTimeline::clear()
{
    m_routes.clear();
    m_points.clear();
    m_hasCounts = false;
    m_followed.clear();
    m_trail.clear();
    m_gaps.clear();
    m_interrupted = false;
}

void MonitorTimeline::record(const MonitorSnapshot &snapshot)
{
    if (snapshot.serverTimeUs == 0) {
        interrupt();
        return;
    }
    QStringList routes;
    for (const RouteStatus &r : snapshot.routes)
        routes << r.id;
    if (routes != m_routes) { // another policy: the old points mean something else
        m_points.clear();
        m_gaps.clear();
        m_interrupted = false;
        m_routes = routes;
    }
    Point p;
    p.t = seconds(snapshot.serverTimeUs);
    if (!m_points.empty() && p.t <= m_points.back().t)
        return; // the server's clock went back (a restart on another host): keep time monotonic
    // The plans' shares, read by each planned route's first target.
    std::map<std::pair<QString, QString>, PlanRate> planRates;
    for (const RouteStatus &r : snapshot.routes)
        for (const PlanRate &p : r.plans)
            planRates[{routeOf(r.id), p.plan}] = p;
    for (const RouteStatus &r : snapshot.routes) {
        RouteValues v;
        v.allowed = r.allowedPerSecond.value_or(kNaN);
        v.denied = r.deniedPerSecond.value_or(kNaN);
        const auto rate = planRates.find({routeOf(r.id), planOf(r.id)});
        v.planAllowed = rate == planRates.end() ? kNaN : rate->second.allowed;
        v.planDenied = rate == planRates.end() ? kNaN : rate->second.denied;
        v.keys = r.keys;
        v.throttled = r.throttled;
        m_hasCounts = m_hasCounts || r.allowedPerSecond.has_value();
        p.routes.push_back(v);
    }
    if (m_interrupted)
        m_gaps.emplace_back(m_points.back().t, p.t);
    m_interrupted = false;
    m_points.push_back(std::move(p));
    dropOld();
}

void MonitorTimeline::dropOld()
{
    const double oldest = latest() - m_keepSeconds;
    while (!m_points.empty() && m_points.front().t < oldest)
        m_points.pop_front();
    while (!m_trail.empty() && m_trail.front().t < oldest)
        m_trail.pop_front();
    while (!m_gaps.empty() && m_gaps.front().second < oldest)
        m_gaps.pop_front();
}

void MonitorTimeline::markGap(Series &s, double lastT, double t, double now) const
{
    if (s.t.empty())
        return;
    for (const auto &[from, to] : m_gaps)
        if (from >= lastT && to <= t) {
            const double middle = (from + to) / 2 - now;
            s.t.push_back(middle);
            s.value.push_back(kNaN);
            s.min.push_back(kNaN);
            s.max.push_back(kNaN);
            return;
        }
}

template <typename Value>
std::vector<Series> MonitorTimeline::series(const QString &route, double windowSeconds,
    const std::vector<std::pair<QString, Value>> &values) const
{
    std::vector<Series> out;
    for (const auto &[name, value] : values) {
        Series s;
        s.name = name;
        out.push_back(s);
    }
    const qsizetype only = route.isEmpty() ? -1 : m_routes.indexOf(route);
    if (!route.isEmpty() && only < 0)
        return out;
    const double now = latest();
    std::vector<double> lastT(values.size(), 0);
    for (const Point &p : m_points) {
        if (p.t < now - windowSeconds)
            continue;
        for (size_t i = 0; i < values.size(); ++i) {
            double sum = 0;
            bool any = false;
            for (size_t r = 0; r < p.routes.size(); ++r) {
                if (only >= 0 && qsizetype(r) != only)
                    continue;
                const double v = values[i].second(p.routes[r]);
                if (!std::isnan(v)) {
                    sum += v;
                    any = true;
                }
            }
            if (!any)
                continue;
            Series &s = out[i];
            markGap(s, lastT[i], p.t, now);
            lastT[i] = p.t;
            s.t.push_back(p.t - now);
            s.value.push_back(sum);
            s.min.push_back(sum);
            s.max.push_back(sum);
        }
    }
    return out;
}

std::vector<Series> MonitorTimeline::requestSeries(const QString &route, double windowSeconds) const
{
    using Get = double (*)(const RouteValues &);
    const QString plan = planOf(route);
    std::vector<Series> out = plan.isEmpty()
        ? series<Get>(route, windowSeconds,
            {{QStringLiteral("allowed"), [](const RouteValues &v) { return v.allowed; }},
                {QStringLiteral("denied"), [](const RouteValues &v) { return v.denied; }}})
        : series<Get>(route, windowSeconds,
            {{QStringLiteral("allowed (%1)").arg(plan),
                 [](const RouteValues &v) { return v.planAllowed; }},
                {QStringLiteral("denied (%1)").arg(plan),
                    [](const RouteValues &v) { return v.planDenied; }}});
    for (Series &s : out)
        s.unit = QStringLiteral("requests/s");
    return out;
}

std::vector<Series> MonitorTimeline::keySeries(const QString &route, double windowSeconds) const
{
    using Get = double (*)(const RouteValues &);
    std::vector<Series> out = series<Get>(route, windowSeconds,
        {{QStringLiteral("keys seen"), [](const RouteValues &v) { return double(v.keys); }},
            {QStringLiteral("throttled now"),
                [](const RouteValues &v) { return double(v.throttled); }}});
    for (Series &s : out)
        s.unit = QStringLiteral("keys");
    return out;
}

void MonitorTimeline::follow(const QByteArray &key, const std::deque<MonitorSnapshot> &recent)
{
    m_followed = key;
    m_trail.clear();
    for (const MonitorSnapshot &s : recent) {
        if (s.serverTimeUs == 0)
            continue;
        for (const HotKey &h : s.hotKeys)
            if (h.key == key && h.quota.status == KeyQuota::Status::Read)
                recordKey(s.serverTimeUs, h.quota.remaining, h.quota.limit);
    }
}

void MonitorTimeline::recordKey(qint64 serverTimeUs, qint64 remaining, qint64 limit)
{
    const double t = seconds(serverTimeUs);
    if (!m_trail.empty() && t <= m_trail.back().t)
        return;
    m_trail.push_back({t, double(remaining), double(limit)});
}

std::vector<Series> MonitorTimeline::keyTrail(double windowSeconds) const
{
    Series remaining{QStringLiteral("remaining"), QStringLiteral("requests"), {}, {}, {}, {}};
    Series limit{QStringLiteral("limit"), QStringLiteral("requests"), {}, {}, {}, {}};
    const double now = std::max(latest(), m_trail.empty() ? 0.0 : m_trail.back().t);
    double lastT = 0;
    for (const KeyPoint &p : m_trail) {
        if (p.t < now - windowSeconds)
            continue;
        for (auto [s, v] : {std::pair{&remaining, p.remaining}, std::pair{&limit, p.limit}}) {
            markGap(*s, lastT, p.t, now);
            s->t.push_back(p.t - now);
            s->value.push_back(v);
            s->min.push_back(v);
            s->max.push_back(v);
        }
        lastT = p.t;
    }
    return {remaining, limit};
}

} // namespace qs
