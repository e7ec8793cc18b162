#pragma once
// What a Redis Cluster says about where keys live: the CLUSTER SLOTS map and the MOVED / ASK
// redirections. Parsing only; RedisBackend decides what to do with them.
#include "limiter/keyslot.h"
#include "limiter/redisaddress.h"

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
