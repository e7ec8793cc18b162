#pragma once
// A redis-server of a benchmark's own: daemonized on a random loopback port with no persistence,
// in a directory the caller owns, and the server's clock (the monitor's time base).
#include <hiredis/hiredis.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>

namespace qs::bench {

// The port it listens on, or 0 when it did not start. Stop it with SHUTDOWN NOSAVE or the pid
// in <dir>/redis.pid.
inline int startRedis(const std::string &dir)
{
    const int port = 30000 + int(std::random_device{}() % 20000);
    if (std::system(("redis-server --port " + std::to_string(port)
            + " --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir " + dir
            + " --pidfile " + dir + "/redis.pid --loglevel warning")
                        .c_str())
        != 0)
        return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return port;
}

inline long long redisTimeUs(redisContext *c)
{
    auto *t = static_cast<redisReply *>(redisCommand(c, "TIME"));
    const long long us
        = std::atoll(t->element[0]->str) * 1'000'000 + std::atoll(t->element[1]->str);
    freeReplyObject(t);
    return us;
}

} // namespace qs::bench
