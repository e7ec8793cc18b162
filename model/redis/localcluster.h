#pragma once
// The local demo's Redis Cluster: `masters` redis-server processes with cluster-enabled on free
// loopback ports (no persistence, a temporary folder), joined by `redis-cli --cluster create`
// with no replicas. Like the demo's single server it dies with the app. `ready` once the
// cluster has been created, `failed` with the reason, `stopped` when every node has ended.
#include <QObject>
#include <QProcess>

#include <memory>
#include <vector>

namespace qs {

class LocalCluster : public QObject {
    Q_OBJECT
public:
    LocalCluster(QString directory, int masters, QObject *parent = nullptr);
    ~LocalCluster() override; // kills every node

    static QString redisCliPath();
    void start();
    void stop(); // terminates every node; `stopped` follows
    bool running() const;
    QList<quint16> ports() const;
    QList<qint64> pids() const;

signals:
    void ready();
    void failed(const QString &why);
    void stopped();

private:
    struct Node {
        std::unique_ptr<QProcess> process;
        quint16 port = 0;
        bool ready = false;
        QByteArray log; // until it says it is ready
    };
    void onOutput(size_t node);
    void onFinished(size_t node);
    void create();
    void fail(const QString &why);

    QString m_directory;
    int m_masters = 3;
    std::vector<Node> m_nodes;
    QProcess m_create;
    bool m_created = false;
    bool m_stopping = false;
    bool m_failed = false;
};

} // namespace qs
