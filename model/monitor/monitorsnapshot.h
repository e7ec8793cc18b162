#pragma once
// What a monitor publishes per refresh, a single server's or a cluster's: per-route figures, the
// hottest keys, a sample of unreadable ones, and the flat rows of the hot-keys table.
#include "model/monitor/keyquota.h"
#include "model/monitor/respclient.h"

#include <QList>
#include <QString>

#include <optional>

namespace qs {

// A plan's share of a route's requests in the last second (the metrics hash's a:<plan> and
// d:<plan>, routemetrics.h).
struct PlanRate {
    QString plan;
    double allowed = 0, denied = 0;
    friend bool operator==(const PlanRate &, const PlanRate &) = default;
};

struct RouteStatus {
    QString id;
    QString problem; // not empty: this route cannot be monitored, and why
    qint64 keys = 0; // live keys seen
    qint64 throttled = 0; // keys whose next request would be refused now
    qint64 unreadable = 0;
    std::optional<double> allowedPerSecond, deniedPerSecond; // where the deployment counts
    // A route whose numbers differ by plan: each plan's share of the counts above, on the
    // route's first target (the one that reads them), in the policy's plan order.
    QList<PlanRate> plans;
};

struct HotKey {
    QString route;
    QByteArray key;
    KeyQuota quota;
    qint64 readAtUs = 0; // the server's time when the figures were read (µs since the epoch)
};

struct UnreadableKey {
    QString route;
    QByteArray key;
    QString why;
};

// One read key as the hot-keys table shows it: a flat copy, so that a view can hold a refresh's
// rows while the monitor goes on reading.
struct KeyRow {
    QByteArray key;
    qint32 route = 0; // index into the snapshot's routes
    KeyQuota::Status status = KeyQuota::Status::Read;
    bool throttled = false;
    qint64 limit = 0, remaining = 0, resetAfterMs = 0, ttlMs = KeyQuota::kTtlNotRead;
    qint64 changedAtUs = 0; // server time of the last read that saw other numbers
    qint64 readAtUs = 0; // server time of the last read
};

// One node of a Redis Cluster as the monitor sees it (ClusterMonitor).
struct NodeStatus {
    QString address; // host:port
    bool replica = false; // read from a replica (MonitorOptions::readReplicas)
    RespClient::State state = RespClient::State::Disconnected;
    QString stateText;
    qint64 keys = 0; // keys it holds that the monitor tracks
};

struct MonitorSnapshot {
    qint64 serverTimeUs = 0; // Redis' TIME when the refresh began; 0 when not connected
    RespClient::State state = RespClient::State::Disconnected;
    QString stateText;
    QList<RouteStatus> routes;
    QList<HotKey> hotKeys; // throttled first, then by the share of the limit used
    QList<UnreadableKey> unreadable; // a sample (at most 20)
    quint64 commandsSent = 0; // since start(), the handshake included
    qint64 keysRead = 0; // in this refresh
    bool scanComplete = false; // every route's SCAN has walked the whole keyspace once
    QString lastError; // the server refused a command (an ACL without SCAN, …); empty: none
    QList<NodeStatus> nodes; // a cluster's nodes, one per master; empty on a single server
    qint64 scanCost = 0; // what one SCAN counts for in the budget, as measured (commands)
};

} // namespace qs
