#include "limiter/redis/redisaddress.h"

#include <charconv>

namespace qs::limiter {

std::string RedisAddress::text() const
{
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

namespace {

// Built by append: GCC 12 warns falsely (-Wrestrict) on "'" + std::string(…) + "…".
std::string problem(std::string_view item, std::string_view what)
{
    std::string text("'");
    text.append(item).append("'").append(what);
    return text;
}

std::string parseOne(std::string_view item, RedisAddress &out)
{
    const std::size_t colon = item.rfind(':');
    if (colon == std::string_view::npos || colon == 0)
        return problem(item, " is not HOST:PORT, e.g. 127.0.0.1:6379");
    std::string_view host = item.substr(0, colon);
    const std::string_view port = item.substr(colon + 1);
    if (host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    int number = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), number);
    if (ec != std::errc() || end != port.data() + port.size() || number <= 0 || number > 65535)
        return problem(item, ": the port must be a number from 1 to 65535");
    if (host.empty() || host.find_first_of("[] ") != std::string_view::npos)
        return problem(item, ": no host (IPv6 addresses go in brackets: [::1]:6379)");
    out = RedisAddress{std::string(host), number};
    return {};
}

} // namespace

RedisAddressList parseRedisAddresses(std::string_view list)
{
    RedisAddressList result;
    std::size_t at = 0;
    while (at <= list.size()) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        RedisAddress address;
        if (std::string error = parseOne(list.substr(at, comma - at), address); !error.empty())
            return {{}, error};
        result.addresses.push_back(address);
        at = comma + 1;
    }
    return result;
}

} // namespace qs::limiter
