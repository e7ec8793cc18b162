// Redis Cluster arithmetic and parsing, without a server: key slots (the specification's
// reference values, as CLUSTER KEYSLOT answers them), redirections and seed lists.
#include "limiter/redis/clusterslots.h"
#include "limiter/redis/keyslot.h"
#include "limiter/redis/redisaddress.h"

#include <hiredis/hiredis.h>

#include <gtest/gtest.h>

#include <memory>

namespace qs::limiter {
namespace {

TEST(KeySlot, Crc16IsTheXmodemVariantTheSpecificationNames)
{
    EXPECT_EQ(crc16Xmodem("123456789"), 0x31C3);
    EXPECT_EQ(crc16Xmodem(""), 0);
}

TEST(KeySlot, SlotsAndHashTagsAsRedisComputesThem)
{
    // Values from CLUSTER KEYSLOT on Redis 7.0.
    EXPECT_EQ(keySlot("foo"), 12182);
    EXPECT_EQ(keySlot("user1000"), 3443);
    EXPECT_EQ(keySlot("{user1000}.following"), 3443); // the tag alone is hashed
    EXPECT_EQ(keySlot("foo{}{bar}"), 8363); // an empty first tag: the whole key
    EXPECT_EQ(keySlot("foo{{bar}}zap"), 4015); // the tag is "{bar"
    EXPECT_EQ(keySlot("{bar"), 4015);
    EXPECT_LT(keySlot(std::string(1000, 'x')), kClusterSlots);
}

TEST(Redirection, MovedAndAskWithAndWithoutAHost)
{
    auto r = parseRedirection("MOVED 3999 127.0.0.1:6381", "10.0.0.1");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->kind, Redirection::Kind::Moved);
    EXPECT_EQ(r->slot, 3999);
    EXPECT_EQ(r->to, (RedisAddress{"127.0.0.1", 6381}));
    r = parseRedirection("ASK 16383 :7002", "127.0.0.1"); // no announced host: the one asked
    ASSERT_TRUE(r);
    EXPECT_EQ(r->kind, Redirection::Kind::Ask);
    EXPECT_EQ(r->slot, 16383);
    EXPECT_EQ(r->to, (RedisAddress{"127.0.0.1", 7002}));
    r = parseRedirection("MOVED 1 [::1]:7000", "x");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->to, (RedisAddress{"::1", 7000}));
    for (const char *notOne : {"MOVED", "MOVED 16384 127.0.0.1:1", "MOVED x 127.0.0.1:1",
             "MOVED 1 127.0.0.1", "ERR wrong", "WRONGTYPE Operation", ""})
        EXPECT_FALSE(parseRedirection(notOne, "127.0.0.1")) << notOne;
}

// CLUSTER SLOTS as Redis 7 sends it, read by hiredis's reader: the backend's parse, and the
// same template the monitor uses with its own reply type.
TEST(ClusterSlots, RangesMastersReplicasAndAnUnannouncedHost)
{
    const std::string resp = "*2\r\n"
                             "*4\r\n:0\r\n:8191\r\n"
                             "*3\r\n$9\r\n127.0.0.1\r\n:7000\r\n$2\r\nid\r\n"
                             "*3\r\n$1\r\n?\r\n:7003\r\n$2\r\nid\r\n"
                             "*3\r\n:8192\r\n:16383\r\n"
                             "*3\r\n$0\r\n\r\n:7001\r\n$2\r\nid\r\n";
    redisReader *reader = redisReaderCreate();
    ASSERT_EQ(redisReaderFeed(reader, resp.data(), resp.size()), REDIS_OK);
    void *raw = nullptr;
    ASSERT_EQ(redisReaderGetReply(reader, &raw), REDIS_OK);
    redisReaderFree(reader);
    ASSERT_TRUE(raw);
    const std::unique_ptr<redisReply, void (*)(void *)> reply(
        static_cast<redisReply *>(raw), freeReplyObject);
    const std::vector<SlotRange> ranges = parseClusterSlots(reply.get(), "10.0.0.5");
    ASSERT_EQ(ranges.size(), 2u);
    EXPECT_EQ(ranges[0].first, 0);
    EXPECT_EQ(ranges[0].last, 8191);
    EXPECT_EQ(ranges[0].master, (RedisAddress{"127.0.0.1", 7000}));
    ASSERT_EQ(ranges[0].replicas.size(), 1u);
    EXPECT_EQ(ranges[0].replicas[0], (RedisAddress{"10.0.0.5", 7003})) << "`?`: the host asked";
    EXPECT_EQ(ranges[1].master, (RedisAddress{"10.0.0.5", 7001})) << "empty: the host asked";
    EXPECT_TRUE(ranges[1].replicas.empty());
    // A range past the last slot, or not a slot map at all: no map, not half of one.
    const std::string bad = "*1\r\n*3\r\n:0\r\n:16384\r\n*2\r\n$1\r\na\r\n:1\r\n";
    reader = redisReaderCreate();
    ASSERT_EQ(redisReaderFeed(reader, bad.data(), bad.size()), REDIS_OK);
    ASSERT_EQ(redisReaderGetReply(reader, &raw), REDIS_OK);
    redisReaderFree(reader);
    EXPECT_TRUE(parseClusterSlots(static_cast<redisReply *>(raw), "h").empty());
    freeReplyObject(raw);
}

TEST(Redirection, TryAgainAndClusterDownAreRetriedNothingElse)
{
    EXPECT_TRUE(isRetryLater("TRYAGAIN Multiple keys request during rehashing of slot"));
    EXPECT_TRUE(isRetryLater("CLUSTERDOWN The cluster is down"));
    EXPECT_FALSE(isRetryLater("ERR CLUSTERDOWN")); // only the error code counts
    EXPECT_FALSE(isRetryLater("NOSCRIPT No matching script"));
}

TEST(RedisAddresses, SeedListsWithIpv6AndClearErrors)
{
    const RedisAddressList ok = parseRedisAddresses("127.0.0.1:7000,[::1]:7001,redis-a:6379");
    ASSERT_TRUE(ok.error.empty()) << ok.error;
    ASSERT_EQ(ok.addresses.size(), 3u);
    EXPECT_EQ(ok.addresses[1], (RedisAddress{"::1", 7001}));
    EXPECT_EQ(ok.addresses[1].text(), "[::1]:7001");
    EXPECT_EQ(ok.addresses[2].text(), "redis-a:6379");
    const struct {
        const char *list;
        const char *says;
    } bad[] = {{"", "'' is not HOST:PORT"}, {"nowhere", "'nowhere' is not HOST:PORT"},
        {"127.0.0.1:7000,", "'' is not HOST:PORT"}, {"h:0", "port must be a number from 1"},
        {"h:65536", "port must be"}, {"h:12x", "port must be"}, {":7000", "is not HOST:PORT"},
        {"[]:7000", "no host"}};
    for (const auto &b : bad) {
        const RedisAddressList r = parseRedisAddresses(b.list);
        EXPECT_TRUE(r.addresses.empty()) << b.list;
        EXPECT_NE(r.error.find(b.says), std::string::npos) << b.list << ": " << r.error;
    }
}

} // namespace
} // namespace qs::limiter
