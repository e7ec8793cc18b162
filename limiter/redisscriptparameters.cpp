#include "limiter/redisscripts.h"

namespace qs::limiter {

ScriptParameters redisScriptParameterValues(const AlgorithmConfig &config)
{
    return std::visit(
        [](const auto &c) -> ScriptParameters {
            using C = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<C, TokenBucketConfig>)
                return {{c.capacity, c.refill.count, c.refill.period}, 3};
            else if constexpr (std::is_same_v<C, GcraConfig>)
                return {{c.rate.count > 0 ? c.rate.intervalCeil() : -1, c.burst, 0}, 2};
            else if constexpr (std::is_same_v<C, LeakyBucketConfig>)
                return {{c.rate.count > 0 ? c.rate.intervalCeil() : -1, c.queue,
                            c.mode == LeakMode::Shape ? 1 : 0},
                    3};
            else
                return {{c.limit, c.window, 0}, 2};
        },
        config);
}

} // namespace qs::limiter
