// Talks to the real redis-server that the ctest fixture started on a free loopback port.
#include <hiredis/hiredis.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

namespace {

int fixturePort()
{
    const char *port = std::getenv("QS_TEST_REDIS_PORT");
    return port ? std::atoi(port) : 0;
}

struct ContextDeleter {
    void operator()(redisContext *c) const { redisFree(c); }
};
struct ReplyDeleter {
    void operator()(redisReply *r) const { freeReplyObject(r); }
};

} // namespace

TEST(RedisFixture, AnswersPingOnLoopback)
{
    const int port = fixturePort();
    ASSERT_GT(port, 0) << "QS_TEST_REDIS_PORT is not set: run through ctest (fixture 'redis')";
    const timeval timeout{2, 0};
    std::unique_ptr<redisContext, ContextDeleter> c(
        redisConnectWithTimeout("127.0.0.1", port, timeout));
    ASSERT_TRUE(c && !c->err) << (c ? c->errstr : "out of memory");
    std::unique_ptr<redisReply, ReplyDeleter> reply(
        static_cast<redisReply *>(redisCommand(c.get(), "PING")));
    ASSERT_TRUE(reply);
    ASSERT_EQ(reply->type, REDIS_REPLY_STATUS);
    EXPECT_EQ(std::string(reply->str, reply->len), "PONG");
}

TEST(RedisFixture, HasNoPersistence)
{
    const int port = fixturePort();
    ASSERT_GT(port, 0);
    const timeval timeout{2, 0};
    std::unique_ptr<redisContext, ContextDeleter> c(
        redisConnectWithTimeout("127.0.0.1", port, timeout));
    ASSERT_TRUE(c && !c->err);
    std::unique_ptr<redisReply, ReplyDeleter> reply(
        static_cast<redisReply *>(redisCommand(c.get(), "CONFIG GET save")));
    ASSERT_TRUE(reply && reply->type == REDIS_REPLY_ARRAY && reply->elements == 2);
    EXPECT_EQ(std::string(reply->element[1]->str), "");
}
