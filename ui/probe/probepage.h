#pragma once
// Probe: pick a route, the gateway's URL, the traffic and how long; Run sends the traffic in
// real time (HttpProbe, on a thread of its own so that painting never delays a send) and the
// chart follows
// the observed and the predicted admissions with every divergence marked; the report fills the
// table when the run ends. Save the report as JSON or CSV, the chart as PNG or SVG.
// docs/probe.md says how the comparison works and how to probe safely.
#include "model/base/expected.h"
#include "model/probe/probereport.h"

#include <QWidget>

#include <memory>

class QChartView;
class QComboBox;
class QFormLayout;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTableWidget;
class QThread;
class QTimer;

namespace qs {

class HttpProbe;
class PolicyDocument;
class QuantityEdit;

class ProbePage : public QWidget {
    Q_OBJECT
public:
    explicit ProbePage(PolicyDocument *doc, QWidget *parent = nullptr);
    ~ProbePage() override;

    void run();
    void cancel();
    bool isRunning() const;
    // Valid once a run finished.
    const std::optional<ProbeReport> &lastReport() const { return m_report; }

    QComboBox *routeBox() const { return m_route; }
    QLineEdit *urlEdit() const { return m_url; }
    QLineEdit *trafficEdit() const { return m_traffic; }
    QComboBox *gatewayBox() const { return m_gateway; }
    QuantityEdit *durationEdit() const { return m_duration; }
    QTableWidget *reportTable() const { return m_table; }
    QChartView *chart() const { return m_chart; }
    QLabel *statusLabel() const { return m_status; }
    QList<QSplitter *> splitters() const;

    // What the save buttons do, without their dialogs (or what went wrong).
    Expected<void> saveReport(const QString &path) const; // .json or .csv by suffix
    Expected<void> saveChart(const QString &path) const; // .png or .svg

signals:
    void finished();

private:
    void build();
    QWidget *buildLeftPane();
    QWidget *buildSettings();
    void addTargetRows(QFormLayout *form);
    void addAmountRows(QFormLayout *form);
    void addRunRows(QFormLayout *form);
    void refreshRoutes();
    void suggestTraffic();
    void onDone(const ProbeReport &report);
    void stopProbe();
    void updateChart();
    void showReport(const ProbeReport &r);
    void setRunning(bool running);
    void chooseReportFile();
    void chooseChartFile();

    PolicyDocument *m_doc;
    QComboBox *m_route = nullptr, *m_gateway = nullptr;
    QLineEdit *m_url = nullptr, *m_traffic = nullptr, *m_allowHost = nullptr;
    QLabel *m_trafficProblem = nullptr, *m_status = nullptr;
    QuantityEdit *m_duration = nullptr;
    QSpinBox *m_clients = nullptr, *m_maxRequests = nullptr;
    QDoubleSpinBox *m_tolerance = nullptr;
    QPushButton *m_run = nullptr, *m_cancel = nullptr, *m_saveReport = nullptr,
                *m_saveChart = nullptr;
    QProgressBar *m_progress = nullptr;
    QTableWidget *m_table = nullptr;
    QChartView *m_chart = nullptr;
    QSplitter *m_split = nullptr;
    QTimer *m_chartTimer = nullptr;
    QThread *m_thread = nullptr; // the probe's; started once, stopped with the page
    HttpProbe *m_probe = nullptr; // lives in m_thread while a run lasts
    bool m_running = false;
    std::vector<ComparedRequest> m_compared; // this run's, as the probe reports them
    std::optional<ProbeReport> m_report;
    QString m_caption; // "policy / route — traffic to URL"
};

} // namespace qs
