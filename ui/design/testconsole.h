#pragma once
// Send one request (or hold the button to repeat) through the embedded engine, on the real
// clock or on a manual one that only moves when stepped; see the route that matched, the
// decision, the response a gateway would send and the key's quota.
#include "model/simulation/consolesession.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QDoubleSpinBox;
class QPushButton;
class QRadioButton;
class QSpinBox;
class QHBoxLayout;
class QSplitter;

namespace qs {

class PolicyDocument;

class TestConsole : public QWidget {
    Q_OBJECT
public:
    explicit TestConsole(PolicyDocument *doc, QWidget *parent = nullptr);

    // For tests and the keyboard: the same as pressing Send.
    ConsoleResponse sendOnce();
    // N requests at R per second: spaced exactly on the manual clock, by a timer in real time.
    void sendMany(int count, double perSecond);
    // Fills method and path from a route (a POST route sends POST; parameters get values).
    void showRoute(const Route &route);
    struct Counts {
        int admitted = 0, denied = 0, delayed = 0;
    };
    Counts counts() const { return m_counts; }
    QComboBox *methodBox() const { return m_method; }
    QLabel *summary() const { return m_summary; }
    void useManualClock(bool manual);
    void step(limiter::Micros by);
    QPlainTextEdit *response() const { return m_response; }
    QLineEdit *pathEdit() const { return m_path; }
    QLineEdit *clientEdit() const { return m_client; }
    QComboBox *planBox() const { return m_plan; }
    QPlainTextEdit *headersEdit() const { return m_headers; }

private:
    void build();
    QHBoxLayout *buildRequestRow();
    QHBoxLayout *buildHeadersRow();
    QHBoxLayout *buildClockRow();
    QSplitter *buildOutput();
    void connectControls();
    void restart(); // new policy or edits: fresh engine and states
    limiter::Micros now() const;
    void showResponse(const ConsoleRequest &request, const ConsoleResponse &r);
    static QString limitLines(const ConsoleResponse &r);
    void updateClockLabel();
    void clearDecision();
    void updateCounters();
    QList<QPair<QString, QString>> requestHeaders() const;

    PolicyDocument *m_doc;
    ConsoleSession m_session;
    QComboBox *m_method = nullptr, *m_plan = nullptr;
    QLabel *m_planLabel = nullptr;
    QLineEdit *m_path = nullptr, *m_client = nullptr;
    QSpinBox *m_cost = nullptr, *m_burstCount = nullptr;
    QDoubleSpinBox *m_burstRate = nullptr;
    QPushButton *m_sendMany = nullptr;
    QLabel *m_counters = nullptr;
    Counts m_counts;
    QTimer m_burstTimer;
    int m_burstLeft = 0;
    QPushButton *m_send = nullptr;
    QRadioButton *m_realTime = nullptr, *m_manual = nullptr;
    QLabel *m_clock = nullptr, *m_summary = nullptr;
    QPlainTextEdit *m_headers = nullptr, *m_response = nullptr, *m_log = nullptr;
    QList<QPushButton *> m_stepButtons;
    limiter::Micros m_manualNow = 0; // since the session started
    limiter::Micros m_epochStart = 0;
    QElapsedTimer m_realStart;
};

} // namespace qs
