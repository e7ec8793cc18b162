// RespWriter against hiredis' own formatter: the bytes must be identical.
#include "limiter/redis/respwriter.h"

#include <hiredis/hiredis.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

using qs::limiter::RespWriter;

namespace {

std::string hiredisFormat(const std::vector<std::string> &args)
{
    std::vector<const char *> argv;
    std::vector<size_t> lens;
    for (const auto &a : args) {
        argv.push_back(a.data());
        lens.push_back(a.size());
    }
    char *out = nullptr;
    const int n = redisFormatCommandArgv(&out, int(args.size()), argv.data(), lens.data());
    std::string bytes(out, std::size_t(n));
    redisFreeCommand(out);
    return bytes;
}

} // namespace

TEST(RespWriter, WritesExactlyWhatHiredisWrites)
{
    RespWriter w;
    w.begin(8);
    w.arg(std::string_view("EVALSHA"));
    w.arg(std::string_view("0123456789abcdef0123456789abcdef01234567"));
    w.arg(std::string_view("1"));
    w.arg({"qs:login", ":", "203.0.113.7"});
    w.arg(std::int64_t(3));
    w.arg(std::int64_t(-1));
    w.arg(std::string_view()); // empty argument
    w.arg({"qs:login", ":~metrics"});
    EXPECT_EQ(w.bytes(),
        hiredisFormat({"EVALSHA", "0123456789abcdef0123456789abcdef01234567", "1",
            "qs:login:203.0.113.7", "3", "-1", "", "qs:login:~metrics"}));
}

TEST(RespWriter, BinaryArgumentsAndReuse)
{
    RespWriter w;
    w.begin(2);
    w.arg(std::string_view("SET"));
    w.arg(std::string_view("a\r\nb\0c", 6)); // length-prefixed: CR, LF and NUL pass through
    EXPECT_EQ(w.bytes(), hiredisFormat({"SET", std::string("a\r\nb\0c", 6)}));

    w.begin(1); // a new command replaces the previous one
    w.arg(std::int64_t(1700000000123456));
    EXPECT_EQ(w.bytes(), hiredisFormat({"1700000000123456"}));
}
