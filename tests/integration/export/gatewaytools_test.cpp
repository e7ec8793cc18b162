// The real nginx and haproxy that exporter tests rely on are present and check configs here.
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
