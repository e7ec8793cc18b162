#include "limiter/redismodule/request.h"

#include "limiter/algorithms/limitset.h"
#include "limiter/redis/redisscripts.h"
#include "limiter/redismodule/redismoduleapi.h"

#include <chrono>
#include <string_view>
#include <vector>

namespace qs::redismodule {

namespace {

// The scripts' bound for every number: below 2^53, so a double stores it exactly.
constexpr long long kMaxNumber = 4'000'000'000'000'000LL;

std::string_view text(RedisModuleString *s)
{
    std::size_t len = 0;
    const char *p = rm.StringPtrLen(s, &len);
    return {p, len};
}

// A whole number in [0, 4e15], as the scripts accept.
bool number(RedisModuleString *s, std::int64_t &out)
{
    long long v = 0;
    if (rm.StringToLongLong(s, &v) != kOk || v < 0 || v > kMaxNumber)
        return false;
    out = v;
    return true;
}

bool equalsIgnoringCase(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if ((a[i] | 0x20) != (b[i] | 0x20))
            return false;
    return true;
}

// A calendar fixed window's windows, as fixed_window.lua takes them (its calendar_arg).
bool setGivenWindows(limiter::AlgorithmConfig &config, std::string_view windows, std::string &error)
{
    auto *fixed = std::get_if<limiter::FixedWindowConfig>(&config);
    const auto given = limiter::parseGivenWindows(windows);
    if (!fixed || !given) {
        error = fixed ? "QS bad parameter: calendar windows are \"b0 b1 b2\" in µs, increasing, "
                        "got "
                + std::string(windows.substr(0, 64))
                      : "QS bad parameter: only fixed_window takes WINDOWS";
        return false;
    }
    fixed->calendar = std::make_shared<limiter::GivenWindows>(*given);
    return true;
}

} // namespace

bool windowsHoldNow(const limiter::AlgorithmConfig &config, const limiter::AlgorithmState &state,
    limiter::Micros now, std::string &error)
{
    const auto *fixed = std::get_if<limiter::FixedWindowConfig>(&config);
    const auto *s = std::get_if<limiter::FixedWindowState>(&state);
    if (!fixed || !fixed->calendar || !s)
        return true;
    const auto &given = static_cast<const limiter::GivenWindows &>(*fixed->calendar);
    const limiter::Micros t
        = s->windowStart == limiter::kNoTime ? now : std::max(now, s->windowStart);
    if (t < given.end())
        return true;
    error = "QS calendar windows end before Redis time " + std::to_string(t)
        + ": the caller's clock is a window behind";
    return false;
}

std::optional<Request> parseRequest(
    RedisModuleString **argv, int argc, bool withCost, std::string &error)
{
    const int first = withCost ? 4 : 3; // the first parameter
    if (argc < first) {
        error = "ERR wrong number of arguments";
        return std::nullopt;
    }
    Request r;
    r.key = argv[1];
    const std::string_view name = text(argv[2]);
    const auto algorithm = limiter::algorithmFromName(name);
    if (!algorithm) {
        error = "QS bad parameter: unknown algorithm '" + std::string(name.substr(0, 64)) + "' (";
        for (const limiter::Algorithm a : limiter::kAllAlgorithms)
            error += std::string(limiter::algorithmName(a))
                + (a == limiter::kAllAlgorithms.back() ? ")" : ", ");
        return std::nullopt;
    }
    r.algorithm = *algorithm;
    const int count = limiter::redisScriptParameterCount(r.algorithm);
    const int end = first + count;
    if (argc != end && argc != end + 2 && argc != end + 4) {
        error = "ERR wrong number of arguments: " + std::string(name) + " takes "
            + std::to_string(count) + " parameters" + (withCost ? " after the cost" : "")
            + ", then optionally NOW <microseconds> and WINDOWS <b0 b1 b2>";
        return std::nullopt;
    }
    if (withCost && !number(argv[3], r.cost)) {
        error = "QS bad parameter: the cost must be a whole number from 0 to 4e15, got '"
            + std::string(text(argv[3]).substr(0, 64)) + "'";
        return std::nullopt;
    }
    std::int64_t values[3] = {};
    for (int i = 0; i < count; ++i)
        if (!number(argv[first + i], values[i])) {
            error = "QS bad parameter: parameter " + std::to_string(i + 1) + " of "
                + std::string(name) + " must be a whole number from 0 to 4e15, got '"
                + std::string(text(argv[first + i]).substr(0, 64)) + "'";
            return std::nullopt;
        }
    std::string why;
    auto config = limiter::configFromScriptParameters(
        r.algorithm, std::span<const std::int64_t>(values, std::size_t(count)), why);
    if (!config) {
        error = "QS bad parameter: " + why;
        return std::nullopt;
    }
    r.config = std::move(*config);
    for (int at = end; at + 1 < argc; at += 2) {
        std::int64_t now = 0;
        if (equalsIgnoringCase(text(argv[at]), "NOW") && !r.now && number(argv[at + 1], now)) {
            r.now = now;
        } else if (equalsIgnoringCase(text(argv[at]), "WINDOWS")) {
            if (!setGivenWindows(r.config, text(argv[at + 1]), error))
                return std::nullopt;
        } else {
            error = "QS bad parameter: after the parameters only NOW <microseconds since the "
                    "epoch> and WINDOWS <b0 b1 b2> may follow";
            return std::nullopt;
        }
    }
    return r;
}

std::optional<SeveralRequest> parseSeveralRequest(
    RedisModuleString **argv, int argc, std::string &error)
{
    std::int64_t n = 0;
    if (argc < 2 || !number(argv[1], n) || n < 1 || n > std::int64_t(limiter::kMaxLimitsPerRequest)
        || argc != 3 + 7 * n) {
        error = "QS bad parameter: QS.DECIDEALL takes the number of keys (1 to "
            + std::to_string(limiter::kMaxLimitsPerRequest)
            + "), the keys, now (or ''), then six arguments per key";
        return std::nullopt;
    }
    SeveralRequest r;
    const int nowAt = 2 + int(n);
    if (!text(argv[nowAt]).empty()) {
        std::int64_t now = 0;
        if (!number(argv[nowAt], now)) {
            error = "QS bad parameter: now must be a number, got '"
                + std::string(text(argv[nowAt]).substr(0, 64)) + "'";
            return std::nullopt;
        }
        r.now = now;
    }
    for (int i = 0; i < int(n); ++i) {
        RedisModuleString **a = argv + nowAt + 1 + 6 * i;
        LimitRequest l;
        l.key = argv[2 + i];
        const std::string_view name = text(a[0]);
        const auto algorithm = limiter::algorithmFromName(name);
        if (!algorithm) {
            error = "QS bad parameter: unknown algorithm " + std::string(name.substr(0, 64));
            return std::nullopt;
        }
        const std::string_view shadow = text(a[2]);
        std::int64_t values[3] = {};
        const int count = limiter::redisScriptParameterCount(*algorithm);
        bool ok = number(a[1], l.cost) && (shadow == "0" || shadow == "1")
            && (count == 3 || text(a[5]).empty() || *algorithm == limiter::Algorithm::FixedWindow);
        for (int p = 0; ok && p < count; ++p)
            ok = number(a[3 + p], values[p]);
        if (!ok) {
            error = "QS bad parameter: cost and parameters must be numbers >= 0, shadow 1 or 0, "
                    "for limit "
                + std::to_string(i + 1);
            return std::nullopt;
        }
        l.shadow = shadow == "1";
        std::string why;
        auto config = limiter::configFromScriptParameters(
            *algorithm, std::span<const std::int64_t>(values, std::size_t(count)), why);
        if (!config) {
            error = "QS bad parameter: " + why;
            return std::nullopt;
        }
        l.config = std::move(*config);
        if (*algorithm == limiter::Algorithm::FixedWindow && !text(a[5]).empty()
            && !setGivenWindows(l.config, text(a[5]), error))
            return std::nullopt;
        r.limits.push_back(std::move(l));
    }
    return r;
}

limiter::Micros serverNow()
{
    using namespace std::chrono;
    return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

} // namespace qs::redismodule
