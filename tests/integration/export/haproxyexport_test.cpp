// HAProxy export: every example is accepted by the real `haproxy -c`; hostile names cannot add
// configuration; what cannot be expressed is an error, approximations are warnings.
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"
#include "tests/support/gatewayconfig.h"
#include "tests/support/testsupport.h"

#include <QDir>
#include <QFile>

#include <gtest/gtest.h>

#include <filesystem>

using namespace qs;

namespace {

std::string haproxyCheck(const std::string &haproxy, const ExportResult &result)
{
    const std::string dir = qs::test::makeTempDir("qs-haproxy-export-");
    QFile out(QString::fromStdString(dir) + QStringLiteral("/haproxy.cfg"));
    if (!out.open(QIODevice::WriteOnly))
        return "cannot write";
    out.write(result.files.at(0).content);
    out.close();
    std::string output;
    const int status = qs::test::run(haproxy + " -c -q -f " + dir + "/haproxy.cfg", &output);
    std::filesystem::remove_all(dir);
    return qs::test::checkerVerdict(status, output);
}

} // namespace

TEST(HaproxyExport, EveryExampleIsAcceptedByHaproxy)
{
    const std::string haproxy = qs::test::requireTool("haproxy", QS_HAPROXY);
    if (haproxy.empty())
        GTEST_SKIP() << "haproxy missing";
    const QDir dir(QStringLiteral(QS_EXAMPLES_DIR));
    const QStringList examples = dir.entryList({QStringLiteral("*.yaml")});
    ASSERT_GE(examples.size(), 9) << "the examples folder: " << dir.path().toStdString();
    int exported = 0, refused = 0, accepted = 0;
    for (const QString &f : examples) {
        const PolicyReadResult read = readPolicyFile(dir.filePath(f));
        ASSERT_FALSE(hasErrors(read.diagnostics)) << f.toStdString();
        const ExportResult result
            = exporterById(QStringLiteral("haproxy"))->exportPolicy(read.policy);
        if (hasErrors(result.diagnostics)) {
            ++refused; // e.g. a combined key: refused with a reason, checked below
            continue;
        }
        ++exported;
        const std::string verdict = haproxyCheck(haproxy, result);
        EXPECT_EQ(verdict, "") << f.toStdString();
        accepted += verdict.empty();
    }
    EXPECT_EQ(exported + refused, examples.size());
    EXPECT_EQ(accepted, exported) << "every exported example, not most";
    EXPECT_LE(refused, 1) << "only the combined-key example is refused";
}

TEST(HaproxyExport, SlidingCounterMapsToHttpReqRateAndCombinedKeysAreRefused)
{
    const PolicyReadResult read = readPolicy(R"(quota_studio: 1
name: t
routes:
  - id: search
    match: { path: /v1/search/* }
    key: header:X-Api-Key
    limit: { algorithm: sliding_window_counter, limit: 100, window: 10s }
)",
        QStringLiteral("t.yaml"));
    const ExportResult r = exporterById(QStringLiteral("haproxy"))->exportPolicy(read.policy);
    const QString cfg = QString::fromUtf8(r.files.at(0).content);
    EXPECT_TRUE(cfg.contains(QStringLiteral(
        "stick-table type binary len 32 size 100k expire 10s store http_req_rate(10s)")));
    EXPECT_TRUE(cfg.contains(
        QStringLiteral("http-request track-sc0 req.fhdr(X-Api-Key,1),sha2(256) table st_search")));
    EXPECT_TRUE(
        cfg.contains(QStringLiteral("deny_status 429 if { var(txn.qs_route) -m str search } "
                                    "{ sc_http_req_rate(0) gt 100 }")));
    ASSERT_EQ(r.diagnostics.size(), 1);
    EXPECT_TRUE(
        r.diagnostics[0].message.contains(QStringLiteral("also counts the requests it denies")));

    Policy combined = read.policy;
    combined.routes[0].key = QList<KeySelector>{
        {KeySelector::Kind::Ip, {}}, {KeySelector::Kind::Header, QStringLiteral("X-A")}};
    const ExportResult refused = exporterById(QStringLiteral("haproxy"))->exportPolicy(combined);
    EXPECT_TRUE(hasErrors(refused.diagnostics));
    EXPECT_TRUE(refused.files.empty());
}

TEST(HaproxyExport, HostileNamesCannotAddConfiguration)
{
    const std::string haproxy = qs::test::requireTool("haproxy", QS_HAPROXY);
    if (haproxy.empty())
        GTEST_SKIP() << "haproxy missing";
    Policy p;
    p.name = QStringLiteral("evil\nbackend injected\n");
    Route r;
    r.id = QStringLiteral("x\nfrontend evil\n  bind 0.0.0.0:1");
    r.path = QStringLiteral("/a.b/c");
    r.limit().algorithm = limiter::Algorithm::Gcra;
    r.limit().rate = RateValue{QStringLiteral("1/s"), limiter::Rate{1, limiter::kMicrosPerSecond}};
    r.limit().burst = 3;
    p.routes.append(r);
    const ExportResult ok = exporterById(QStringLiteral("haproxy"))->exportPolicy(p);
    ASSERT_FALSE(hasErrors(ok.diagnostics));
    const QString cfg = QString::fromUtf8(ok.files.at(0).content);
    // What HAProxy acts on: its configuration lines, comments gone.
    int sections = 0, binds = 0;
    for (const std::string &line : qs::test::haproxyLines(cfg.toStdString())) {
        for (const char *section : {"global", "defaults", "frontend ", "backend ", "listen "})
            sections += line.rfind(section, 0) == 0;
        binds += line.rfind("bind ", 0) == 0;
        EXPECT_EQ(line.find("0.0.0.0"), std::string::npos) << "injected: " << line;
        EXPECT_EQ(line.find("injected"), std::string::npos) << "injected: " << line;
    }
    // global, defaults, the frontend, the route's table and the stand-in backend.
    EXPECT_EQ(sections, 5);
    EXPECT_EQ(binds, 1);
    EXPECT_TRUE(cfg.contains(QStringLiteral("'^/a\\.b/c/?$'"))) << "regex escaped and quoted";
    EXPECT_EQ(haproxyCheck(haproxy, ok), "");

    p.routes[0].key = QList<KeySelector>{{KeySelector::Kind::Header, QStringLiteral("X#comment")}};
    EXPECT_TRUE(hasErrors(exporterById(QStringLiteral("haproxy"))->exportPolicy(p).diagnostics));
}

// HAProxy's timers are signed 32-bit milliseconds: a period or expiry beyond 24.8 days made a
// file that `haproxy -c` rejects while the export said nothing.
TEST(HaproxyExport, PeriodsHaproxyCannotTimeAreRefusedAndTheLongestItCanIsAccepted)
{
    const std::string haproxy = qs::test::requireTool("haproxy", QS_HAPROXY);
    if (haproxy.empty())
        GTEST_SKIP() << "haproxy missing";
    const auto exportLimit
        = [](const char *limit) {
              const PolicyReadResult read = readPolicy(QByteArray(R"(quota_studio: 1
name: t
routes:
  - id: r
    match: { path: /r }
    limit: )") + limit + "\n",
                  QStringLiteral("t.yaml"));
              EXPECT_FALSE(hasErrors(read.diagnostics)) << limit;
              return exporterById(QStringLiteral("haproxy"))->exportPolicy(read.policy);
          };
    for (const char *tooLong : {"{ algorithm: token_bucket, capacity: 100, refill: 1/d }",
             "{ algorithm: gcra, rate: 7/d, burst: 200 }",
             "{ algorithm: fixed_window, limit: 10, window: 25d }",
             "{ algorithm: sliding_window_counter, limit: 10, window: 30d }",
             "{ algorithm: sliding_window_log, limit: 10, window: 365d }"}) {
        const ExportResult r = exportLimit(tooLong);
        ASSERT_TRUE(hasErrors(r.diagnostics)) << tooLong;
        EXPECT_TRUE(r.files.empty());
        EXPECT_TRUE(r.diagnostics.last().message.contains(QStringLiteral("2147483647 ms")))
            << r.diagnostics.last().message.toStdString();
    }
    for (const char *fits : {"{ algorithm: fixed_window, limit: 10, window: 24d }",
             "{ algorithm: token_bucket, capacity: 24, refill: 1/d }"}) {
        const ExportResult r = exportLimit(fits);
        ASSERT_FALSE(hasErrors(r.diagnostics)) << fits;
        EXPECT_EQ(haproxyCheck(haproxy, r), "") << fits;
    }
}
