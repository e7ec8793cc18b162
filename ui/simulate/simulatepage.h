#pragma once
// Simulate: pick a route, traffic and a duration; Run (on a worker thread, with progress and
// Cancel) fills charts of offered / allowed / denied per time bucket and of the hottest key's
// remaining quota, and a summary table. "Compare algorithms" runs the six algorithms with the
// same long-run rate and burst on the same traffic, side by side.
#include "model/simulation/simulator.h"

#include <QFutureWatcher>
#include <QWidget>

#include <atomic>
#include <memory>

class QChartView;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTabWidget;
class QSplitter;

namespace qs {

class PolicyDocument;
class QuantityEdit;

// One run's output: the route's own result, or one per algorithm when comparing.
struct SimulationRun {
    std::vector<SimulationResult> results;
    bool comparison = false;
    // What was simulated, for titles and file names of saved charts.
    QString policy, route, traffic, duration;
    bool shadow = false; // the route is in shadow mode: its denials only "would" happen
};

class SimulatePage : public QWidget {
    Q_OBJECT
public:
    explicit SimulatePage(PolicyDocument *doc, QWidget *parent = nullptr);
    ~SimulatePage() override;

    void run(bool compare = false);
    void cancel();
    bool isRunning() const;
    const SimulationRun &lastRun() const { return m_last; }
    bool isStale() const { return m_stale; }
    // "public-api / login — steady:20/s, 1m": what a saved chart says it shows.
    QString runCaption() const;

    QLineEdit *trafficEdit() const { return m_traffic; }
    QuantityEdit *durationEdit() const { return m_duration; }
    QTableWidget *summaryTable() const { return m_summary; }
    QChartView *trafficChart() const { return m_trafficChart; }
    QChartView *keyChart() const { return m_keyChart; }
    QTabWidget *chartTabs() const { return m_charts; }
    QList<QSplitter *> splitters() const;

signals:
    void finished();

private:
    void build();
    QWidget *buildLeftPane();
    QWidget *buildSettings();
    void addTrafficRows(QFormLayout *form);
    void addRunRows(QFormLayout *form);
    QTabWidget *buildCharts();
    void connectControls();
    void refreshRoutes();
    void suggestTraffic();
    void onFinished();
    void showResult(const SimulationResult &r);
    void showComparison(const std::vector<SimulationResult> &results);
    void setRunning(bool running);
    void saveChart();
    void saveCsv();

    PolicyDocument *m_doc;
    QComboBox *m_route = nullptr, *m_preset = nullptr;
    QLineEdit *m_traffic = nullptr;
    QLabel *m_trafficProblem = nullptr, *m_status = nullptr;
    QuantityEdit *m_duration = nullptr;
    QSpinBox *m_seed = nullptr;
    QPushButton *m_run = nullptr, *m_compare = nullptr, *m_cancel = nullptr, *m_savePng = nullptr,
                *m_saveCsv = nullptr;
    QProgressBar *m_progress = nullptr;
    QTabWidget *m_charts = nullptr;
    QChartView *m_trafficChart = nullptr, *m_keyChart = nullptr, *m_compareChart = nullptr;
    QTableWidget *m_summary = nullptr;
    QSplitter *m_split = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancelFlag;
    std::shared_ptr<std::atomic<int>> m_progressPermille;
    QFutureWatcher<SimulationRun> m_watcher;
    SimulationRun m_last, m_pending;
    bool m_stale = false;
    void markStale();
};

} // namespace qs
