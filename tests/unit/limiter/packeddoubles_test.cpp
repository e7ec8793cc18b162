// The byte format of the Redis scripts' states and replies (Lua struct.pack('<d…')).
#include "limiter/redis/packeddoubles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace qs::limiter;

TEST(PackedDoubles, MatchLuaStructPackByteForByte)
{
    // struct.pack('<dd', 7.5, 1700000000123456) in Redis' Lua, as documented in
    // docs/redis-layout.md: 0000000000001e40 0089806090281843.
    const std::vector<double> values{7.5, 1700000000123456.0};
    const std::string bytes = packDoubles(values);
    EXPECT_EQ(
        bytes, std::string("\x00\x00\x00\x00\x00\x00\x1e\x40\x00\x89\x80\x60\x90\x28\x18\x43", 16));

    double back[2];
    ASSERT_TRUE(unpackDoubles(bytes, back));
    EXPECT_EQ(back[0], 7.5);
    EXPECT_EQ(back[1], 1700000000123456.0); // µs below 2^53 are exact
}

TEST(PackedDoubles, RejectAnyOtherLength)
{
    double out[4];
    EXPECT_FALSE(unpackDoubles(std::string(31, '\0'), out));
    EXPECT_FALSE(unpackDoubles(std::string(33, '\0'), out));
    EXPECT_FALSE(unpackDoubles("", out));
    EXPECT_TRUE(unpackDoubles(std::string(32, '\0'), out));
    EXPECT_EQ(out[3], 0.0);
}
