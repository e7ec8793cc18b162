// The real nginx and haproxy that exporter tests rely on are present and check configs here.
#include "tests/support/gatewayconfig.h"
#include "tests/support/testsupport.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using qs::test::requireTool;
using qs::test::run;

TEST(GatewayTools, NginxChecksAConfigInItsOwnPrefix)
{
    const std::string nginx = requireTool("nginx", QS_NGINX);
    if (nginx.empty())
        GTEST_SKIP() << "nginx missing";
    const std::string dir = qs::test::makeTempDir("qs-nginx-");
    std::ofstream(dir + "/nginx.conf")
        << "pid " << dir << "/nginx.pid;\n"
        << "error_log " << dir << "/error.log;\n"
        << "events {}\n"
        << "http { access_log off;\n"
           "  limit_req_zone $binary_remote_addr zone=t:1m rate=2r/s;\n"
           "  server { listen 127.0.0.1:18080;\n"
           "    location / { limit_req zone=t burst=9 nodelay; } } }\n";
    std::string out;
    EXPECT_EQ(run(nginx + " -t -q -c " + dir + "/nginx.conf -p " + dir, &out), 0) << out;
    // And it rejects a broken one: the check is real.
    std::ofstream(dir + "/bad.conf") << "events {}\nhttp { limit_req zone=nope; }\n";
    EXPECT_NE(run(nginx + " -t -q -c " + dir + "/bad.conf -p " + dir, &out), 0);
    std::filesystem::remove_all(dir);
}

TEST(GatewayTools, HaproxyChecksAConfig)
{
    const std::string haproxy = requireTool("haproxy", QS_HAPROXY);
    if (haproxy.empty())
        GTEST_SKIP() << "haproxy missing";
    const std::string dir = qs::test::makeTempDir("qs-haproxy-");
    std::ofstream(dir + "/ok.cfg") << "defaults\n  mode http\n  timeout client 5s\n"
                                      "  timeout server 5s\n  timeout connect 1s\n"
                                      "frontend f\n  bind 127.0.0.1:18081\n"
                                      "  http-request return status 200\n";
    std::string out;
    EXPECT_EQ(run(haproxy + " -c -q -f " + dir + "/ok.cfg", &out), 0) << out;
    std::ofstream(dir + "/bad.cfg") << "frontend f\n  bogus-directive yes\n";
    EXPECT_NE(run(haproxy + " -c -q -f " + dir + "/bad.cfg", &out), 0);
    std::filesystem::remove_all(dir);
}

// The readers the export tests judge injections with: what sits in a comment is not a
// directive, quotes keep ';', '#' and braces, and a silent failure is still a failure.
TEST(GatewayTools, ConfigReadersSeeDirectivesNotComments)
{
    const auto nginx = qs::test::nginxDirectives(
        "# route x; server { listen 9999; }\n"
        "http { map $a $b { \"~^a;b#c{\" x; }\n  server { listen 127.0.0.1:1; } }\n");
    const std::vector<std::string> expected{
        "http", "map $a $b", "\"~^a;b#c{\" x", "server", "listen 127.0.0.1:1"};
    EXPECT_EQ(nginx, expected);
    const auto haproxy = qs::test::haproxyLines(
        "# route x\nfrontend f\n    bind 127.0.0.1:1   # note\n  acl a path_reg '^/#x$'\n\n");
    const std::vector<std::string> lines{
        "frontend f", "bind 127.0.0.1:1", "acl a path_reg '^/#x$'"};
    EXPECT_EQ(haproxy, lines);
    EXPECT_EQ(qs::test::checkerVerdict(0, "warnings"), "");
    EXPECT_EQ(qs::test::checkerVerdict(1, "bad line 3"), "bad line 3");
    EXPECT_NE(qs::test::checkerVerdict(1, ""), "") << "a failure without output is a failure";
}
