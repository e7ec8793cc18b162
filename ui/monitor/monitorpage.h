#pragma once
// Monitor: the tab an operator keeps open during an incident. A connection panel (profiles,
// keychain), the connection state always in sight, live charts per route (allowed and denied
// per second, keys seen, keys throttled now) over a chosen window, the hot-keys table, the
// chart of one key's remaining quota, Discover for foreign deployments, and a local demo that
// needs nothing but redis-server. Everything it reads comes from QuotaMonitor (model/monitor);
// the page only shows it. Read-only by default: "Reset this key" is the one write, and it asks.
#include "model/monitor/clustermonitor.h"
#include "model/monitor/monitortimeline.h"
#include "model/monitor/quotamonitor.h"

#include "ui/monitor/hotkeysmodel.h"

#include <QFutureWatcher>
#include <QPointer>
#include <QWidget>

#include <functional>
#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class QTimer;
class QToolButton;

namespace qs {

class ConnectionPanel;
class DiscoverDialog;
class LiveChart;
class LocalDemo;
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
    LocalDemo *demo() const { return m_demo.get(); }
    void discover(); // opens the Discover dialog on the panel's server
    // Asks before the one write; tests answer in place of the person.
    using Confirm = std::function<bool(const QString &title, const QString &question)>;
    void setConfirm(Confirm confirm) { m_confirm = std::move(confirm); }
    void resetSelectedKey();
    void setPaused(bool paused);
    void setWindowSeconds(int seconds);
    // What Save ▸ Series as CSV writes: the window's key and request series, one time base.
    std::vector<Series> windowSeries() const;

    ClusterMonitor *monitor() const { return m_monitor.get(); }
    const MonitorTimeline &timeline() const { return m_timeline; }
    ConnectionPanel *connectionPanel() const { return m_panel; }
    QLabel *stateLabel() const { return m_state; }
    HotKeysModel *hotKeys() const { return m_keys; }
    HotKeysFilter *hotKeysFilter() const { return m_filter; }
    QTableView *hotKeysView() const { return m_table; }
    LiveChart *requestsChart() const { return m_requestsChart; }
    LiveChart *keysChart() const { return m_keysChart; }
    LiveChart *keyChart() const { return m_keyChart; }
    QPushButton *demoButton() const { return m_demoButton; }
    QPushButton *resetButton() const { return m_reset; }
    QCheckBox *allowWrites() const { return m_allowWrites; }
    QLineEdit *filterEdit() const { return m_filterText; }
    QComboBox *filterRoute() const { return m_filterRoute; }
    DiscoverDialog *discoverDialog() const;

signals:
    void refreshed(); // a refresh has been recorded (and shown, unless paused)
    void demoStateChanged(bool running);

private:
    QWidget *buildCharts();
    QWidget *buildHotKeys();
    void startMonitor(const Policy &policy, const MonitorOptions &options);
    void onRefreshed(const MonitorSnapshot &snapshot);
    void showState();
    void redraw(); // charts and table from what is recorded
    void redrawCharts();
    void sortPendingRows(); // the table's next rows, sorted on a worker thread
    void follow(const QByteArray &key);
    void updateResetButton();
    void updateDemoButton();
    void refreshRouteLists();
    void addLayout(const RedisLayout &layout);
    void saveChart(LiveChart *chart);
    void saveCsv();
    QString windowName() const;

    PolicyDocument *m_doc;
    std::unique_ptr<ClusterMonitor> m_monitor;
    std::unique_ptr<LocalDemo> m_demo;
    MonitorTimeline m_timeline;
    QString m_server; // what the monitor is connected to, for messages
    ConnectionPanel *m_panel;
    QLabel *m_state, *m_summary;
    QTimer *m_stateTicker; // the "retry in …" countdown
    QPushButton *m_demoButton, *m_discoverButton, *m_pause, *m_reset;
    QToolButton *m_save;
    QComboBox *m_route, *m_window, *m_filterRoute;
    QLineEdit *m_filterText;
    QCheckBox *m_allowWrites;
    LiveChart *m_requestsChart, *m_keysChart, *m_keyChart;
    HotKeysModel *m_keys;
    HotKeysFilter *m_filter;
    QTableView *m_table;
    QPointer<DiscoverDialog> m_discover;
    Confirm m_confirm;
    int m_windowSeconds = 60;
    bool m_paused = false;
    using PreparedRows = std::shared_ptr<HotKeysModel::Prepared>;
    QFutureWatcher<PreparedRows> m_sorting;
    std::vector<KeyRow> m_pendingRows; // the last refresh's rows, not yet in the table
    bool m_rowsPending = false;
    qint64 m_lastServerUs = 0;
};

} // namespace qs
