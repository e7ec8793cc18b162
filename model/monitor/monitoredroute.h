#pragma once
// How the monitor reads one route: its keys' layout (the decoder, or why the route cannot be
// monitored), the SCAN pattern that finds them, what one key's read costs, and where the
// deployment counts the route's allowed and denied requests per second.
#include "model/monitor/layoutdecoder.h"
#include "model/monitor/monitorsnapshot.h"
#include "model/policy/policy.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace qs {

// What the monitor counts as one route: a route, or one limit of a route with several, whose
// keys are its own (`<prefix>:<route>:<limit>:<client>`, docs/redis-layout.md), or one plan of a
// limit whose numbers differ by plan (`<prefix>:<route>:<limit>:<plan>:<client>`). Its id is the
// route's, `route/limit` ('/' is in no route id), and `…@plan` for a plan ('@' neither). In
// policy order, a route's limits in its, a limit's plans in the policy's.
struct MonitoredTarget {
    QString id;
    qsizetype route = 0;
    qsizetype limit = -1; // -1: the route's only limit, on keys without a limit's name
    bool shadow = false;
    QString plan; // empty: every plan's (the limit's numbers do not differ by plan)
    bool firstOfRoute = true; // reads the route's per-second metrics (counted once a request)
};
std::vector<MonitoredTarget> monitoredTargets(const Policy &policy);

struct MonitoredRoute {
    QString id;
    QString problem; // not empty: no decoder, and why
    std::unique_ptr<LayoutDecoder> decoder;
    QByteArray metricsPrefix; // `<prefix>:<route>:~metrics:`; empty: not counted
    qint64 readCost = 1; // commands one key takes (the same for every key of a layout)
    std::optional<double> allowed, denied; // the last second's, as read
    // A route whose numbers differ by plan: its plans' shares, read in the same HMGET.
    QStringList plans;
    QList<PlanRate> planRates;

    static MonitoredRoute of(const Policy &policy, const MonitoredTarget &target);
};

// Routes whose keys one SCAN MATCH finds (all routes on Quota Studio's own keys share the
// prefix): the keyspace is walked once per pattern, not once per route.
struct ScanGroup {
    QByteArray pattern;
    std::vector<int> routes; // the first whose layout accepts a key owns it
    QByteArray cursor = "0";
    bool scanning = false; // a SCAN is in flight
    bool passDone = false; // the current pass has reached cursor 0
    int passes = 0; // complete passes so far

    // The groups of these routes, in the order their patterns first appear.
    static std::vector<ScanGroup> of(const std::vector<MonitoredRoute> &routes);
};

} // namespace qs
