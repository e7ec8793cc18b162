#include "limiter/clusterslots.h"

#include <hiredis/hiredis.h>

#include <charconv>

namespace qs::limiter {

namespace {

std::optional<RedisAddress> nodeAddress(const redisReply *node, const std::string &askedHost)
{
    if (!node || node->type != REDIS_REPLY_ARRAY || node->elements < 2
        || node->element[0]->type != REDIS_REPLY_STRING
        || node->element[1]->type != REDIS_REPLY_INTEGER)
        return std::nullopt;
    std::string host(node->element[0]->str, node->element[0]->len);
    if (host.empty() || host == "?")
        host = askedHost;
    return RedisAddress{host, int(node->element[1]->integer)};
}

bool startsWith(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

} // namespace

std::vector<SlotRange> parseClusterSlots(const redisReply *reply, const std::string &askedHost)
{
    std::vector<SlotRange> ranges;
    if (!reply || reply->type != REDIS_REPLY_ARRAY)
        return ranges;
    for (size_t i = 0; i < reply->elements; ++i) {
        const redisReply *e = reply->element[i];
        if (e->type != REDIS_REPLY_ARRAY || e->elements < 3
            || e->element[0]->type != REDIS_REPLY_INTEGER
            || e->element[1]->type != REDIS_REPLY_INTEGER)
            return {};
        SlotRange r;
        r.first = int(e->element[0]->integer);
        r.last = int(e->element[1]->integer);
        const std::optional<RedisAddress> master = nodeAddress(e->element[2], askedHost);
        if (!master || r.first < 0 || r.last >= kClusterSlots || r.first > r.last)
            return {};
        r.master = *master;
        for (size_t n = 3; n < e->elements; ++n)
            if (const auto replica = nodeAddress(e->element[n], askedHost))
                r.replicas.push_back(*replica);
        ranges.push_back(std::move(r));
    }
    return ranges;
}

std::optional<Redirection> parseRedirection(std::string_view error, const std::string &askedHost)
{
    Redirection r;
    if (startsWith(error, "MOVED "))
        error.remove_prefix(6);
    else if (startsWith(error, "ASK ")) {
        r.kind = Redirection::Kind::Ask;
        error.remove_prefix(4);
    } else
        return std::nullopt;
    const std::size_t space = error.find(' ');
    if (space == std::string_view::npos)
        return std::nullopt;
    const auto [end, ec] = std::from_chars(error.data(), error.data() + space, r.slot);
    if (ec != std::errc() || end != error.data() + space || r.slot < 0 || r.slot >= kClusterSlots)
        return std::nullopt;
    std::string_view to = error.substr(space + 1);
    if (!to.empty() && to.front() == ':')
        to = std::string_view(); // ":6381": a host nobody announced, the one asked
    const RedisAddressList parsed = parseRedisAddresses(
        to.empty() ? askedHost + std::string(error.substr(space + 1)) : std::string(to));
    if (parsed.addresses.size() != 1)
        return std::nullopt;
    r.to = parsed.addresses.front();
    return r;
}

bool isRetryLater(std::string_view error)
{
    return startsWith(error, "TRYAGAIN") || startsWith(error, "CLUSTERDOWN");
}

} // namespace qs::limiter
