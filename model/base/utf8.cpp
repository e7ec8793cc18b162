#include "utf8.h"

#include <cstdint>
#include <cstring>

namespace qs {

namespace {

// How many continuation bytes a lead byte takes and the range its first continuation byte must
// fall in (the second byte is where overlongs, surrogates and > U+10FFFF show); ASCII takes 0,
// and -1 marks a byte that cannot start a sequence.
struct Lead {
    int continuations;
    unsigned char low;
    unsigned char high;
};

Lead leadOf(unsigned char b)
{
    if (b < 0x80)
        return {0, 0, 0};
    if (b >= 0xC2 && b <= 0xDF)
        return {1, 0x80, 0xBF};
    if (b == 0xE0)
        return {2, 0xA0, 0xBF};
    if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF)
        return {2, 0x80, 0xBF};
    if (b == 0xED)
        return {2, 0x80, 0x9F};
    if (b == 0xF0)
        return {3, 0x90, 0xBF};
    if (b >= 0xF1 && b <= 0xF3)
        return {3, 0x80, 0xBF};
    if (b == 0xF4)
        return {3, 0x80, 0x8F};
    return {-1, 0, 0};
}

bool eightAscii(const char *p)
{
    std::uint64_t word;
    std::memcpy(&word, p, sizeof word);
    return (word & 0x8080808080808080ULL) == 0;
}

} // namespace

std::optional<std::size_t> firstMalformedUtf8(std::string_view text)
{
    const std::size_t n = text.size();
    std::size_t i = 0;
    while (i < n) {
        // Policies are almost all ASCII: skip it a word at a time.
        if (i + 8 <= n && eightAscii(text.data() + i)) {
            i += 8;
            continue;
        }
        const auto b = static_cast<unsigned char>(text[i]);
        const Lead lead = leadOf(b);
        if (lead.continuations < 0)
            return i;
        if (lead.continuations == 0) {
            ++i;
            continue;
        }
        if (i + lead.continuations >= n) // truncated at the end of the text
            return i;
        const auto second = static_cast<unsigned char>(text[i + 1]);
        if (second < lead.low || second > lead.high)
            return i;
        for (int k = 2; k <= lead.continuations; ++k) {
            const auto c = static_cast<unsigned char>(text[i + k]);
            if ((c & 0xC0) != 0x80)
                return i;
        }
        i += 1 + lead.continuations;
    }
    return std::nullopt;
}

std::size_t utf8Length(std::string_view text)
{
    std::size_t count = 0;
    for (const char c : text)
        count += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return count;
}

void appendUtf8(std::string &out, char32_t cp)
{
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        cp = 0xFFFD;
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

} // namespace qs
