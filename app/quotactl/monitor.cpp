// quotactl monitor: follow a policy's live quota keys in Redis (a refreshing table or JSON
// lines), or --discover what rate limiters a Redis holds keys of.
#include "commands.h"
#include "limiter/redis/redisaddress.h"
#include "model/monitor/clustermonitor.h"
#include "model/monitor/keyspacesurvey.h"
#include "model/monitor/quotamonitor.h"
#include "model/policy/ratesyntax.h"
#include "monitoroutput.h"
#include "optiontable.h"

#include <QCoreApplication>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <limits>
#include <unistd.h>

namespace qs::cli {

namespace {

int usage(const QString &message)
{
    return usageError("monitor", message);
}

struct MonitorArgs {
    QString policyFile, redis, passwordEnv = QStringLiteral("QS_REDIS_PASSWORD");
    MonitorOptions options;
    qint64 count = 0; // 0: until Ctrl-C
    bool untilWalked = false;
    qint64 maxKeys = 10'000;
    bool json = false;
    bool discover = false;
};

OptionTable monitorOptions(MonitorArgs &m)
{
    RespClient::Options &c = m.options.connection;
    const qint64 any = std::numeric_limits<qint64>::max();
    const auto file = [](QString name, QString help, QString *into) {
        return opt::text(std::move(name), QStringLiteral("FILE"), std::move(help), into);
    };
    return OptionTable("monitor",
        QStringLiteral("quotactl monitor --policy FILE --redis HOST:PORT[,HOST:PORT...] "
                       "[options]\n       quotactl monitor --discover --redis HOST:PORT "
                       "[--policy FILE] [options]"),
        QStringLiteral(
            "Reads the policy's live quota keys from a Redis-backed deployment and prints, every "
            "refresh,\n"
            "each route (keys seen, keys throttled now, allowed/denied per second where the "
            "deployment\n"
            "counts them) and the hottest keys (remaining/limit, reset). Keys of other rate "
            "limiters are read\n"
            "through the policy's redis.layouts presets (docs/monitoring.md). Read-only: it sends "
            "SCAN, TIME\n"
            "and reads, never a write, within a budget of commands per second.\n"
            "\n"
            "--discover samples the keyspace instead (at most --max-keys keys) and names the key "
            "families it\n"
            "finds and the preset each matches, with the redis.layouts entry to paste.\n"),
        {
            file(QStringLiteral("--policy"),
                QStringLiteral("policy file (YAML or JSON); required unless --discover"),
                &m.policyFile),
            opt::text(QStringLiteral("--redis"), QStringLiteral("HOST:PORT"),
                QStringLiteral("Redis server; required. A Redis Cluster: any of its nodes, or "
                               "several\nseeds separated by commas; every master is scanned and "
                               "read, the\nbudget split across them, and a node that is down is "
                               "shown as such"),
                &m.redis),
            opt::flag(QStringLiteral("--replicas"),
                QStringLiteral("on a cluster, read each master's replica instead (READONLY)"),
                &m.options.readReplicas),
            opt::integer(QStringLiteral("--db"), QStringLiteral("Redis database (default 0)"), 0,
                std::numeric_limits<int>::max(), [&c](qint64 n) { c.db = int(n); }),
            opt::text(QStringLiteral("--user"), QStringLiteral("NAME"),
                QStringLiteral("Redis ACL user (a read-only one: see docs/monitoring.md)"),
                &c.user),
            opt::text(QStringLiteral("--password-env"), QStringLiteral("VAR"),
                QStringLiteral("take the password from environment variable VAR (default\n"
                               "QS_REDIS_PASSWORD); a password is never accepted on the command "
                               "line"),
                &m.passwordEnv),
            opt::flag(QStringLiteral("--tls"),
                QStringLiteral("connect with TLS; the server's certificate must name HOST"),
                &c.tls),
            file(QStringLiteral("--cacert"),
                QStringLiteral("CA certificate(s), PEM, to verify the server (default: the "
                               "system's)"),
                &c.caFile),
            file(QStringLiteral("--cert"),
                QStringLiteral("client certificate, PEM, when the server asks for one (with "
                               "--key)"),
                &c.certFile),
            file(QStringLiteral("--key"), QStringLiteral("the client certificate's key, PEM"),
                &c.keyFile),
            opt::flag(QStringLiteral("--insecure"),
                QStringLiteral("TLS without verifying the server: anyone on the path can read "
                               "and\nchange the traffic. For a test server only"),
                &c.insecure),
            {QStringLiteral("--interval"), {}, QStringLiteral("D"),
                QStringLiteral("time between refreshes: 1s (default), 500ms, 5s"),
                [&m](const QString &v) -> std::optional<QString> {
                    const auto d = parseDuration(v);
                    if (!d)
                        return QStringLiteral("--interval: ") + d.error();
                    m.options.intervalMs = int(std::max<limiter::Micros>(100'000, *d) / 1000);
                    return std::nullopt;
                }},
            opt::integer(QStringLiteral("--budget"),
                QStringLiteral("at most N commands per second, in any second, as the server "
                               "counts\nthem (default 5000; 0: none, yet at most 16384 in "
                               "flight); a SCAN\ncounts what it costs Redis in reads (about one "
                               "per bucket it walks:\n~1000 for COUNT 1000 on a large keyspace), "
                               "measured with INFO"),
                0, any, [&m](qint64 n) { m.options.budgetPerSecond = n; }),
            opt::integer(QStringLiteral("--count"),
                QStringLiteral("stop after N refreshes (default: until Ctrl-C)"), 1, any,
                [&m](qint64 n) { m.count = n; }),
            opt::flag(QStringLiteral("--until-walked"),
                QStringLiteral("stop at the first refresh after every key family has been\n"
                               "walked once: one complete picture (--count caps the wait)"),
                &m.untilWalked),
            opt::integer(QStringLiteral("--hot"),
                QStringLiteral("hottest keys listed per refresh (default 10; at most 1000)"), 0,
                any, [&m](qint64 n) { m.options.hotKeyCount = int(std::min<qint64>(n, 1000)); }),
            opt::flag(QStringLiteral("--json"),
                QStringLiteral("one JSON object per refresh (JSON lines) instead of the table"),
                &m.json),
            opt::flag(QStringLiteral("--discover"),
                QStringLiteral("sample the keyspace and report key families (see above)"),
                &m.discover),
            opt::integer(QStringLiteral("--max-keys"),
                QStringLiteral("--discover: keys looked at, at most (default 10000)"), 1, any,
                [&m](qint64 n) { m.maxKeys = n; }),
        },
        QStringLiteral("Exit status: 0 done (also after Ctrl-C), 1 cannot connect or "
                       "authenticate, 2 usage error.\n"));
}

std::optional<int> parseArgs(const QStringList &args, MonitorArgs &m)
{
    RespClient::Options &c = m.options.connection;
    m.options.hotKeyCount = 10;
    if (const std::optional<int> stop = monitorOptions(m).parse(args))
        return stop;
    if (m.redis.isEmpty())
        return usage(QStringLiteral("--redis HOST:PORT is required"));
    if (m.policyFile.isEmpty() && !m.discover)
        return usage(QStringLiteral("--policy is required (or --discover)"));
    if (c.certFile.isEmpty() != c.keyFile.isEmpty())
        return usage(QStringLiteral("--cert and --key go together"));
    if ((!c.caFile.isEmpty() || !c.certFile.isEmpty() || c.insecure) && !c.tls)
        return usage(QStringLiteral("--cacert, --cert, --key and --insecure need --tls"));
    const limiter::RedisAddressList seeds = limiter::parseRedisAddresses(m.redis.toStdString());
    if (!seeds.error.empty())
        return usage(QStringLiteral("--redis takes HOST:PORT or a cluster's seeds "
                                    "HOST:PORT,HOST:PORT,...: %1")
                         .arg(QString::fromStdString(seeds.error)));
    c.host = QString::fromStdString(seeds.addresses.front().host);
    c.port = quint16(seeds.addresses.front().port);
    for (size_t i = 1; i < seeds.addresses.size(); ++i)
        m.options.moreSeeds.append(
            {QString::fromStdString(seeds.addresses[i].host), quint16(seeds.addresses[i].port)});
    c.password = qEnvironmentVariable(m.passwordEnv.toLocal8Bit().constData());
    return std::nullopt;
}

// The first connection decides: a wrong password, certificate or address is exit 1 at once.
// Later losses are reported in the output while the monitor keeps retrying; credentials that
// stop working later (a changed password) are reported in the output too, then end it with 1
// (endsTheMonitor).
void exitOnFirstFailure(const RespClient &client, const QString &server, bool &everConnected,
    int &exitCode, const std::function<bool()> &moreToTry = {})
{
    // moreToTry by value: the caller's function object is a temporary.
    QObject::connect(&client, &RespClient::stateChanged, qApp,
        [&, moreToTry](RespClient::State state, const QString &text) {
            if (state == RespClient::State::Connected)
                everConnected = true;
            if (moreToTry && moreToTry())
                return; // a cluster's next seed is about to be tried
            const bool fatal = !everConnected
                && (state == RespClient::State::AuthenticationFailed
                    || state == RespClient::State::TlsError
                    || state == RespClient::State::Unreachable);
            if (!fatal || exitCode != 0)
                return;
            QTextStream(stderr) << "quotactl monitor: " << server << ": " << text << '\n';
            exitCode = 1;
            QCoreApplication::exit(1);
        });
}

// States that do not heal by retrying: the monitor cannot go on without other credentials.
bool endsTheMonitor(RespClient::State state)
{
    return state == RespClient::State::AuthenticationFailed || state == RespClient::State::TlsError;
}

void quitOnSignal()
{
    const std::atomic<bool> &stop = stopOnSignals();
    auto *poll = new QTimer(qApp);
    QObject::connect(poll, &QTimer::timeout, qApp, [&stop] {
        if (stop.load())
            QCoreApplication::exit(0);
    });
    poll->start(100);
}

int runDiscover(const MonitorArgs &m, const std::optional<Policy> &policy)
{
    RespClient client;
    bool everConnected = false;
    int exitCode = 0;
    exitOnFirstFailure(client, m.redis, everConnected, exitCode);
    KeyspaceSurvey survey(client);
    KeyspaceSurvey::Options o;
    o.maxKeys = m.maxKeys;
    o.budgetPerSecond = m.options.budgetPerSecond;
    if (policy)
        o.qsPrefix = policy->redis.effectivePrefix().toUtf8();
    QObject::connect(&survey, &KeyspaceSurvey::finished, qApp, [&](const SurveyReport &r) {
        QTextStream out(stdout);
        if (!r.error.isEmpty()) {
            QTextStream(stderr) << "quotactl monitor: " << r.error << '\n';
            exitCode = 1;
        } else {
            out << (m.json ? surveyJson(r) : surveyText(r));
        }
        out.flush();
        QCoreApplication::exit(exitCode);
    });
    client.open(m.options.connection);
    survey.run(o);
    quitOnSignal();
    const int rc = QCoreApplication::exec();
    return exitCode != 0 ? exitCode : rc;
}

} // namespace

int runMonitor(const QStringList &args)
{
    MonitorArgs m;
    if (const auto rc = parseArgs(args, m))
        return *rc;
    std::optional<Policy> policy;
    if (!m.policyFile.isEmpty()) {
        policy = readPolicyOrReport(m.policyFile);
        if (!policy)
            return 1;
    }
    if (m.options.connection.insecure)
        QTextStream(stderr) << "quotactl monitor: WARNING: --insecure: the server's TLS "
                               "certificate is NOT verified; anyone on the path can read and "
                               "change this connection\n";
    if (m.discover)
        return runDiscover(m, policy);

    ClusterMonitor monitor(*policy); // one server or a cluster, whichever --redis leads to
    bool everConnected = false;
    int exitCode = 0;
    exitOnFirstFailure(monitor.client(), m.redis, everConnected, exitCode,
        [&monitor] { return monitor.tryingAnotherSeed(); });
    const bool terminal = !m.json && isatty(STDOUT_FILENO);
    qint64 refreshes = 0;
    QObject::connect(&monitor, &ClusterMonitor::refreshed, qApp, [&](const MonitorSnapshot &s) {
        if (!everConnected && s.state != RespClient::State::Connected)
            return; // still connecting: the first refresh is the first with figures
        QTextStream out(stdout);
        out << (m.json ? snapshotJson(s) : snapshotText(s, terminal));
        out.flush();
        if (endsTheMonitor(s.state) && exitCode == 0) {
            QTextStream(stderr) << "quotactl monitor: " << m.redis << ": " << s.stateText << '\n';
            exitCode = 1;
            QCoreApplication::exit(1);
            return;
        }
        if ((m.count > 0 && ++refreshes >= m.count) || (m.untilWalked && s.scanComplete))
            QCoreApplication::exit(0);
    });
    monitor.start(m.options);
    quitOnSignal();
    const int rc = QCoreApplication::exec();
    monitor.stop();
    return exitCode != 0 ? exitCode : rc;
}

} // namespace qs::cli
