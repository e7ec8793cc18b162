#include "limiter/redis/redisscripts.h"

#include <string>

namespace qs::limiter {

std::string_view redisScript(Algorithm algorithm)
{
    // Built once: the script's text is what SCRIPT LOAD hashes, so it must not change between
    // calls (a static local is initialised once, thread-safely).
    static const std::array<std::string, kAlgorithmCount> kScripts = [] {
        std::array<std::string, kAlgorithmCount> out;
        for (Algorithm a : kAllAlgorithms) {
            const std::string_view body = detail::embeddedLua(algorithmName(a));
            if (!body.empty())
                out[std::size_t(a)] = "local nparams = "
                    + std::to_string(redisScriptParameterCount(a)) + '\n' + std::string(body);
        }
        return out;
    }();
    return kScripts[std::size_t(algorithm)];
}

std::string_view redisSeveralScript()
{
    return detail::embeddedLua("several");
}

std::string_view redisSeveralRefundScript()
{
    return detail::embeddedLua("several_refund");
}

} // namespace qs::limiter
