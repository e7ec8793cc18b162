#pragma once
// A redis-server of a benchmark's own: daemonized on a random loopback port with no persistence,
// in a directory the caller owns, and the server's clock (the monitor's time base).
#include <hiredis/hiredis.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

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

// INFO commandstats: command -> (calls, usec), INFO itself left out.
inline std::map<std::string, std::pair<long long, long long>> commandStats(redisContext *c)
{
    auto *r = static_cast<redisReply *>(redisCommand(c, "INFO commandstats"));
    std::map<std::string, std::pair<long long, long long>> stats;
    if (!r || r->type != REDIS_REPLY_STRING) {
        freeReplyObject(r);
        return stats;
    }
    std::istringstream in(std::string(r->str, r->len));
    freeReplyObject(r);
    std::string line;
    while (std::getline(in, line)) {
        const auto colon = line.find(':'), calls = line.find("calls="), usec = line.find("usec=");
        if (line.rfind("cmdstat_", 0) == 0 && line.rfind("cmdstat_info", 0) != 0
            && calls != std::string::npos && usec != std::string::npos)
            stats[line.substr(8, colon - 8)]
                = {std::stoll(line.substr(calls + 6)), std::stoll(line.substr(usec + 5))};
    }
    return stats;
}

} // namespace qs::bench
