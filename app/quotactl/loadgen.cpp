// quotactl loadgen: drive the Redis backend like a fleet of gateways, report rate and latency.
#include "commands.h"
#include "model/policy/policyreader.h"
#include "model/policy/ratesyntax.h"
#include "model/redis/loadgenerator.h"
#include "optiontable.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <cstdio>
#include <cstdlib>
#include <limits>

namespace qs::cli {

namespace {

struct LoadgenOptions {
    QString policyFile, redis, route, pattern = QStringLiteral("steady"),
                                      engine = QStringLiteral("auto"), user;
    QString duration = QStringLiteral("10s");
    bool json = false;
};

OptionTable loadgenOptions(LoadgenOptions &o, LoadPlan &plan)
{
    const qint64 any = std::numeric_limits<qint64>::max();
    return OptionTable("loadgen",
        QStringLiteral("quotactl loadgen --policy FILE --redis HOST:PORT[,HOST:PORT...] [options]"),
        QStringLiteral(
            "Sends decisions for the policy's routes to Redis, from several connections with\n"
            "pipelining, like a fleet of gateway instances. Redis decides with the Lua scripts "
            "or,\nwhere the server has loaded it, the Quota Studio module (QS.DECIDE; see "
            "--engine).\nStops at --duration or on Ctrl-C, then prints the achieved rate, the "
            "engine,\nallowed/denied/error counts and latency percentiles (a request's latency "
            "is its pipelined\nbatch's round trip). A route with several limits is decided "
            "with one call of several.lua\nper request, not pipelined, each limit under its own "
            "keys (<prefix>:<route>:<limit>:...). A route whose numbers differ by plan\n"
            "(plans:) spreads its requests evenly over the plans, each plan on its own numbers "
            "and keys\n(<prefix>:<route>:<limit>:<plan>:...); a plan with no limit is admitted "
            "without asking Redis.\n"),
        {
            opt::text(QStringLiteral("--policy"), QStringLiteral("FILE"),
                QStringLiteral("policy file (YAML or JSON); required"), &o.policyFile),
            opt::text(QStringLiteral("--redis"), QStringLiteral("HOST:PORT"),
                QStringLiteral("Redis server; required. A Redis Cluster: any of its nodes, or "
                               "several\nseeds separated by commas (tried in order); the "
                               "cluster is detected,\neach decision goes to its slot's master "
                               "and follows redirections"),
                &o.redis),
            opt::text(QStringLiteral("--route"), QStringLiteral("ID"),
                QStringLiteral("only this route (default: all routes, round-robin)"), &o.route),
            opt::integer(QStringLiteral("--rps"),
                QStringLiteral("target requests per second in total (default 1000; 0: as fast "
                               "as\npossible); a paced run sends N x duration requests in all"),
                0, any, [&plan](qint64 n) { plan.rps = double(n); }),
            opt::integer(QStringLiteral("--clients"),
                QStringLiteral("distinct client keys (default 100; at least 1)"), 1,
                std::numeric_limits<int>::max(), [&plan](qint64 n) { plan.clients = int(n); }),
            opt::text(QStringLiteral("--duration"), QStringLiteral("D"),
                QStringLiteral("how long: 10s, 1m, 500ms (default 10s)"), &o.duration),
            opt::choice(QStringLiteral("--pattern"),
                {QStringLiteral("steady"), QStringLiteral("burst"), QStringLiteral("zipf")},
                QStringLiteral("steady (default), burst (100 ms at 5x, 400 ms idle), zipf "
                               "(popular clients)"),
                &o.pattern),
            opt::integer(QStringLiteral("--connections"),
                QStringLiteral("connections, one thread each (default 4; 1 to 256)"), 1, 256,
                [&plan](qint64 n) { plan.connections = int(n); }),
            opt::integer(QStringLiteral("--pipeline"),
                QStringLiteral("requests per round trip (default 16; 1 to 10000)"), 1, 10'000,
                [&plan](qint64 n) { plan.pipeline = int(n); }),
            opt::choice(QStringLiteral("--engine"),
                {QStringLiteral("auto"), QStringLiteral("lua"), QStringLiteral("module")},
                QStringLiteral("auto (default: the module where the server has it, else Lua), "
                               "lua,\nor module (fails on a server without the module)"),
                &o.engine),
            opt::integer(QStringLiteral("--db"),
                QStringLiteral("Redis database (default 0; a cluster has only 0)"), 0,
                std::numeric_limits<int>::max(), [&plan](qint64 n) { plan.endpoint.db = int(n); }),
            opt::text(QStringLiteral("--user"), QStringLiteral("NAME"),
                QStringLiteral("Redis ACL user; the password comes from QS_REDIS_PASSWORD, never "
                               "argv"),
                &o.user),
            opt::integer(QStringLiteral("--seed"), QStringLiteral("random seed (default 1)"), 0,
                any, [&plan](qint64 n) { plan.seed = std::uint64_t(n); }),
            opt::flag(QStringLiteral("--json"),
                QStringLiteral("print one JSON object at the end instead of the text report"),
                &o.json),
        },
        QStringLiteral("Exit status: 0 done (also after Ctrl-C), 1 every request failed (Redis "
                       "unreachable), 2 usage.\n"));
}

} // namespace

int runLoadgen(const QStringList &args)
{
    QTextStream out(stdout);
    LoadPlan plan;
    LoadgenOptions o;
    const OptionTable table = loadgenOptions(o, plan);
    if (const std::optional<int> stop = table.parse(args))
        return *stop;
    const auto usage = [&table](const QString &message) { return table.usage(message); };
    const QString &policyFile = o.policyFile, &redis = o.redis, &route = o.route,
                  &pattern = o.pattern;
    const bool json = o.json;
    plan.endpoint.user = o.user.toStdString();
    plan.endpoint.engine = o.engine == QLatin1String("lua") ? limiter::RedisEngine::Lua
        : o.engine == QLatin1String("module")               ? limiter::RedisEngine::Module
                                                            : limiter::RedisEngine::Auto;
    const auto duration = parseDuration(o.duration);
    if (!duration)
        return usage(QStringLiteral("--duration: ") + duration.error());
    plan.durationSeconds = double(*duration) / 1e6;
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
    plan.pattern = pattern == QLatin1String("burst") ? LoadPlan::Pattern::Burst
        : pattern == QLatin1String("zipf")           ? LoadPlan::Pattern::Zipf
                                                     : LoadPlan::Pattern::Steady;

    const std::optional<Policy> policy = readPolicyOrReport(policyFile);
    if (!policy)
        return 1;
    auto routes = loadRoutesFor(*policy, route);
    if (!routes)
        return usage(routes.error());
    plan.routes = std::move(*routes);

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
            {QStringLiteral("unlimited"), qint64(r.unlimited)},
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
            << QStringLiteral("allowed %1, denied %2, errors %3%4\n")
                   .arg(r.allowed)
                   .arg(r.denied)
                   .arg(r.errors)
                   .arg(r.unlimited > 0 ? QStringLiteral(
                            " (%1 allowed on plans without a limit, Redis not asked)")
                                              .arg(r.unlimited)
                                        : QString())
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
