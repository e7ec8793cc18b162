#include "model/redis/localcluster.h"

#include "model/redis/childprocess.h"
#include "model/redis/localdemo.h"

#include <QStandardPaths>

namespace qs {

LocalCluster::LocalCluster(QString directory, int masters, QObject *parent)
    : QObject(parent), m_directory(std::move(directory)), m_masters(masters)
{
    m_create.setProcessChannelMode(QProcess::MergedChannels);
    connect(&m_create, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        if (m_stopping || m_failed)
            return;
        if (status != QProcess::NormalExit || code != 0) {
            fail(tr("redis-cli --cluster create failed: %1")
                     .arg(QString::fromLocal8Bit(m_create.readAll())
                              .trimmed()
                              .section(QLatin1Char('\n'), -1)));
            return;
        }
        m_created = true;
        emit ready();
    });
}

LocalCluster::~LocalCluster()
{
    m_stopping = true;
    m_create.kill();
    m_create.waitForFinished(1000);
    for (Node &n : m_nodes) {
        n.process->disconnect(this);
        if (n.process->state() != QProcess::NotRunning) {
            n.process->kill();
            n.process->waitForFinished(2000);
        }
    }
}

QString LocalCluster::redisCliPath()
{
    QString path = QStandardPaths::findExecutable(QStringLiteral("redis-cli"));
    if (path.isEmpty())
        path = QStandardPaths::findExecutable(QStringLiteral("redis-cli"),
            {QStringLiteral("/usr/bin"), QStringLiteral("/usr/local/bin")});
    return path;
}

void LocalCluster::start()
{
    if (redisCliPath().isEmpty()) {
        fail(tr("redis-cli is not installed (Debian: apt install redis-tools)"));
        return;
    }
    for (int i = 0; i < m_masters; ++i) {
        Node n;
        n.port = freeClusterPort();
        n.process = std::make_unique<QProcess>();
        n.process->setProcessChannelMode(QProcess::MergedChannels);
        dieWithTheApp(*n.process);
        const size_t index = m_nodes.size();
        connect(n.process.get(), &QProcess::readyRead, this, [this, index] { onOutput(index); });
        connect(n.process.get(), &QProcess::finished, this, [this, index] { onFinished(index); });
        const QString port = QString::number(n.port);
        n.process->start(LocalDemo::redisServerPath(),
            {QStringLiteral("--port"), port, QStringLiteral("--bind"), QStringLiteral("127.0.0.1"),
                QStringLiteral("--save"), QString(), QStringLiteral("--appendonly"),
                QStringLiteral("no"), QStringLiteral("--dir"), m_directory,
                QStringLiteral("--cluster-enabled"), QStringLiteral("yes"),
                QStringLiteral("--cluster-config-file"),
                m_directory + QStringLiteral("/nodes-") + port + QStringLiteral(".conf"),
                QStringLiteral("--cluster-node-timeout"), QStringLiteral("2000"),
                QStringLiteral("--loglevel"), QStringLiteral("notice"),
                QStringLiteral("--protected-mode"), QStringLiteral("yes")});
        m_nodes.push_back(std::move(n));
    }
}

void LocalCluster::onOutput(size_t node)
{
    Node &n = m_nodes[node];
    const QByteArray text = n.process->readAll();
    if (n.ready)
        return;
    n.log = (n.log + text).right(16 * 1024);
    if (!n.log.contains("Ready to accept connections"))
        return;
    n.ready = true;
    n.log.clear();
    if (std::all_of(m_nodes.begin(), m_nodes.end(), [](const Node &x) { return x.ready; }))
        create();
}

void LocalCluster::create()
{
    QStringList args{QStringLiteral("--cluster"), QStringLiteral("create")};
    for (const Node &n : m_nodes)
        args << QStringLiteral("127.0.0.1:%1").arg(n.port);
    args << QStringLiteral("--cluster-replicas") << QStringLiteral("0")
         << QStringLiteral("--cluster-yes");
    m_create.start(redisCliPath(), args);
}

void LocalCluster::onFinished(size_t node)
{
    if (m_stopping) {
        if (!running())
            emit stopped();
        return;
    }
    const QString log
        = QString::fromLocal8Bit(m_nodes[node].log).trimmed().section(QLatin1Char('\n'), -1);
    fail(m_nodes[node].ready ? tr("a node of the demo's cluster (port %1) ended unexpectedly")
                                   .arg(m_nodes[node].port)
                             : tr("redis-server did not start: %1").arg(log));
}

void LocalCluster::fail(const QString &why)
{
    if (m_failed)
        return;
    m_failed = true;
    m_stopping = true;
    for (Node &n : m_nodes)
        if (n.process->state() != QProcess::NotRunning)
            n.process->kill();
    emit failed(why);
}

void LocalCluster::stop()
{
    m_stopping = true;
    m_create.kill();
    if (!running()) {
        emit stopped();
        return;
    }
    for (Node &n : m_nodes)
        if (n.process->state() != QProcess::NotRunning)
            n.process->terminate();
}

bool LocalCluster::running() const
{
    return std::any_of(m_nodes.begin(), m_nodes.end(),
        [](const Node &n) { return n.process->state() != QProcess::NotRunning; });
}

QList<quint16> LocalCluster::ports() const
{
    QList<quint16> out;
    for (const Node &n : m_nodes)
        out << n.port;
    return out;
}

QList<qint64> LocalCluster::pids() const
{
    QList<qint64> out;
    for (const Node &n : m_nodes)
        out << n.process->processId();
    return out;
}

} // namespace qs
