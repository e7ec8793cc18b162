#pragma once
// The Monitor tab's local demo: a redis-server of its own on a free loopback port (a temporary
// directory, no persistence) and the load generator playing traffic for the open policy's
// routes in a background thread, metrics on — so a newcomer sees live charts without owning a
// Redis deployment. Nothing of it outlives the demo: the server is stopped when the demo stops,
// when its owner is destroyed and, on Linux, when the app dies however it dies (the server is
// started with a parent-death signal).
#include "model/policy/policy.h"
#include "model/redis/localcluster.h"

#include <QObject>
#include <QProcess>
#include <QTemporaryDir>

#include <atomic>
#include <memory>
#include <thread>

namespace qs {

class LocalDemo : public QObject {
    Q_OBJECT
public:
    struct Options {
        double requestsPerSecond = 800;
        int clients = 400; // Zipf-popular: a few hot clients hit their limits, most do not
        int clusterMasters = 0; // 0: one redis-server; 3: a Redis Cluster of three masters
    };

    // The redis-server to start; empty when none is installed.
    static QString redisServerPath();

    explicit LocalDemo(QObject *parent = nullptr);
    ~LocalDemo() override; // stops everything, waiting for the traffic thread

    // Starts the server, then the traffic; `ready` or `failed` follows. Refuses (failed) a
    // policy without a route the load generator can play.
    void start(const Policy &policy, const Options &options);
    void start(const Policy &policy) { start(policy, Options()); }
    // Stops the traffic and the server without waiting; `stopped` follows.
    void stop();
    bool running() const
    {
        return m_server.state() != QProcess::NotRunning || (m_cluster && m_cluster->running());
    }
    // The cluster's ports when the demo runs one (the first is port()); empty otherwise.
    QList<quint16> clusterPorts() const;
    QList<qint64> serverPids() const;
    quint16 port() const { return m_port; }
    qint64 serverPid() const { return m_server.processId(); }
    // What to monitor: the policy as the demo runs it (Quota Studio's own keys, metrics on).
    const Policy &policy() const { return m_policy; }

signals:
    void ready(quint16 port);
    void failed(const QString &why);
    void stopped();

private:
    void launchServer();
    void onServerOutput();
    void onServerFinished();
    void startTraffic();
    void stopTraffic(); // joins the thread: only once it has been told to end

    Options m_options;
    Policy m_policy;
    void launchCluster();
    QProcess m_server;
    std::unique_ptr<LocalCluster> m_cluster;
    std::unique_ptr<QTemporaryDir> m_dir;
    quint16 m_port = 0;
    int m_attempts = 0;
    bool m_ready = false;
    bool m_stopping = false;
    QByteArray m_output; // the server's log until it says it is ready
    std::thread m_traffic;
    std::atomic<bool> m_stopTraffic{false};
};

} // namespace qs
