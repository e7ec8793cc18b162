#pragma once
// The Monitor tab's charts over a chosen window, per route or all of them: requests per second
// (allowed, denied) and keys (seen, throttled now), drawn from the page's timeline. Pause
// freezes them while collecting goes on; Save writes a chart (PNG, SVG) or the window's series
// (CSV).
#include "model/monitor/monitortimeline.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QMenu;
class QPushButton;

namespace qs {

class LiveChart;

class MonitorCharts : public QWidget {
    Q_OBJECT
public:
    explicit MonitorCharts(const MonitorTimeline &timeline, QWidget *parent = nullptr);

    void setRoutes(const QStringList &ids); // keeps the chosen route if it is still there
    // Offers another chart in the Save menu (the selected key's, which lives beside the table).
    void addChartToSave(LiveChart *chart, const QString &menuText);
    // What is read (saved pictures say so, and data kept after a disconnection is labelled
    // with it) and whether a monitor is there: empty charts say why they are empty.
    void setSource(const QString &server, bool monitoring, bool connected);

    int windowSeconds() const { return m_windowSeconds; }
    bool paused() const { return m_paused; }
    void redraw();
    // What Save ▸ Series as CSV writes: the window's key and request series, one time base.
    std::vector<Series> windowSeries() const;

public slots:
    void setPaused(bool paused);
    void setWindowSeconds(int seconds);

signals:
    void windowChanged(int seconds);
    void pausedChanged(bool paused);

private:
    QString route() const; // empty: all routes
    void saveChart(LiveChart *chart);
    void saveCsv();

    const MonitorTimeline &m_timeline;
    QComboBox *m_route, *m_window;
    QPushButton *m_pause;
    QMenu *m_saveMenu;
    LiveChart *m_requests, *m_keys;
    QString m_server;
    bool m_monitoring = false, m_connected = false;
    int m_windowSeconds = 60;
    bool m_paused = false;
};

} // namespace qs
