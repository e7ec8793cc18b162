#pragma once
// Where a Redis server listens, and the seed lists operators type: "host:port[,host:port…]",
// IPv6 addresses in brackets ("[::1]:6379"). One server or a cluster's seed nodes alike.
#include <string>
#include <string_view>
#include <vector>

namespace qs::limiter {

struct RedisAddress {
    std::string host = "127.0.0.1";
    int port = 6379;

    std::string text() const; // "host:port", "[::1]:port"
    bool operator==(const RedisAddress &) const = default;
};

struct RedisAddressList {
    std::vector<RedisAddress> addresses; // empty when error is set
    std::string error; // what is wrong and where, for the operator
};
RedisAddressList parseRedisAddresses(std::string_view list);

} // namespace qs::limiter
