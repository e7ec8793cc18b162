#include "model/redis/localdemo.h"

#include "model/redis/childprocess.h"
#include "model/redis/loadgenerator.h"

#include <QStandardPaths>

namespace qs {

namespace {

constexpr int kMaxAttempts = 5; // a free port can be taken between finding it and binding it

} // namespace

QString LocalDemo::redisServerPath()
{
    QString path = QStandardPaths::findExecutable(QStringLiteral("redis-server"));
    if (path.isEmpty()) // Debian installs it to /usr/bin, but a root-less PATH may miss sbin
        path = QStandardPaths::findExecutable(QStringLiteral("redis-server"),
            {QStringLiteral("/usr/bin"), QStringLiteral("/usr/sbin"),
                QStringLiteral("/usr/local/bin")});
    return path;
}

LocalDemo::LocalDemo(QObject *parent) : QObject(parent)
{
    m_server.setProcessChannelMode(QProcess::MergedChannels);
    dieWithTheApp(m_server); // also when the app is killed
    connect(&m_server, &QProcess::readyRead, this, &LocalDemo::onServerOutput);
    connect(&m_server, &QProcess::finished, this, &LocalDemo::onServerFinished);
    connect(&m_server, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            emit failed(tr("redis-server could not be started: %1").arg(m_server.errorString()));
    });
}

LocalDemo::~LocalDemo()
{
    m_stopping = true;
    m_stopTraffic = true;
    if (m_traffic.joinable())
        m_traffic.join();
    m_server.disconnect(this);
    if (m_server.state() != QProcess::NotRunning) {
        m_server.kill();
        m_server.waitForFinished(2000);
    }
}

void LocalDemo::start(const Policy &policy, const Options &options)
{
    if (running() || m_traffic.joinable()) {
        emit failed(tr("the demo is already running"));
        return;
    }
    if (redisServerPath().isEmpty()) {
        emit failed(tr("redis-server is not installed (Debian: apt install redis-server)"));
        return;
    }
    if (const auto routes = loadRoutesFor(policy, {}); !routes) {
        emit failed(tr("the policy cannot be played: %1").arg(routes.error()));
        return;
    }
    m_policy = policy;
    m_policy.redis.layouts.clear(); // the demo writes Quota Studio's own keys
    m_policy.redis.metrics = true;
    m_options = options;
    m_attempts = 0;
    m_stopping = false;
    m_dir = std::make_unique<QTemporaryDir>();
    m_cluster.reset();
    if (options.clusterMasters > 0)
        launchCluster();
    else
        launchServer();
}

void LocalDemo::launchCluster()
{
    m_cluster = std::make_unique<LocalCluster>(m_dir->path(), m_options.clusterMasters);
    connect(m_cluster.get(), &LocalCluster::ready, this, [this] {
        m_port = m_cluster->ports().front();
        startTraffic();
        emit ready(m_port);
    });
    connect(m_cluster.get(), &LocalCluster::failed, this, [this](const QString &why) {
        stopTraffic();
        emit failed(why);
    });
    connect(m_cluster.get(), &LocalCluster::stopped, this, [this] {
        stopTraffic();
        emit stopped();
    });
    m_cluster->start();
}

QList<quint16> LocalDemo::clusterPorts() const
{
    return m_cluster ? m_cluster->ports() : QList<quint16>();
}

QList<qint64> LocalDemo::serverPids() const
{
    if (m_cluster)
        return m_cluster->pids();
    return {m_server.processId()};
}

void LocalDemo::launchServer()
{
    m_ready = false;
    m_output.clear();
    m_port = freeLoopbackPort();
    ++m_attempts;
    // No persistence and its own directory: nothing is written outside the temporary folder.
    m_server.start(redisServerPath(),
        {QStringLiteral("--port"), QString::number(m_port), QStringLiteral("--bind"),
            QStringLiteral("127.0.0.1"), QStringLiteral("--save"), QString(),
            QStringLiteral("--appendonly"), QStringLiteral("no"), QStringLiteral("--dir"),
            m_dir->path(), QStringLiteral("--loglevel"), QStringLiteral("notice"),
            QStringLiteral("--protected-mode"), QStringLiteral("yes")});
}

void LocalDemo::onServerOutput()
{
    const QByteArray text = m_server.readAll();
    if (m_ready)
        return;
    m_output += text;
    if (m_output.size() > 64 * 1024)
        m_output = m_output.right(16 * 1024);
    if (m_output.contains("Ready to accept connections")) {
        m_ready = true;
        m_output.clear();
        startTraffic();
        emit ready(m_port);
    }
}

void LocalDemo::onServerFinished()
{
    const bool wasReady = m_ready;
    m_ready = false;
    m_stopTraffic = true;
    if (m_stopping) {
        stopTraffic();
        emit stopped();
        return;
    }
    if (!wasReady && m_attempts < kMaxAttempts && m_output.contains("Address already in use")) {
        launchServer();
        return;
    }
    stopTraffic();
    const QString log = QString::fromLocal8Bit(m_output).trimmed().section(QLatin1Char('\n'), -1);
    emit failed(wasReady ? tr("the demo's redis-server ended unexpectedly")
                         : tr("redis-server did not start: %1").arg(log));
}

void LocalDemo::startTraffic()
{
    LoadPlan plan;
    plan.endpoint.port = m_port;
    if (m_cluster) { // every master a seed: the backend learns the map from any of them
        std::vector<limiter::RedisAddress> seeds;
        for (quint16 p : m_cluster->ports())
            seeds.push_back({"127.0.0.1", int(p)});
        plan.endpoint.setSeeds(seeds);
    }
    plan.routes = loadRoutesFor(m_policy, {}).valueOr(std::vector<LoadRoute>{});
    plan.rps = m_options.requestsPerSecond;
    plan.clients = m_options.clients;
    plan.pattern = LoadPlan::Pattern::Zipf;
    plan.durationSeconds = 1e9; // until stopped
    plan.connections = 2;
    plan.pipeline = 8;
    m_stopTraffic = false;
    m_traffic = std::thread([plan, this] { runLoad(plan, m_stopTraffic); });
}

void LocalDemo::stopTraffic()
{
    m_stopTraffic = true;
    if (m_traffic.joinable())
        m_traffic.join(); // the load generator checks the flag between batches: milliseconds
}

void LocalDemo::stop()
{
    if (!running()) {
        stopTraffic();
        return;
    }
    m_stopping = true;
    m_stopTraffic = true;
    if (m_cluster) {
        m_cluster->stop(); // its `stopped` joins the thread and says `stopped`
        return;
    }
    m_server.terminate(); // onServerFinished joins the thread and says `stopped`
}

} // namespace qs
