#include "limiter/redis/clusterslots.h"

#include <hiredis/hiredis.h>

#include <charconv>

namespace qs::limiter {

namespace {

// hiredis's reply, as parseClusterSlots() reads replies.
struct HiredisView {
    static bool isArray(const redisReply *r) { return r && r->type == REDIS_REPLY_ARRAY; }
    static std::size_t size(const redisReply *r) { return r->elements; }
    static const redisReply *at(const redisReply *r, std::size_t i) { return r->element[i]; }
    static bool isInteger(const redisReply *r) { return r && r->type == REDIS_REPLY_INTEGER; }
    static long long integer(const redisReply *r) { return r->integer; }
    static bool isString(const redisReply *r) { return r && r->type == REDIS_REPLY_STRING; }
    static std::string_view text(const redisReply *r) { return {r->str, r->len}; }
};

bool startsWith(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

} // namespace

std::vector<SlotRange> parseClusterSlots(const redisReply *reply, const std::string &askedHost)
{
    return parseClusterSlots(reply, askedHost, HiredisView{});
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
