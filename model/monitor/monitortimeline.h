#pragma once
// What the Monitor tab remembers: per route, one point per refresh — allowed and denied per
// second (where the deployment counts them), keys seen, keys throttled now — for at most
// `keepSeconds` of server time, and the trail of one followed key. It turns them into the
// simulator's Series, so the charts and CSV files of the Simulate tab serve here too.
//
// Memory is bounded by construction: a point is a few numbers per route, one per refresh, and
// points older than `keepSeconds` are dropped (an hour of 1 s refreshes of 20 routes ≈ 1.2 MB).
#include "model/monitor/quotamonitor.h"
#include "model/simulation/simulator.h"

#include <deque>
#include <optional>

namespace qs {

class MonitorTimeline {
public:
    explicit MonitorTimeline(double keepSeconds = 3600) : m_keepSeconds(keepSeconds) { }

    // Starts afresh: a new connection or another policy.
    void clear();
    // Adds a refresh. A snapshot without a server time (not connected) adds no point but opens
    // a gap: the series below carry a NaN point between the last point before it and the first
    // after, so that no chart draws a line across a time nothing was read.
    void record(const MonitorSnapshot &snapshot);
    // The connection dropped: the next point comes after a gap, even if no snapshot without a
    // server time came between (a refresh still waiting for its replies when the server died).
    void interrupt() { m_interrupted = m_interrupted || !m_points.empty(); }
    bool empty() const { return m_points.empty(); }
    size_t points() const { return m_points.size(); }
    QStringList routes() const { return m_routes; }
    // Server time of the latest point, in seconds.
    double latest() const { return m_points.empty() ? 0 : m_points.back().t; }
    // True when some route's metrics were read: the requests chart has something to show.
    bool hasRequestCounts() const { return m_hasCounts; }

    // The last `windowSeconds` up to the latest point, t in seconds relative to it (≤ 0).
    // `route` empty: all routes summed. A gap is one point of value NaN halfway through it. A
    // target of one plan (`search/burst@pro`): that plan's share of its route's requests.
    std::vector<Series> requestSeries(const QString &route, double windowSeconds) const;
    std::vector<Series> keySeries(const QString &route, double windowSeconds) const;

    // The key whose remaining quota is charted: its trail starts now (and with what the
    // monitor's own recent history knew of it as a hot key).
    void follow(const QByteArray &key, const std::deque<MonitorSnapshot> &recent = {});
    QByteArray followed() const { return m_followed; }
    void recordKey(qint64 serverTimeUs, qint64 remaining, qint64 limit);
    // The followed key's remaining quota and limit, with the same gaps.
    std::vector<Series> keyTrail(double windowSeconds) const;

private:
    struct RouteValues {
        double allowed = 0, denied = 0; // NaN: not counted
        double planAllowed = 0, planDenied = 0; // a plan's target: its plan's share; NaN: none
        qint64 keys = 0, throttled = 0;
    };
    struct Point {
        double t = 0; // server time, s
        std::vector<RouteValues> routes;
    };
    struct KeyPoint {
        double t = 0;
        double remaining = 0, limit = 0;
    };
    template <typename Value>
    std::vector<Series> series(const QString &route, double windowSeconds,
        const std::vector<std::pair<QString, Value>> &values) const;
    void dropOld();
    // Appends a NaN point to `s` if a gap lies between its last point and time `t` (absolute).
    void markGap(Series &s, double lastT, double t, double now) const;

    double m_keepSeconds;
    QStringList m_routes;
    std::deque<Point> m_points;
    bool m_hasCounts = false;
    QByteArray m_followed;
    std::deque<KeyPoint> m_trail;
    // Times nothing was read: from the last point before to the first point after (absolute
    // server time, s). `m_interrupted`: a gap is open, its end not known yet.
    std::deque<std::pair<double, double>> m_gaps;
    bool m_interrupted = false;
};

} // namespace qs
