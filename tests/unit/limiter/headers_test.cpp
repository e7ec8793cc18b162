#include "limiter/algorithms/headers.h"

#include <gtest/gtest.h>

using namespace qs::limiter;

namespace {
std::string valueOf(const std::vector<Header> &headers, const std::string &name)
{
    for (const Header &h : headers)
        if (h.name == name)
            return h.value;
    return "<absent>";
}
} // namespace

TEST(Headers, DraftHeadersOnAnAdmittedRequest)
{
    Decision d;
    d.allowed = true;
    d.limit = 10;
    d.remaining = 3;
    d.window = 5 * kMicrosPerSecond;
    d.resetAfter = 1'200'000; // rounds up: a client that waits t seconds is never early
    const auto h = responseHeaders(d, "login", HeaderStyle::Draft);
    EXPECT_EQ(valueOf(h, "RateLimit-Policy"), "\"login\";q=10;w=5");
    EXPECT_EQ(valueOf(h, "RateLimit"), "\"login\";r=3;t=2");
    EXPECT_EQ(valueOf(h, "Retry-After"), "<absent>");
    EXPECT_EQ(valueOf(h, "X-RateLimit-Limit"), "<absent>");
}

TEST(Headers, DenialCarriesRetryAfterNeverEarly)
{
    Decision d;
    d.reason = Reason::LimitExceeded;
    d.limit = 100;
    d.window = kMicrosPerMinute;
    d.retryAfter = 500'000;
    d.resetAfter = 30 * kMicrosPerSecond;
    const auto h = responseHeaders(d, "api", HeaderStyle::XRateLimit);
    EXPECT_EQ(valueOf(h, "X-RateLimit-Limit"), "100");
    EXPECT_EQ(valueOf(h, "X-RateLimit-Remaining"), "0");
    EXPECT_EQ(valueOf(h, "X-RateLimit-Reset"), "30");
    EXPECT_EQ(valueOf(h, "Retry-After"), "1");
    EXPECT_EQ(valueOf(h, "RateLimit"), "<absent>");
}

TEST(Headers, CostThatNeverFitsGetsNoRetryAfterAndNamesAreEscaped)
{
    Decision d;
    d.reason = Reason::CostExceedsLimit;
    d.limit = 1;
    const auto h = responseHeaders(d, "a\"b\\c\n", HeaderStyle::Both);
    EXPECT_EQ(valueOf(h, "Retry-After"), "<absent>");
    EXPECT_EQ(valueOf(h, "RateLimit-Policy"), "\"a\\\"b\\\\c\";q=1;w=0");
    EXPECT_EQ(h.size(), 5u);
}
