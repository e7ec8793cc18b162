#pragma once
// Monitor: the tab an operator keeps open during an incident. A connection panel (profiles,
// keychain), the connection state always in sight, live charts per route (allowed and denied
// per second, keys seen, keys throttled now) over a chosen window, the hot-keys table, the
// chart of one key's remaining quota, Discover for foreign deployments, and a local demo that
// needs nothing but redis-server. Everything it reads comes from QuotaMonitor (model/monitor);
// the page only shows it. Read-only by default: "Reset this key" is the one write, and it asks.
//
// The page wires small widgets together — ConnectionPanel, ConnectionStatus, MonitorCharts,
// HotKeysPanel — and owns what they show: the monitor, the local demo and the timeline.
#include "model/monitor/clustermonitor.h"
#include "model/monitor/monitortimeline.h"

#include <QPointer>
#include <QWidget>

#include <functional>
#include <memory>

namespace qs {

class ConnectionPanel;
class ConnectionStatus;
class DiscoverDialog;
class HotKeysPanel;
class LocalDemo;
class MonitorCharts;
class PolicyDocument;

class MonitorPage : public QWidget {
    Q_OBJECT
public:
    explicit MonitorPage(PolicyDocument *doc, QWidget *parent = nullptr);
    ~MonitorPage() override;

    // Connects to the panel's server with the open policy (what Connect does).
    void connectToServer();
    void disconnectFromServer();
    // One redis-server of its own, or a Redis Cluster of `clusterMasters` masters.
    void startDemo(int clusterMasters = 0);
    void stopDemo();
    bool demoRunning() const;
    void discover(); // opens the Discover dialog on the panel's server
    // Asks before the one write; tests answer in place of the person.
    using Confirm = std::function<bool(const QString &title, const QString &question)>;
    void setConfirm(Confirm confirm) { m_confirm = std::move(confirm); }
    // What Save ▸ Series as CSV writes: the window's key and request series, one time base.
    std::vector<Series> windowSeries() const;

    // What the page shows, for those who check it against the server: the monitor (null when
    // not connected), the local demo's processes, the recorded timeline.
    ClusterMonitor *monitor() const { return m_monitor.get(); }
    LocalDemo *demo() const { return m_demo.get(); }
    const MonitorTimeline &timeline() const { return m_timeline; }

signals:
    void refreshed(); // a refresh has been recorded (and shown, unless paused)
    void demoStateChanged(bool running);

private:
    void startMonitor(const Policy &policy, const MonitorOptions &options);
    void onRefreshed(const MonitorSnapshot &snapshot);
    QString summaryOf(const MonitorSnapshot &snapshot, const std::vector<KeyRow> &rows) const;
    void showState();
    void redrawCharts(); // the charts and the selected key's, from the timeline
    void follow(const QByteArray &key);
    void resetKey(const QByteArray &key);
    void refreshRouteLists();
    void addLayout(const RedisLayout &layout);

    PolicyDocument *m_doc;
    std::unique_ptr<ClusterMonitor> m_monitor;
    std::unique_ptr<LocalDemo> m_demo;
    MonitorTimeline m_timeline;
    QString m_server; // what the monitor is connected to, for messages
    QList<bool> m_shadowRoutes; // by route index of the monitored policy
    ConnectionPanel *m_panel;
    ConnectionStatus *m_status;
    MonitorCharts *m_charts;
    HotKeysPanel *m_hotKeys;
    QPointer<DiscoverDialog> m_discover;
    Confirm m_confirm;
};

} // namespace qs
