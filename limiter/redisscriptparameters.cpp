#include "limiter/redisscripts.h"

namespace qs::limiter {

namespace {
std::string str(std::int64_t n)
{
    return std::to_string(n);
}
} // namespace

std::vector<std::string> redisScriptParameters(const AlgorithmConfig &config)
{
    return std::visit(
        [](const auto &c) -> std::vector<std::string> {
            using C = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<C, TokenBucketConfig>)
                return {str(c.capacity), str(c.refill.count), str(c.refill.period)};
            else if constexpr (std::is_same_v<C, GcraConfig>)
                return {str(c.rate.intervalCeil()), str(c.burst)};
            else if constexpr (std::is_same_v<C, LeakyBucketConfig>)
                return {str(c.rate.intervalCeil()), str(c.queue),
                    c.mode == LeakMode::Shape ? "1" : "0"};
            else
                return {str(c.limit), str(c.window)};
        },
        config);
}

} // namespace qs::limiter
