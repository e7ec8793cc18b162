#pragma once
// Discover: given only a connection, sample the keyspace with SCAN (bounded: at most N keys
// looked at) and group the keys into families — a pattern, how many were seen, their Redis type,
// an example — each with the layout preset it matches, so an operator pointed at an unknown
// Redis is told "12 400 keys like rl:*: express-rate-limit" and gets the `redis.layouts` entry
// to paste. Read-only, within the same read budget as the monitor.
#include "model/monitor/readbudget.h"
#include "model/monitor/respclient.h"
#include "model/policy/policy.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>

#include <functional>
#include <memory>
#include <vector>

namespace qs {

struct KeyFamily {
    QByteArray pattern; // a SCAN glob covering the family: "rl:*"
    qint64 count = 0; // keys of the sample in it
    QByteArray type; // Redis type of the example: string, hash, list, zset, …
    QByteArray example;
    QString preset; // the layout preset it matches; "quota-studio" for our own; empty: none
    QString note; // why that preset, or what it looks like when none fits
    std::optional<RedisLayout> layout; // the `redis.layouts` entry (no route yet); unset: none
    QString layoutYaml; // the same entry as YAML to paste; empty when none applies
};

// A `redis.layouts` entry as the policy file writes it (ROUTE_ID when the route is not chosen).
QString layoutYaml(const RedisLayout &layout);

struct SurveyReport {
    qint64 keysLookedAt = 0;
    bool wholeKeyspace = false; // SCAN finished before the cap
    QList<KeyFamily> families; // largest first
    QString error; // the connection failed or was refused
};

// The family of one key name, by its shape alone (docs/monitoring.md, "Discover"): a glob and the
// preset the name suggests. `qsPrefix` is Quota Studio's own key prefix.
struct KeyShape {
    QByteArray pattern;
    QString preset;
};
KeyShape shapeOfKey(const QByteArray &key, const QByteArray &qsPrefix = "qs");

class KeyspaceSurvey : public QObject {
    Q_OBJECT
public:
    struct Options {
        qint64 maxKeys = 10'000;
        qint64 budgetPerSecond = 5000;
        int scanCount = 500;
        int maxFamilies = 50; // the largest are typed and reported
        QByteArray qsPrefix = "qs";
    };

    explicit KeyspaceSurvey(RespClient &client, QObject *parent = nullptr);
    // Starts when the client is connected; `finished` carries the report.
    void run(const Options &options);

signals:
    void finished(const qs::SurveyReport &report);
    void progress(qint64 keysLookedAt);

private:
    void scanNext();
    void onScan(const RespValue &reply);
    void typePythonLimits(); // TYPE of every python-limits key, then groupPythonLimits()
    void groupPythonLimits();
    void inspectFamilies();
    void inspect(KeyFamily &family, std::shared_ptr<int> left); // left: families still due
    void done();
    // Sends when the budget allows, or waits for it on a timer.
    void sendBudgeted(const QList<QByteArray> &argv, RespClient::Callback callback);

    RespClient &m_client;
    Options m_options;
    ReadBudget m_budget;
    QElapsedTimer m_steady;
    QByteArray m_cursor = "0";
    SurveyReport m_report;
    QHash<QByteArray, KeyFamily> m_families;
    std::vector<QByteArray> m_pythonLimitsKeys; // grouped by what their names and types say
    std::vector<QByteArray> m_pythonLimitsTypes;
    bool m_running = false;
};

} // namespace qs
