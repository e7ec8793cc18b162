// quotactl loadgen: drive the Redis backend like a fleet of gateways, report rate and latency.
#include "commands.h"
#include "model/policy/policyreader.h"
#include "model/policy/ratesyntax.h"
#include "model/redis/loadgenerator.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <cstdio>
#include <cstdlib>
#include <limits>

namespace qs::cli {

namespace {

const char kLoadgenHelp[]
    = R"(Usage: quotactl loadgen --policy FILE --redis HOST:PORT[,HOST:PORT...] [options]

Sends decisions for the policy's routes to Redis, from several connections with
pipelining, like a fleet of gateway instances. Redis decides with the Lua scripts or,
where the server has loaded it, the Quota Studio module (QS.DECIDE; see --engine).
Stops at --duration or on Ctrl-C, then prints the achieved rate, the engine,
allowed/denied/error counts and latency percentiles (a request's latency is its pipelined
batch's round trip).

Options:
  --policy FILE        policy file (YAML or JSON); required
  --redis HOST:PORT    Redis server; required. A Redis Cluster: any of its nodes, or several
                       seeds separated by commas (tried in order); the cluster is detected,
                       each decision goes to its slot's master and follows redirections
  --route ID           only this route (default: all routes, round-robin)
  --rps N              target requests per second in total (default 1000; 0: as fast as
                       possible); a paced run sends N x duration requests in all
  --clients K          distinct client keys (default 100; at least 1)
  --duration D         how long: 10s, 1m, 500ms (default 10s)
  --pattern P          steady (default), burst (100 ms at 5x, 400 ms idle), zipf (popular clients)
  --connections C      connections, one thread each (default 4; 1 to 256)
  --pipeline N         requests per round trip (default 16; 1 to 10000)
  --engine E           auto (default: the module where the server has it, else Lua), lua,
                       or module (fails on a server without the module)
  --db N               Redis database (default 0; a cluster has only 0)
  --user NAME          Redis ACL user; the password comes from QS_REDIS_PASSWORD, never argv
  --seed S             random seed (default 1)
  --json               print one JSON object at the end instead of the text report
Exit status: 0 done (also after Ctrl-C), 1 every request failed (Redis unreachable), 2 usage.
)";

int usage(const QString &message)
{
    return usageError("loadgen", message);
}

} // namespace

int runLoadgen(const QStringList &args)
{
    QTextStream out(stdout);
    QString policyFile, redis, route, pattern = QStringLiteral("steady");
    LoadPlan plan;
    bool json = false;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        auto value = [&](QString *into) {
            if (i + 1 >= args.size())
                return false;
            *into = args[++i];
            return true;
        };
        QString v;
        bool ok = true;
        if (a == QLatin1String("-h") || a == QLatin1String("--help")) {
            out << kLoadgenHelp;
            return 0;
        } else if (a == QLatin1String("--json")) {
            json = true;
        } else if (a == QLatin1String("--policy")) {
            ok = value(&policyFile);
        } else if (a == QLatin1String("--redis")) {
            ok = value(&redis);
        } else if (a == QLatin1String("--route")) {
            ok = value(&route);
        } else if (a == QLatin1String("--pattern")) {
            ok = value(&pattern);
        } else if (a == QLatin1String("--engine")) {
            ok = value(&v);
            if (ok && v == QLatin1String("auto"))
                plan.endpoint.engine = limiter::RedisEngine::Auto;
            else if (ok && v == QLatin1String("lua"))
                plan.endpoint.engine = limiter::RedisEngine::Lua;
            else if (ok && v == QLatin1String("module"))
                plan.endpoint.engine = limiter::RedisEngine::Module;
            else if (ok)
                return usage(QStringLiteral("--engine takes auto, lua or module, not '%1'").arg(v));
        } else if (a == QLatin1String("--user")) {
            ok = value(&v);
            plan.endpoint.user = v.toStdString();
        } else if (a == QLatin1String("--duration")) {
            ok = value(&v);
            const auto d = parseDuration(v);
            if (!d)
                return usage(QStringLiteral("--duration: ") + d.error());
            plan.durationSeconds = double(*d) / 1e6;
        } else if (a == QLatin1String("--rps") || a == QLatin1String("--clients")
            || a == QLatin1String("--connections") || a == QLatin1String("--pipeline")
            || a == QLatin1String("--db") || a == QLatin1String("--seed")) {
            ok = value(&v);
            bool number = false;
            const qint64 n = v.toLongLong(&number);
            // 0 means "as fast as possible" for --rps only; elsewhere it would run nothing
            // (or be silently raised to 1), so it is refused with the range.
            const bool atLeastOne = a == QLatin1String("--clients")
                || a == QLatin1String("--connections") || a == QLatin1String("--pipeline");
            const qint64 most = a == QLatin1String("--connections") ? 256
                : a == QLatin1String("--pipeline")                  ? 10'000
                                                                    : -1;
            if (!number || n < (atLeastOne ? 1 : 0) || (most > 0 && n > most))
                return usage(most > 0
                        ? QStringLiteral("%1 takes a whole number from 1 to %2, not '%3'")
                              .arg(a)
                              .arg(most)
                              .arg(v)
                        : QStringLiteral("%1 takes a whole number >= %2, not '%3'")
                              .arg(a)
                              .arg(atLeastOne ? 1 : 0)
                              .arg(v));
            if (a == QLatin1String("--rps"))
                plan.rps = double(n);
            else if (a == QLatin1String("--clients"))
                plan.clients = int(std::min<qint64>(n, std::numeric_limits<int>::max()));
            else if (a == QLatin1String("--connections"))
                plan.connections = int(n);
            else if (a == QLatin1String("--pipeline"))
                plan.pipeline = int(n);
            else if (a == QLatin1String("--db"))
                plan.endpoint.db = int(n);
            else
                plan.seed = std::uint64_t(n);
        } else {
            return usage(QStringLiteral("unknown argument '%1'").arg(a));
        }
        if (!ok)
            return usage(QStringLiteral("%1 needs a value").arg(a));
    }
    if (policyFile.isEmpty() || redis.isEmpty())
        return usage(QStringLiteral("--policy and --redis are required"));
    const limiter::RedisAddressList seeds = limiter::parseRedisAddresses(redis.toStdString());
    if (!seeds.error.empty())
        return usage(QStringLiteral("--redis takes HOST:PORT or a cluster's seeds "
                                    "HOST:PORT,HOST:PORT,...: %1")
                         .arg(QString::fromStdString(seeds.error)));
    plan.endpoint.setSeeds(seeds.addresses);
    if (const char *password = std::getenv("QS_REDIS_PASSWORD"))
        plan.endpoint.password = password;
    if (pattern == QLatin1String("steady"))
        plan.pattern = LoadPlan::Pattern::Steady;
    else if (pattern == QLatin1String("burst"))
        plan.pattern = LoadPlan::Pattern::Burst;
    else if (pattern == QLatin1String("zipf"))
        plan.pattern = LoadPlan::Pattern::Zipf;
    else
        return usage(
            QStringLiteral("--pattern takes steady, burst or zipf, not '%1'").arg(pattern));

    const std::optional<Policy> policy = readPolicyOrReport(policyFile);
    if (!policy)
        return 1;
    auto rules = redisRulesFor(*policy, route);
    if (!rules)
        return usage(rules.error());
    plan.rules = std::move(*rules);

    const LoadResult r
        = runLoad(plan, stopOnSignals(), [&](std::uint64_t requests, double seconds) {
              if (!json)
                  QTextStream(stderr) << QStringLiteral("  %1 s: %2 requests\r")
                                             .arg(seconds, 0, 'f', 0)
                                             .arg(requests);
          });
    if (!json)
        QTextStream(stderr) << QStringLiteral("%1\r").arg(QString(), 40); // clear the progress line
    if (json) {
        const QJsonObject o{
            {QStringLiteral("requests"), qint64(r.requests)},
            {QStringLiteral("allowed"), qint64(r.allowed)},
            {QStringLiteral("denied"), qint64(r.denied)},
            {QStringLiteral("errors"), qint64(r.errors)},
            {QStringLiteral("rate"), r.rate},
            {QStringLiteral("seconds"), r.seconds},
            {QStringLiteral("p50_us"), r.p50us},
            {QStringLiteral("p90_us"), r.p90us},
            {QStringLiteral("p99_us"), r.p99us},
            {QStringLiteral("max_us"), r.maxUs},
            {QStringLiteral("cancelled"), r.cancelled},
            {QStringLiteral("first_error"), QString::fromStdString(r.firstError)},
            {QStringLiteral("engine"), QString::fromStdString(r.engine)},
        };
        out << QJsonDocument(o).toJson(QJsonDocument::Compact) << '\n';
    } else {
        out << QStringLiteral("%1 requests in %2 s: %3/s%4%5\n")
                   .arg(r.requests)
                   .arg(r.seconds, 0, 'f', 2)
                   .arg(r.rate, 0, 'f', 0)
                   .arg(r.engine.empty() ? QString()
                                         : QStringLiteral(" (%1)").arg(QString::fromStdString(
                                             r.engine == "module"    ? "module QS.DECIDE"
                                                 : r.engine == "lua" ? "Lua scripts"
                                                                     : "module and Lua mixed")))
                   .arg(r.cancelled ? QStringLiteral(" (stopped early)") : QString())
            << QStringLiteral("allowed %1, denied %2, errors %3\n")
                   .arg(r.allowed)
                   .arg(r.denied)
                   .arg(r.errors)
            << QStringLiteral("latency p50 %1 us, p90 %2 us, p99 %3 us, max %4 us\n")
                   .arg(r.p50us, 0, 'f', 0)
                   .arg(r.p90us, 0, 'f', 0)
                   .arg(r.p99us, 0, 'f', 0)
                   .arg(r.maxUs, 0, 'f', 0);
        if (!r.firstError.empty())
            out << "first error: " << QString::fromStdString(r.firstError) << '\n';
    }
    out.flush();
    if (const std::string failure = loadFailure(r, plan.connections); !failure.empty()) {
        QTextStream(stderr) << "quotactl loadgen: " << QString::fromStdString(failure) << '\n';
        return 1;
    }
    return 0;
}

} // namespace qs::cli
