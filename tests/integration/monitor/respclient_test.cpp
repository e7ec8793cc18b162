// The monitor's RESP client against real redis-server processes of the test's own: pipelined
// replies in order, authentication (password and ACL user) as a state that is not retried,
// a killed and restarted server recovered without reopening, a busy server reported as a
// timeout while the event loop keeps turning.
#include "model/monitor/respclient.h"
#include "tests/support/eventloopwait.h"
#include "tests/support/redisprocess.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <gtest/gtest.h>

using namespace qs;
using qs::test::RedisProcess;
using qs::test::spin;
using qs::test::waitUntil;

namespace {

RespClient::Options optionsFor(const RedisProcess &server)
{
    RespClient::Options o;
    o.port = quint16(server.port());
    o.reconnectMinMs = 50;
    o.reconnectMaxMs = 200;
    return o;
}

// Waits on the event loop until the client is in `state` (or `ms` pass).
bool waitFor(const RespClient &client, RespClient::State state, int ms = 5000)
{
    return waitUntil([&] { return client.state() == state; }, ms);
}

RespValue call(RespClient &client, const QList<QByteArray> &argv)
{
    RespValue out = RespValue::error("no reply");
    bool done = false;
    client.send(argv, [&](const RespValue &v) {
        out = v;
        done = true;
    });
    waitUntil([&] { return done; });
    return out;
}

} // namespace

TEST(RespClient, PipelinedRepliesComeBackInOrder)
{
    RedisProcess server;
    ASSERT_TRUE(server.start());
    RespClient client;
    client.open(optionsFor(server));
    // Sent before the connection is up: queued, then written in one pipeline.
    std::vector<QByteArray> got;
    for (int i = 0; i < 1000; ++i) {
        client.send({"SET", "k" + QByteArray::number(i), QByteArray::number(i)});
        client.send({"GET", "k" + QByteArray::number(i)},
            [&](const RespValue &v) { got.push_back(v.text); });
    }
    ASSERT_TRUE(waitFor(client, RespClient::State::Connected));
    QElapsedTimer t;
    t.start();
    while (got.size() < 1000 && t.elapsed() < 5000)
        spin(5);
    ASSERT_EQ(got.size(), 1000u);
    for (int i = 0; i < 1000; ++i)
        ASSERT_EQ(got[std::size_t(i)], QByteArray::number(i)) << i;
    const RespValue name = call(client, {"CLIENT", "GETNAME"});
    EXPECT_EQ(name.text, QByteArray("quota-studio-monitor"));
    EXPECT_EQ(client.commandsSent(), 1u + 2000u + 1u) << "SETNAME, the pipeline, GETNAME";
}

TEST(RespClient, AuthenticationFailureIsAStateNotARetryLoop)
{
    RedisProcess server({"--requirepass", "s3cret"});
    ASSERT_TRUE(server.start());
    RespClient client;
    RespClient::Options o = optionsFor(server);
    o.password = QStringLiteral("wrong");
    client.open(o);
    ASSERT_TRUE(waitFor(client, RespClient::State::AuthenticationFailed));
    EXPECT_FALSE(client.stateText().contains(QStringLiteral("wrong"))) << "never the password";
    const quint64 sent = client.commandsSent();
    spin(500);
    EXPECT_EQ(client.state(), RespClient::State::AuthenticationFailed);
    EXPECT_EQ(client.commandsSent(), sent) << "a wrong password is not retried";

    o.password = QStringLiteral("s3cret");
    client.open(o);
    ASSERT_TRUE(waitFor(client, RespClient::State::Connected));
    // A read-only ACL user: reads work, a write is refused by the server.
    EXPECT_EQ(
        call(client,
            {"ACL", "SETUSER", "monitor", "on", ">pw", "~*", "+@read", "+client|setname", "+ping"})
            .text,
        QByteArray("OK"));
    RespClient reader;
    RespClient::Options ro = optionsFor(server);
    ro.user = QStringLiteral("monitor");
    ro.password = QStringLiteral("pw");
    reader.open(ro);
    ASSERT_TRUE(waitFor(reader, RespClient::State::Connected)) << reader.stateText().toStdString();
    EXPECT_EQ(call(reader, {"GET", "nothing"}).type, RespValue::Type::Nil);
    EXPECT_TRUE(call(reader, {"SET", "x", "1"}).isError());
    ro.user = QStringLiteral("nobody");
    reader.open(ro);
    EXPECT_TRUE(waitFor(reader, RespClient::State::AuthenticationFailed));
}

TEST(RespClient, AKilledServerIsUnreachableThenRecoveredWithoutReopening)
{
    RedisProcess server;
    ASSERT_TRUE(server.start());
    RespClient client;
    client.open(optionsFor(server));
    ASSERT_TRUE(waitFor(client, RespClient::State::Connected));
    server.stop(); // SIGKILL
    ASSERT_TRUE(waitFor(client, RespClient::State::Unreachable));
    ASSERT_TRUE(server.start()); // same port
    ASSERT_TRUE(waitFor(client, RespClient::State::Connected)) << client.stateText().toStdString();
    EXPECT_EQ(call(client, {"PING"}).text, QByteArray("PONG"));
}

TEST(RespClient, ABusyServerIsATimeoutAndTheEventLoopKeepsTurning)
{
    RedisProcess server({"--enable-debug-command", "yes"});
    ASSERT_TRUE(server.start());
    RespClient client;
    RespClient::Options o = optionsFor(server);
    o.readTimeoutMs = 300;
    client.open(o);
    ASSERT_TRUE(waitFor(client, RespClient::State::Connected));
    int ticks = 0;
    QTimer probe;
    probe.setInterval(20);
    QObject::connect(&probe, &QTimer::timeout, [&] { ++ticks; });
    probe.start();
    const RespValue slept = call(client, {"DEBUG", "SLEEP", "1"});
    EXPECT_TRUE(slept.isError());
    EXPECT_TRUE(slept.text.contains("no reply within 300 ms")) << slept.text.toStdString();
    EXPECT_GT(ticks, 5) << "nothing blocked while waiting";
    ASSERT_TRUE(waitFor(client, RespClient::State::Connected)) << "back once the server wakes";
    EXPECT_EQ(call(client, {"PING"}).text, QByteArray("PONG"));
}

// Behind a deep pipeline the oldest command waits far longer than the read timeout while the
// server answers all along: that is not a server that is gone. 30 scripts of 20 ms each (padded
// to 16 KiB, so that the server reads, runs and answers them one at a time) take 600 ms against
// a timeout of 150 ms; the server is never silent for more than about 20 ms.
TEST(RespClient, TheTimeoutMeasuresTheServersSilenceNotThePipelinesDepth)
{
    RedisProcess server;
    ASSERT_TRUE(server.start());
    RespClient client;
    RespClient::Options o = optionsFor(server);
    o.readTimeoutMs = 150;
    client.open(o);
    ASSERT_TRUE(waitFor(client, RespClient::State::Connected));
    const QByteArray busy20ms
        = "local s = redis.call('TIME') local n repeat n = redis.call('TIME') "
          "until (n[1] - s[1]) * 1000000 + (n[2] - s[2]) >= 20000 return 1";
    int answered = 0, errors = 0;
    QElapsedTimer clock;
    clock.start();
    for (int i = 0; i < 30; ++i)
        client.send({"EVAL", busy20ms, "0", QByteArray(16 * 1024, 'x')}, [&](const RespValue &v) {
            ++answered;
            errors += v.isError() ? 1 : 0;
        });
    ASSERT_TRUE(waitUntil([&] { return answered == 30; }, 10'000));
    EXPECT_EQ(errors, 0) << "answered in " << clock.elapsed() << " ms";
    EXPECT_EQ(client.state(), RespClient::State::Connected);
    EXPECT_GT(clock.elapsed(), 4 * o.readTimeoutMs)
        << "the pipeline was not deeper than the timeout";
}

TEST(RespClient, AServerRunningALongScriptIsBusyThenBack)
{
    RedisProcess server({"--busy-reply-threshold", "100"});
    ASSERT_TRUE(server.start());
    RespClient client;
    RespClient::Options o = optionsFor(server);
    o.readTimeoutMs = 5000;
    client.open(o);
    ASSERT_TRUE(waitFor(client, RespClient::State::Connected));
    // A script that spins for 1.5 s: after 100 ms the server answers others with BUSY.
    ASSERT_EQ(std::system(("redis-cli -p " + std::to_string(server.port())
                  + " EVAL \"local t = redis.call('TIME') while true do local n = "
                    "redis.call('TIME') if (n[1] - t[1]) * 1000000 + n[2] - t[2] > "
                    "1500000 then break end end return 1\" 0 >/dev/null &")
                              .c_str()),
        0);
    spin(300);
    const RespValue reply = call(client, {"PING"});
    EXPECT_TRUE(reply.text.startsWith("BUSY")) << reply.text.toStdString();
    EXPECT_EQ(client.state(), RespClient::State::Busy) << client.stateText().toStdString();
    ASSERT_TRUE(waitFor(client, RespClient::State::Connected, 8000)) << "back once it is done";
    EXPECT_EQ(call(client, {"PING"}).text, QByteArray("PONG"));
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
