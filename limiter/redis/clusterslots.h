#pragma once
// What a Redis Cluster says about where keys live: the CLUSTER SLOTS map and the MOVED / ASK
// redirections. Parsing only; RedisBackend decides what to do with them.
#include "limiter/redis/keyslot.h"
#include "limiter/redis/redisaddress.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct redisReply;

namespace qs::limiter {

struct SlotRange {
    int first = 0;
    int last = 0;
    RedisAddress master;
    std::vector<RedisAddress> replicas;
};

// CLUSTER SLOTS' reply; a node that announces no host ("" or "?") is at `askedHost`, the host
// the question went to. Empty when the reply is not a slot map.
std::vector<SlotRange> parseClusterSlots(const redisReply *reply, const std::string &askedHost);

// The same parse over any client's reply type (the monitor's has its own reader): `View` says
// what a reply is — isArray(r), size(r), at(r, i), isInteger(r), integer(r), isString(r),
// text(r) as a std::string_view. One rule for every client that reads the slot map.
template <class Reply, class View>
std::vector<SlotRange> parseClusterSlots(
    const Reply &reply, const std::string &askedHost, const View &view)
{
    const auto node = [&](const auto &n) -> std::optional<RedisAddress> {
        if (!view.isArray(n) || view.size(n) < 2 || !view.isString(view.at(n, 0))
            || !view.isInteger(view.at(n, 1)))
            return std::nullopt;
        std::string host(view.text(view.at(n, 0)));
        if (host.empty() || host == "?")
            host = askedHost;
        return RedisAddress{host, int(view.integer(view.at(n, 1)))};
    };
    std::vector<SlotRange> ranges;
    if (!view.isArray(reply))
        return ranges;
    for (std::size_t i = 0; i < view.size(reply); ++i) {
        const auto &e = view.at(reply, i); // a reference or a pointer, as the View gives it
        if (!view.isArray(e) || view.size(e) < 3 || !view.isInteger(view.at(e, 0))
            || !view.isInteger(view.at(e, 1)))
            return {};
        SlotRange r;
        const long long first = view.integer(view.at(e, 0)), last = view.integer(view.at(e, 1));
        const std::optional<RedisAddress> master = node(view.at(e, 2));
        if (!master || first < 0 || last >= kClusterSlots || first > last)
            return {};
        r.first = int(first);
        r.last = int(last);
        r.master = *master;
        for (std::size_t n = 3; n < view.size(e); ++n)
            if (const auto replica = node(view.at(e, n)))
                r.replicas.push_back(*replica);
        ranges.push_back(std::move(r));
    }
    return ranges;
}

struct Redirection {
    enum class Kind { Moved, Ask } kind = Kind::Moved;
    int slot = 0;
    RedisAddress to;
};
// "MOVED 3999 127.0.0.1:6381" / "ASK 3999 :6381" (no host: the one asked); nullopt otherwise.
std::optional<Redirection> parseRedirection(std::string_view error, const std::string &askedHost);

// Errors after which Redis did not run the command and says to try again shortly: TRYAGAIN
// (keys of a multi-key command mid-migration) and CLUSTERDOWN (no quorum, a failover under way).
bool isRetryLater(std::string_view error);

} // namespace qs::limiter
