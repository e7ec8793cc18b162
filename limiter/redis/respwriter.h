#pragma once
// Writes one Redis command in RESP (an array of bulk strings) into a reusable buffer, for
// hiredis' redisAppendFormattedCommand. hiredis' own argv formatting goes through sdscatfmt and
// a new buffer per command, a visible share of a pipelining client's CPU once the server's side
// of a decision got cheap (docs/benchmarks.md, "Redis scripts"). Knows nothing about sockets
// (like hiredis' reader).
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace qs::limiter {

class RespWriter {
public:
    // Starts a command of `count` arguments; the previous command's bytes are dropped (the
    // buffer's capacity is kept, so a warm writer does not allocate).
    void begin(std::size_t count)
    {
        char header[24] = {'*'};
        char *end = std::to_chars(header + 1, header + sizeof header - 2, count).ptr;
        *end++ = '\r';
        *end++ = '\n';
        m_bytes.assign(header, end); // one assign: GCC 12 warns falsely on clear() + append
    }

    void arg(std::string_view value) { arg({value}); }

    void arg(std::int64_t value)
    {
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
        arg(std::string_view(digits, std::size_t(end - digits)));
    }

    // One argument that is the concatenation of `parts`: saves building a key name in a
    // temporary string.
    void arg(std::initializer_list<std::string_view> parts)
    {
        std::size_t length = 0;
        for (std::string_view p : parts)
            length += p.size();
        m_bytes += '$';
        appendNumber(length);
        m_bytes += "\r\n";
        for (std::string_view p : parts)
            m_bytes += p;
        m_bytes += "\r\n";
    }

    const std::string &bytes() const { return m_bytes; }

private:
    void appendNumber(std::uint64_t n)
    {
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
        m_bytes.append(digits, end);
    }

    std::string m_bytes;
};

} // namespace qs::limiter
