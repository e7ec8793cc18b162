#include "limiter/algorithms/headers.h"

namespace qs::limiter {

namespace {

// Structured-field string: quote and escape, drop what a header value cannot carry.
std::string sfString(std::string_view text)
{
    std::string out = "\"";
    for (char ch : text) {
        if (ch == '"' || ch == '\\')
            out += '\\';
        if (ch >= 0x20 && ch < 0x7f)
            out += ch;
    }
    out += '"';
    return out;
}

} // namespace

std::int64_t secondsCeil(Micros us)
{
    return us <= 0 ? 0 : (us + kMicrosPerSecond - 1) / kMicrosPerSecond;
}

std::vector<Header> responseHeaders(
    const Decision &d, std::string_view policyName, HeaderStyle style)
{
    std::vector<Header> headers;
    const std::string name = sfString(policyName);
    const std::int64_t reset
        = secondsCeil(d.allowed ? d.resetAfter : std::max(d.resetAfter, d.retryAfter));
    if (style == HeaderStyle::Draft || style == HeaderStyle::Both) {
        headers.push_back({"RateLimit-Policy",
            name + ";q=" + std::to_string(d.limit)
                + ";w=" + std::to_string(secondsCeil(d.window))});
        headers.push_back({"RateLimit",
            name + ";r=" + std::to_string(d.remaining) + ";t=" + std::to_string(reset)});
    }
    if (style == HeaderStyle::XRateLimit || style == HeaderStyle::Both) {
        headers.push_back({"X-RateLimit-Limit", std::to_string(d.limit)});
        headers.push_back({"X-RateLimit-Remaining", std::to_string(d.remaining)});
        headers.push_back({"X-RateLimit-Reset", std::to_string(reset)});
    }
    if (!d.allowed && d.reason == Reason::LimitExceeded)
        headers.push_back(
            {"Retry-After", std::to_string(std::max<std::int64_t>(1, secondsCeil(d.retryAfter)))});
    return headers;
}

std::vector<Header> responseHeaders(
    std::span<const PolicyItem> items, const Decision &d, HeaderStyle style)
{
    std::vector<Header> headers;
    if (style == HeaderStyle::Draft || style == HeaderStyle::Both) {
        std::string policy, now;
        for (const PolicyItem &item : items) {
            const std::string name = sfString(item.name);
            policy += (policy.empty() ? "" : ", ") + name + ";q=" + std::to_string(item.quota)
                + ";w=" + std::to_string(secondsCeil(item.window));
            now += (now.empty() ? "" : ", ") + name + ";r=" + std::to_string(item.remaining)
                + ";t=" + std::to_string(secondsCeil(item.reset));
        }
        headers.push_back({"RateLimit-Policy", policy});
        headers.push_back({"RateLimit", now});
    }
    for (Header &h : responseHeaders(d, {}, style))
        if (h.name != "RateLimit-Policy" && h.name != "RateLimit")
            headers.push_back(std::move(h));
    return headers;
}

} // namespace qs::limiter
