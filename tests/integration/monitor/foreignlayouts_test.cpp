// Keys of rate limiters Quota Studio did not write, read through the policy's presets: the
// python-limits keys written by the real library and compared with its own get_window_stats,
// and the others written exactly as their systems write them (the commands of their scripts,
// see docs/monitoring.md). Then discover names them from the keys alone.
#include "model/monitor/keyspacesurvey.h"
#include "tests/integration/monitor/monitorfixture.h"
#include "tests/support/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

using namespace qs;
using namespace qs::test;

namespace {

const QByteArray kForeignPolicy = R"(quota_studio: 1
name: foreign
redis:
  layouts:
    - { route: home, preset: python-limits, key: "LIMITER/app.home/{key}" }
    - { route: search, preset: python-limits, key: "LIMITER/app.search/{key}" }
    - { route: kong, preset: kong }
    - { route: envoy, preset: envoy-ratelimit, key: "apis_remote_address_{key}" }
    - { route: goredis, preset: redis_rate }
    - { route: spring, preset: spring-cloud-gateway }
    - { route: express, preset: express-rate-limit }
    - { route: tutorial, key: "rate_limit:{key}", time_unit: s }
routes:
  - { id: home, match: { path: /home }, limit: { algorithm: fixed_window, limit: 10, window: 1m } }
  - { id: search, match: { path: /search }, limit: { algorithm: sliding_window_log, limit: 5, window: 10s } }
  - { id: kong, match: { path: /k }, limit: { algorithm: fixed_window, limit: 5, window: 1m } }
  - { id: envoy, match: { path: /e }, limit: { algorithm: fixed_window, limit: 10, window: 1m } }
  - { id: goredis, match: { path: /g }, limit: { algorithm: gcra, rate: 1/s, burst: 10 } }
  - { id: spring, match: { path: /s }, limit: { algorithm: token_bucket, capacity: 20, refill: 10/s } }
  - { id: express, match: { path: /x }, limit: { algorithm: fixed_window, limit: 100, window: 15m } }
  - { id: tutorial, match: { path: /t }, limit: { algorithm: token_bucket, capacity: 10, refill: 1/min } }
)";

// Runs the python-limits writer; its JSON report, or an empty array when the library is missing
// (scripts/deps installs it; under CI=true that is a failure).
QJsonArray writeWithPythonLimits(int port)
{
    std::string output;
    const std::string script = std::string(QS_MONITOR_TEST_DATA) + "/python_limits_keys.py";
    if (run("/usr/bin/python3 " + script + " " + std::to_string(port) + " 2>&1", &output) != 0) {
        ADD_FAILURE() << "python3-limits could not write keys: " << output;
        return {};
    }
    return QJsonDocument::fromJson(QByteArray::fromStdString(output)).array();
}

// What discover reports of the server on `port`, with the default options; nothing when it did
// not finish.
std::optional<SurveyReport> discover(int port)
{
    RespClient client;
    RespClient::Options o;
    o.port = quint16(port);
    client.open(o);
    KeyspaceSurvey survey(client);
    std::optional<SurveyReport> report;
    QObject::connect(
        &survey, &KeyspaceSurvey::finished, [&](const SurveyReport &r) { report = r; });
    survey.run({});
    waitUntil([&] { return report.has_value(); });
    return report;
}

} // namespace

TEST(ForeignLayouts, PythonLimitsAgreeWithTheLibrarysOwnWindowStats)
{
    RedisProcess server;
    ASSERT_TRUE(server.start());
    const QJsonArray expected = writeWithPythonLimits(server.port());
    ASSERT_EQ(expected.size(), 5);
    QuotaMonitor monitor(policyOrFail(kForeignPolicy));
    Snapshots snapshots(monitor);
    monitor.start(monitorOptions(server.port()));
    const MonitorSnapshot *s = snapshots.waitFor(
        [&](const MonitorSnapshot &s) { return s.hotKeys.size() == qsizetype(expected.size()); });
    ASSERT_TRUE(s) << "read " << snapshots.last().hotKeys.size() << " keys";
    for (const QJsonValue &v : expected) {
        const QJsonObject e = v.toObject();
        const QByteArray key = e["key"].toString().toUtf8();
        SCOPED_TRACE(key.toStdString());
        const HotKey *h = keyIn(*s, key);
        ASSERT_TRUE(h);
        // The library answered a moment before the monitor read: entries may only have left
        // the moving window since, never joined it.
        EXPECT_GE(h->quota.remaining, e["remaining"].toInt());
        EXPECT_LE(h->quota.remaining, e["remaining"].toInt() + (key.contains("search") ? 1 : 0));
        const double resetAt = double(s->serverTimeUs) / 1e6 + double(h->quota.resetAfterMs) / 1000;
        const double theirs = e["reset"].toDouble();
        if (key.contains("home")) {
            // Fixed window: the library's reset is TTL (whole seconds) + time().
            EXPECT_NEAR(resetAt, theirs, 1.5);
        } else {
            // Moving window: newest entry + expiry, which the library's Lua returns truncated
            // to a whole second (a Lua number becomes a Redis integer).
            EXPECT_GE(resetAt, theirs);
            EXPECT_LT(resetAt, theirs + 1.0);
        }
        EXPECT_EQ(h->quota.limit, key.contains("home") ? 10 : 5);
    }
}

// Each system's keys, written with the commands its own script sends.
TEST(ForeignLayouts, EveryPresetReadsItsSystemsKeys)
{
    RedisProcess server;
    ASSERT_TRUE(server.start());
    Admin admin(server.port());
    // Kong's and envoy's counters are of this minute: read in the next they are gone.
    admin.waitForRoomInWindow(60LL * 1'000'000, 10LL * 1'000'000);
    const qint64 nowUs = admin.serverTimeUs();
    const qint64 nowS = nowUs / 1'000'000;
    const std::string minuteStartMs = std::to_string(nowUs / 1000 / 60'000 * 60'000);
    const std::string kong = "ratelimit:3a1f5e40-2b8e-4c57-9d0c-5f3c2e1a7b66:"
                             "00000000-0000-0000-0000-000000000000:2001:db8::7:"
        + minuteStartMs + ":minute";
    for (int i = 0; i < 3; ++i)
        admin.run({"INCR", kong}); // Kong: INCR then EXPIRE on the first hit
    admin.run({"EXPIRE", kong, "60"});
    const std::string envoy = "apis_remote_address_10.1.2.3_" + std::to_string(nowS / 60 * 60);
    for (int i = 0; i < 4; ++i)
        admin.run({"INCRBY", envoy, "1"});
    admin.run({"EXPIRE", envoy, "217"}); // a window plus envoy's random jitter
    // redis_rate: SET the arrival time, seconds since 2017, 3.5 s ahead (EX on admission).
    char tat[32];
    std::snprintf(tat, sizeof tat, "%.6f", double(nowUs) / 1e6 - 1483228800.0 + 3.5);
    admin.run({"SET", "rate:user:42", tat, "EX", "4"});
    admin.run({"SETEX", "request_rate_limiter.{route1.alice}.tokens", "4", "3"});
    admin.run(
        {"SETEX", "request_rate_limiter.{route1.alice}.timestamp", "4", std::to_string(nowS)});
    admin.run({"SET", "rl:203.0.113.9", "0", "PX", "900000", "NX"}); // rate-limit-redis
    for (int i = 0; i < 7; ++i)
        admin.run({"INCR", "rl:203.0.113.9"});
    admin.run({"HSET", "rate_limit:eve", "tokens", "2", "last_updated", std::to_string(nowS)});
    admin.run({"EXPIRE", "rate_limit:eve", "3600"});

    QuotaMonitor monitor(policyOrFail(kForeignPolicy));
    Snapshots snapshots(monitor);
    monitor.start(monitorOptions(server.port()));
    const MonitorSnapshot *s
        = snapshots.waitFor([](const MonitorSnapshot &s) { return s.hotKeys.size() == 6; });
    ASSERT_TRUE(s) << "read " << snapshots.last().hotKeys.size() << " keys; unreadable "
                   << snapshots.last().unreadable.size();
    const auto quota = [&](const std::string &key) {
        const HotKey *h = keyIn(*s, QByteArray::fromStdString(key));
        EXPECT_TRUE(h) << key;
        return h ? h->quota : KeyQuota();
    };
    EXPECT_EQ(quota(kong).remaining, 2);
    EXPECT_EQ(quota(envoy).remaining, 6);
    // 3.5 s of backlog at 1/s when written: floor(10 - 3.5) = 6, 7 once a second has passed.
    EXPECT_GE(quota("rate:user:42").remaining, 6);
    EXPECT_LE(quota("rate:user:42").remaining, 7);
    // 3 tokens at the start of this second, +10/s, at most 20.
    EXPECT_GE(quota("request_rate_limiter.{route1.alice}.tokens").remaining, 3);
    EXPECT_LE(quota("request_rate_limiter.{route1.alice}.tokens").remaining, 20);
    EXPECT_EQ(quota("rl:203.0.113.9").remaining, 93);
    EXPECT_EQ(quota("rl:203.0.113.9").limit, 100);
    EXPECT_EQ(quota("rate_limit:eve").remaining, 2);
    EXPECT_EQ(quota("rate_limit:eve").limit, 10);
    for (const RouteStatus &r : s->routes)
        EXPECT_EQ(r.unreadable, 0) << r.id.toStdString();
}

// Given only a connection: the python-limits keys are named as such, with the layout to paste.
TEST(ForeignLayouts, DiscoverNamesPythonLimitsAndTheOthers)
{
    RedisProcess server;
    ASSERT_TRUE(server.start());
    ASSERT_EQ(writeWithPythonLimits(server.port()).size(), 5);
    Admin admin(server.port());
    std::vector<std::vector<std::string>> writes;
    for (int i = 0; i < 300; ++i)
        writes.push_back({"SET", "rl:10.0.0." + std::to_string(i), "3", "PX", "60000"});
    for (int i = 0; i < 20; ++i)
        writes.push_back({"HSET", "bucket:" + std::to_string(1000 + i), "tokens", "4",
            "last_refill", std::to_string(admin.serverTimeUs() / 1000)});
    writes.push_back({"SET", "session:8f14e45fceea167a5a36dedd4bea2543", "x"});
    ASSERT_TRUE(admin.pipeline(writes));

    const std::optional<SurveyReport> report = discover(server.port());
    ASSERT_TRUE(report.has_value());
    EXPECT_TRUE(report->error.isEmpty()) << report->error.toStdString();
    EXPECT_TRUE(report->wholeKeyspace);
    EXPECT_EQ(report->keysLookedAt, 5 + 300 + 20 + 1);
    std::map<std::string, KeyFamily> families;
    for (const KeyFamily &f : report->families)
        families[f.pattern.toStdString()] = f;
    ASSERT_EQ(families.count("rl:*"), 1u);
    EXPECT_EQ(families["rl:*"].count, 300);
    EXPECT_EQ(families["rl:*"].preset, "express-rate-limit");
    EXPECT_EQ(families["rl:*"].type, "string");
    EXPECT_TRUE(families["rl:*"].layoutYaml.contains("key: \"rl:{key}\""));
    // LIMITER/<endpoint>/<client>/…: the endpoint stays, the clients (who vary) are the `*`.
    EXPECT_EQ(families["LIMITER/app.home/*/10/1/minute"].preset, "python-limits");
    EXPECT_EQ(families["LIMITER/app.home/*/10/1/minute"].count, 2);
    EXPECT_EQ(families["LIMITER/app.search/*/5/10/second"].preset, "python-limits");
    EXPECT_EQ(families["LIMITER/app.search/*/5/10/second"].type, "list");
    EXPECT_EQ(families["bucket:*"].preset, "tutorial-hash");
    EXPECT_TRUE(families["bucket:*"].layoutYaml.contains("updated_at: last_refill"))
        << families["bucket:*"].layoutYaml.toStdString();
    EXPECT_TRUE(families["bucket:*"].layoutYaml.contains("time_unit: ms"));
    EXPECT_TRUE(families["session:*"].preset.isEmpty());
}

// The keyspace two real Flask-Limiter apps leave (data/flask_limiter_app.py): one limit,
// "20/minute", on five endpoints, three of a fixed-window app (strings) and two of a
// moving-window app (lists). Grouped by name shape alone they were one family whose layout
// left the other kind's keys unreadable; grouped by endpoint and type, every suggested layout
// pasted into a policy reads its keys and none is unreadable.
TEST(ForeignLayouts, DiscoverGroupsFlaskLimiterKeysByEndpointAndType)
{
    RedisProcess server;
    ASSERT_TRUE(server.start());
    std::string output;
    const std::string script = std::string(QS_MONITOR_TEST_DATA) + "/flask_limiter_app.py";
    ASSERT_EQ(
        run("/usr/bin/python3 " + script + " " + std::to_string(server.port()) + " 2>&1", &output),
        0)
        << "python3-flask-limiter (scripts/deps installs it): " << output;
    const QJsonArray written = QJsonDocument::fromJson(QByteArray::fromStdString(output)).array();
    ASSERT_EQ(written.size(), 7) << output;

    const std::optional<SurveyReport> report = discover(server.port());
    ASSERT_TRUE(report.has_value());
    std::map<std::string, KeyFamily> families;
    for (const KeyFamily &f : report->families)
        families[f.pattern.toStdString() + " " + f.type.toStdString()] = f;
    for (const char *endpoint : {"a_search", "a_items", "a_login"})
        EXPECT_EQ(families[std::string("LIMITER/*/") + endpoint + "/20/1/minute string"].count, 1)
            << endpoint;
    for (const char *endpoint : {"b_search", "b_feed"})
        EXPECT_EQ(families[std::string("LIMITER/*/") + endpoint + "/20/1/minute list"].count, 2)
            << endpoint;
    EXPECT_EQ(families.size(), 5u);

    // Each suggested layout, pasted with a route of the algorithm its note names.
    QByteArray yaml = "quota_studio: 1\nname: flask\nredis:\n  layouts:\n";
    QByteArray routes = "routes:\n";
    int n = 0;
    for (const auto &[name, f] : families) {
        ASSERT_TRUE(f.layout.has_value()) << name;
        const QByteArray id = "r" + QByteArray::number(n++);
        yaml += "    - { route: " + id + ", preset: python-limits, key: \""
            + f.layout->keyTemplate.toUtf8() + "\" }\n";
        const bool moving = f.note.contains("sliding_window_log");
        EXPECT_EQ(moving, f.type == "list") << f.note.toStdString();
        routes += "  - { id: " + id + ", match: { path: /" + id + " }, limit: { algorithm: "
            + (moving ? "sliding_window_log" : "fixed_window") + ", limit: 20, window: 1m } }\n";
    }
    QuotaMonitor monitor(policyOrFail(yaml + routes));
    Snapshots snapshots(monitor);
    monitor.start(monitorOptions(server.port()));
    const MonitorSnapshot *s = snapshots.waitFor(
        [](const MonitorSnapshot &s) { return s.scanComplete && s.hotKeys.size() == 7; });
    ASSERT_TRUE(s) << snapshots.last().hotKeys.size() << " keys read";
    for (const RouteStatus &r : s->routes)
        EXPECT_EQ(r.unreadable, 0) << r.id.toStdString();
    EXPECT_EQ(keyIn(*s, "LIMITER/203.0.113.8/a_items/20/1/minute")->quota.remaining, 0);
    EXPECT_EQ(keyIn(*s, "LIMITER/198.51.100.2/b_search/20/1/minute")->quota.remaining, 0);
    EXPECT_EQ(keyIn(*s, "LIMITER/198.51.100.3/b_feed/20/1/minute")->quota.remaining, 14);
}
