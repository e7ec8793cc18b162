#pragma once
// Send one request (or hold the button to repeat) through the embedded engine, on the real
// clock or on a manual one that only moves when stepped; see the route that matched, the
// decision, the response a gateway would send and the key's quota.
#include "model/simulation/consolesession.h"

#include <QElapsedTimer>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace qs {

class PolicyDocument;

class TestConsole : public QWidget {
    Q_OBJECT
public:
    explicit TestConsole(PolicyDocument *doc, QWidget *parent = nullptr);

    // For tests and the keyboard: the same as pressing Send.
    ConsoleResponse sendOnce();
    void useManualClock(bool manual);
    void step(limiter::Micros by);
    QPlainTextEdit *response() const { return m_response; }
    QLineEdit *pathEdit() const { return m_path; }
    QLineEdit *clientEdit() const { return m_client; }
    QPlainTextEdit *headersEdit() const { return m_headers; }

private:
    void build();
    void restart(); // new policy or edits: fresh engine and states
    limiter::Micros now() const;
    void showResponse(const ConsoleRequest &request, const ConsoleResponse &r);
    void updateClockLabel();
    QList<QPair<QString, QString>> requestHeaders() const;

    PolicyDocument *m_doc;
    ConsoleSession m_session;
    QComboBox *m_method = nullptr;
    QLineEdit *m_path = nullptr, *m_client = nullptr;
    QSpinBox *m_cost = nullptr;
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
