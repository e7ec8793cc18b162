// NGINX export: every example is accepted by the real `nginx -t`, hostile names cannot inject
// directives, and approximations are reported.
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

// Writes the export into a temp dir and runs nginx -t on its nginx.conf; "" when accepted.
std::string nginxCheck(const std::string &nginx, const ExportResult &result)
{
    const std::string dir = qs::test::makeTempDir("qs-nginx-export-");
    for (const ExportedFile &f : result.files) {
        QFile out(QString::fromStdString(dir) + QLatin1Char('/') + f.name);
        if (!out.open(QIODevice::WriteOnly))
            return "cannot write " + f.name.toStdString();
        out.write(f.content);
    }
    std::string output;
    const int status = qs::test::run(nginx + " -t -q -c " + dir + "/nginx.conf -p " + dir, &output);
    std::filesystem::remove_all(dir);
    return qs::test::checkerVerdict(status, output);
}

} // namespace

TEST(NginxExport, EveryExampleIsAcceptedByNginx)
{
    const std::string nginx = qs::test::requireTool("nginx", QS_NGINX);
    if (nginx.empty())
        GTEST_SKIP() << "nginx missing";
    const Exporter *exporter = exporterById(QStringLiteral("nginx"));
    ASSERT_TRUE(exporter);
    const QDir dir(QStringLiteral(QS_EXAMPLES_DIR));
    const QStringList examples = dir.entryList({QStringLiteral("*.yaml")});
    ASSERT_GE(examples.size(), 9) << "the examples folder: " << dir.path().toStdString();
    int accepted = 0;
    for (const QString &f : examples) {
        const PolicyReadResult read = readPolicyFile(dir.filePath(f));
        ASSERT_FALSE(hasErrors(read.diagnostics)) << f.toStdString();
        const ExportResult result = exporter->exportPolicy(read.policy);
        ASSERT_FALSE(hasErrors(result.diagnostics)) << f.toStdString();
        ASSERT_EQ(result.files.size(), 3u);
        const std::string verdict = nginxCheck(nginx, result);
        EXPECT_EQ(verdict, "") << f.toStdString();
        accepted += verdict.empty();
    }
    EXPECT_EQ(accepted, examples.size()) << "every example, not most";
}

TEST(NginxExport, TokenBucketIsExactAndWindowsWarnInNumbers)
{
    const PolicyReadResult read = readPolicy(R"(quota_studio: 1
name: t
routes:
  - id: login
    match: { methods: [POST], path: /v1/login }
    mode: shadow
    limit: { algorithm: token_bucket, capacity: 10, refill: 2/s }
  - id: search
    match: { path: /v1/search/* }
    limit: { algorithm: fixed_window, limit: 100, window: 1m }
)",
        QStringLiteral("t.yaml"));
    const ExportResult r = exporterById(QStringLiteral("nginx"))->exportPolicy(read.policy);
    const QString http = QString::fromUtf8(r.files[0].content);
    const QString server = QString::fromUtf8(r.files[1].content);
    EXPECT_TRUE(http.contains(QStringLiteral("zone=qs_login:10m rate=2r/s;")));
    EXPECT_TRUE(http.contains(QStringLiteral("\"~(?s)^(?:POST) /v1/login/?\\z\" qs_login;")));
    EXPECT_TRUE(http.contains(QStringLiteral("qs_login \"$binary_remote_addr\";")));
    // The shadow route counts in dry run in a location of its own; the enforcing one in the
    // server, where every location inherits it.
    const qsizetype shadow = server.indexOf(QStringLiteral("location @qs_shadow {"));
    ASSERT_GE(shadow, 0);
    EXPECT_GT(server.indexOf(QStringLiteral("limit_req zone=qs_login burst=9 nodelay;")), shadow);
    EXPECT_GT(server.indexOf(QStringLiteral("limit_req_dry_run on;")), shadow);
    const qsizetype search
        = server.indexOf(QStringLiteral("limit_req zone=qs_search burst=99 nodelay;"));
    EXPECT_GE(search, 0);
    EXPECT_LT(search, shadow);
    // Two warnings: the window's approximation at its route, and once for the export the
    // request forms NGINX refuses outright (docs/exporters.md, "Request forms").
    ASSERT_EQ(r.diagnostics.size(), 2);
    EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::Warning);
    EXPECT_EQ(r.diagnostics[0].path, QStringLiteral("routes[1].limit.algorithm"));
    EXPECT_TRUE(r.diagnostics[0].message.contains(
        QStringLiteral("fixed window 100/1m exported to NGINX as rate=100r/m burst=99 nodelay: "
                       "100 at once, then one every 0.6 s; the window never resets")))
        << r.diagnostics[0].message.toStdString();
    const Diagnostic &forms = r.diagnostics[1];
    EXPECT_EQ(forms.severity, Diagnostic::Severity::Warning);
    EXPECT_EQ(forms.route, -1) << "about the export, not a route";
    EXPECT_EQ(forms.target, QStringLiteral("nginx"));
    EXPECT_EQ(forms.line, 4) << "at the routes";
    for (const char *form : {"not in upper case", "%00", "'..' climbs above '/'", "8 KiB",
             "encoded slash beside a dot or empty segment"})
        EXPECT_TRUE(forms.message.contains(QLatin1String(form))) << form;
}

TEST(NginxExport, HostileNamesCannotInjectDirectives)
{
    const std::string nginx = qs::test::requireTool("nginx", QS_NGINX);
    if (nginx.empty())
        GTEST_SKIP() << "nginx missing";
    // Built in code: the reader would already refuse these, an exporter must not rely on it.
    Policy p;
    p.name = QStringLiteral("evil\n} server { listen 127.0.0.1:9; }");
    Route r;
    r.id = QStringLiteral("x;} server { listen 9999; } #");
    r.path = QStringLiteral("/a/b");
    r.limit().algorithm = limiter::Algorithm::Gcra;
    r.limit().rate = RateValue{QStringLiteral("1/s"), limiter::Rate{1, limiter::kMicrosPerSecond}};
    r.limit().burst = 1;
    p.routes.append(r);
    const ExportResult ok = exporterById(QStringLiteral("nginx"))->exportPolicy(p);
    ASSERT_FALSE(hasErrors(ok.diagnostics));
    EXPECT_EQ(nginxCheck(nginx, ok), "");
    // What NGINX acts on: the directives, comments gone. A name may show up in a comment,
    // sanitised, never as configuration.
    const auto directives = qs::test::nginxDirectives(ok.files[2].content.toStdString());
    int servers = 0, listens = 0;
    for (const std::string &d : directives) {
        servers += d == "server";
        if (d.rfind("listen ", 0) == 0) {
            ++listens;
            EXPECT_TRUE(d == "listen 127.0.0.1:8080" || d == "listen 127.0.0.1:8081")
                << "injected: " << d;
        }
    }
    EXPECT_EQ(servers, 2) << "only the two servers Quota Studio writes";
    EXPECT_EQ(listens, 2);

    Policy bad = p;
    bad.routes[0].path = QStringLiteral("/a;} server {");
    bad.routes[0].key
        = QList<KeySelector>{{KeySelector::Kind::Header, QStringLiteral("X Evil\nHeader")}};
    const ExportResult refused = exporterById(QStringLiteral("nginx"))->exportPolicy(bad);
    EXPECT_TRUE(hasErrors(refused.diagnostics));
    EXPECT_TRUE(refused.files.empty());
}

// NGINX drops headers whose name holds '_' (unless underscores_in_headers on, and then it
// cannot tell X_Api_Key from X-Api-Key): such a key is refused, not silently shared.
TEST(NginxExport, AHeaderNameWithAnUnderscoreIsRefused)
{
    const PolicyReadResult read = readPolicy(R"(quota_studio: 1
name: t
routes:
  - id: r
    match: { path: /r }
    key: header:X_Api_Key
    limit: { algorithm: token_bucket, capacity: 3, refill: 1/s }
)",
        QStringLiteral("t.yaml"));
    ASSERT_FALSE(hasErrors(read.diagnostics));
    const ExportResult r = exporterById(QStringLiteral("nginx"))->exportPolicy(read.policy);
    ASSERT_TRUE(hasErrors(r.diagnostics));
    EXPECT_TRUE(r.files.empty());
    EXPECT_EQ(r.diagnostics[0].line, 6);
    EXPECT_TRUE(r.diagnostics[0].message.contains(QStringLiteral("'X-Api-Key'")))
        << r.diagnostics[0].message.toStdString();
}

// A claim regex is one configuration parameter, and NGINX reads at most 4 KiB of one: a path
// whose regex is longer is an error, and the longest accepted one passes `nginx -t`.
TEST(NginxExport, APathTooLongForNginxIsAnErrorNotABrokenFile)
{
    const std::string nginx = qs::test::requireTool("nginx", QS_NGINX);
    if (nginx.empty())
        GTEST_SKIP() << "nginx missing";
    const auto exportPath = [](qsizetype letters) {
        Policy p;
        p.name = QStringLiteral("long");
        Route r;
        r.id = QStringLiteral("r");
        r.path = QStringLiteral("/") + QString(letters, QLatin1Char('a'));
        r.limit().algorithm = limiter::Algorithm::Gcra;
        r.limit().rate
            = RateValue{QStringLiteral("1/s"), limiter::Rate{1, limiter::kMicrosPerSecond}};
        r.limit().burst = 1;
        p.routes.append(r);
        return exporterById(QStringLiteral("nginx"))->exportPolicy(p);
    };
    // Each 'a' is `(?:a|%61)` in the regex over undecoded paths: 9 characters.
    const ExportResult fits = exportPath(440);
    ASSERT_FALSE(hasErrors(fits.diagnostics));
    EXPECT_EQ(nginxCheck(nginx, fits), "");
    const ExportResult tooLong = exportPath(460);
    ASSERT_TRUE(hasErrors(tooLong.diagnostics));
    EXPECT_TRUE(tooLong.files.empty());
    EXPECT_TRUE(tooLong.diagnostics[0].message.contains(QStringLiteral("at most 4000")))
        << tooLong.diagnostics[0].message.toStdString();
    // Beyond what NGINX takes at all, the file it would have refused is never written.
    EXPECT_TRUE(hasErrors(exportPath(4100).diagnostics));
}
