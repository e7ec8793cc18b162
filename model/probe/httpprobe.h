#pragma once
// Plays a probe plan against a running gateway in real time over HTTP/1.1 (keep-alive; HTTPS
// with Qt's normal certificate checks), and compares each answer with the prediction as soon
// as every earlier request has been answered. After the traffic it follows the last
// Retry-After once, to see that waiting as told succeeds.
//
// Runs on the thread that owns it, driven by that thread's event loop: nothing blocks.
// quotactl runs it on its main thread; the Probe tab moves it to a thread of its own, so that
// painting never delays a send (a stalled loop sends overdue requests together, and requests
// of one key in flight together may be served in either order), and follows it through the
// queued signals `comparedBatch` and `done`.
#include "model/probe/probereport.h"

#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QObject>
#include <QTimer>

#include <memory>

class QNetworkReply;

namespace qs {

class HttpProbe : public QObject {
    Q_OBJECT
public:
    HttpProbe(Policy policy, ProbePlan plan, ProbeSettings settings,
        std::optional<EnforcedLimit> gateway, QObject *parent = nullptr);
    ~HttpProbe() override;

    void start();
    void cancel();
    bool isRunning() const { return m_running; }

    const ProbeComparator &comparator() const { return *m_comparator; }
    // Valid after finished().
    const ProbeReport &report() const { return m_report; }

signals:
    void progress(qint64 answered, qint64 planned);
    void comparedBatch(const std::vector<qs::ComparedRequest> &batch); // the newly compared
    void finished();
    void done(const qs::ProbeReport &report); // with finished(), the report by value

private:
    struct InFlight {
        QNetworkReply *reply = nullptr;
        qint64 sentSteadyUs = 0;
    };

    void begin();
    void sendDue();
    void send(std::size_t index);
    void onReply(std::size_t index, QNetworkReply *reply);
    void advanceComparison();
    void maybeFinishTraffic();
    void startRetryCheck();
    void onRetryReply(QNetworkReply *reply);
    void finish();
    QNetworkReply *request(const PlannedRequest &p);
    qint64 steadyUs() const;

    Policy m_policy;
    ProbePlan m_plan;
    ProbeSettings m_settings;
    std::unique_ptr<ProbeComparator> m_comparator;
    // Children, so that moveToThread() takes them along.
    QNetworkAccessManager m_network{this};
    QTimer m_tick{this}, m_deadline{this};
    QElapsedTimer m_clock;
    std::vector<ProbeSample> m_samples;
    std::vector<bool> m_done;
    std::vector<InFlight> m_inFlight;
    std::size_t m_nextToSend = 0, m_nextToCompare = 0;
    qint64 m_answered = 0, m_responses = 0;
    RetryCheck m_retry;
    QString m_unreachable;
    bool m_running = false, m_cancelled = false, m_trafficDone = false;
    ProbeReport m_report;
};

} // namespace qs
