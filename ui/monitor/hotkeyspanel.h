#pragma once
// The Monitor tab's lower half: the hot-keys table (every key read, sorted on a worker thread so
// that 100 000 rows never hold the GUI thread; filtered by text and route), the chart of the
// selected key's remaining quota, and the one write — Reset this key — off until "Allow writes"
// is ticked.
#include "model/monitor/monitorsnapshot.h"
#include "model/simulation/simulator.h"
#include "ui/monitor/hotkeysmodel.h"

#include <QFutureWatcher>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPushButton;
class QTableView;

namespace qs {

class LiveChart;

class HotKeysPanel : public QWidget {
    Q_OBJECT
public:
    explicit HotKeysPanel(QWidget *parent = nullptr);
    ~HotKeysPanel() override;

    void setRouteChoices(const QStringList &ids); // the route filter's; keeps the choice
    // A new monitor: an empty table for these routes (`shadow[i]`: route i in shadow mode) and
    // no selected key.
    void startOver(const QStringList &routes, const QList<bool> &shadow);
    // A refresh's rows, as of the server's time; shown unless paused (the newest then wait).
    void setRows(std::vector<KeyRow> rows, qint64 serverNowUs);
    void setPaused(bool paused);
    // Whether a monitor is there (sorted rows are shown) and connected (a reset can go out).
    void setMonitorState(bool monitoring, bool connected);
    bool writesAllowed() const;

    std::optional<KeyRow> row(const QByteArray &key) const; // as shown; nothing if not shown
    // The selected key's chart: named after the key, drawn from its trail.
    void showKey(const QByteArray &key);
    void showKeyTrail(const std::vector<Series> &trail, double windowSeconds);
    LiveChart *keyChart() const { return m_keyChart; } // for the page's Save menu

signals:
    void keySelected(const QByteArray &key);
    void resetRequested(const QByteArray &key);
    void writesAllowedChanged(bool allowed);

private:
    void sortPendingRows(); // the newest rows, sorted on a worker thread
    void reselect(); // the followed key stays selected when the rows change
    void updateResetButton();

    QLineEdit *m_filterText;
    QComboBox *m_filterRoute;
    QCheckBox *m_allowWrites;
    QPushButton *m_reset;
    QTableView *m_table;
    LiveChart *m_keyChart;
    HotKeysModel *m_keys;
    HotKeysFilter *m_filter;
    QByteArray m_selected;
    bool m_monitoring = false, m_connected = false, m_paused = false;
    using PreparedRows = std::shared_ptr<HotKeysModel::Prepared>;
    QFutureWatcher<PreparedRows> m_sorting;
    std::vector<KeyRow> m_pendingRows; // the last refresh's rows, not yet in the table
    bool m_rowsPending = false;
    qint64 m_serverNowUs = 0;
};

} // namespace qs
