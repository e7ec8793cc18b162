#include "model/export/limitshape.h"

#include <array>

namespace qs {

__extension__ typedef __int128 Wide; // GCC/Clang; -Wpedantic knows no __int128

LimitShape limitShape(const limiter::AlgorithmConfig &config)
{
    return std::visit(
        [](const auto &c) -> LimitShape {
            using C = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<C, limiter::TokenBucketConfig>)
                return {c.refill.count, c.refill.period, c.capacity, false, false};
            else if constexpr (std::is_same_v<C, limiter::GcraConfig>)
                return {c.rate.count, c.rate.period, c.burst, false, false};
            else if constexpr (std::is_same_v<C, limiter::LeakyBucketConfig>)
                // Police mode admits the request in service plus a full queue back to back.
                return {c.rate.count, c.rate.period, c.queue + 1, false,
                    c.mode == limiter::LeakMode::Shape};
            else
                return {c.limit, c.window, c.limit, true, false};
        },
        config);
}

std::optional<UnitRate> toUnitRate(qint64 count, limiter::Micros period)
{
    struct Unit {
        const char *name;
        limiter::Micros micros;
    };
    static constexpr std::array<Unit, 4> units{{{"second", limiter::kMicrosPerSecond},
        {"minute", 60 * limiter::kMicrosPerSecond}, {"hour", 3600 * limiter::kMicrosPerSecond},
        {"day", 86400 * limiter::kMicrosPerSecond}}};
    // Start at the longest unit that is not longer than the period: a shorter one would spread
    // a window's worth over finer windows, a longer one would allow a bigger burst than designed.
    std::size_t first = 0;
    while (first + 1 < units.size() && units[first + 1].micros <= period)
        ++first;
    for (std::size_t u = first; u < units.size(); ++u) {
        const Wide scaled = Wide(count) * units[u].micros;
        const qint64 perUnit = qint64(scaled / period);
        if (perUnit < 1)
            continue; // too coarse to hold one request: try a longer unit
        return UnitRate{QString::fromLatin1(units[u].name), units[u].micros, perUnit,
            period == units[u].micros, scaled % period == 0};
    }
    return std::nullopt;
}

} // namespace qs
