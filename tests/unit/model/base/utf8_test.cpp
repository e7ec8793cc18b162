#include "model/base/utf8.h"

#include <gtest/gtest.h>

#include <string>

using qs::firstMalformedUtf8;

namespace {

std::string bytes(std::initializer_list<unsigned char> list)
{
    return std::string(list.begin(), list.end());
}

} // namespace

TEST(Utf8, WellFormedTextHasNoMalformedByte)
{
    EXPECT_EQ(firstMalformedUtf8(""), std::nullopt);
    EXPECT_EQ(
        firstMalformedUtf8("routes: []\n# plain ASCII, longer than one word\n"), std::nullopt);
    // é, €, U+FFFF, an emoji (four bytes), U+10FFFF: the edges of each length.
    EXPECT_EQ(firstMalformedUtf8(bytes({0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xEF, 0xBF, 0xBF, 0xF0, 0x9F,
                  0x98, 0x80, 0xF4, 0x8F, 0xBF, 0xBF})),
        std::nullopt);
    // A UTF-8 byte-order mark is UTF-8 too.
    EXPECT_EQ(firstMalformedUtf8(bytes({0xEF, 0xBB, 0xBF, 'a', ':', ' ', '1'})), std::nullopt);
}

TEST(Utf8, EachMalformedFormIsFoundAtItsFirstByte)
{
    const struct {
        std::string text;
        std::size_t at;
        const char *what;
    } cases[] = {
        {bytes({'%', 0xE6}), 1, "a lead byte cut off by the end of the text"},
        {bytes({'a', 0xE6, 'b', 'c'}), 1, "a lead byte followed by ASCII"},
        {bytes({0x80}), 0, "a continuation byte with no lead"},
        {bytes({0xC0, 0x80}), 0, "an overlong NUL"},
        {bytes({0xC1, 0xBF}), 0, "an overlong two-byte form"},
        {bytes({0xE0, 0x80, 0x80}), 0, "an overlong three-byte form"},
        {bytes({0xF0, 0x8F, 0xBF, 0xBF}), 0, "an overlong four-byte form"},
        {bytes({0xED, 0xA0, 0x80}), 0, "a UTF-16 surrogate"},
        {bytes({0xF4, 0x90, 0x80, 0x80}), 0, "above U+10FFFF"},
        {bytes({0xF5, 0x80, 0x80, 0x80}), 0, "a byte that never leads"},
        {bytes({0xFF}), 0, "0xFF"},
        {bytes({0xE2, 0x82, 'x'}), 0, "a three-byte form with ASCII as its third byte"},
        // Past the eight-byte ASCII fast path, and in its last, shorter word.
        {"0123456789abcdef" + bytes({0xE9}) + "tail", 16, "Latin-1 é after two ASCII words"},
        {"0123456789" + bytes({0xE9}), 10, "Latin-1 é in a partial word at the end"},
    };
    for (const auto &c : cases)
        EXPECT_EQ(firstMalformedUtf8(c.text), c.at) << c.what;
}

TEST(Utf8, LengthCountsCodePoints)
{
    EXPECT_EQ(qs::utf8Length(""), 0u);
    EXPECT_EQ(qs::utf8Length("abc"), 3u);
    EXPECT_EQ(qs::utf8Length(bytes({'a', 0xC3, 0xA9, 0xF0, 0x9F, 0x98, 0x80})), 3u);
}

TEST(Utf8, AppendedCodePointsAreWellFormedAndReadBack)
{
    std::string out;
    for (const char32_t cp : {U'a', U'\u00e9', U'\u20ac', U'\U0001F600', U'\U0010FFFF'})
        qs::appendUtf8(out, cp);
    EXPECT_EQ(out, "a\u00e9\u20ac\U0001F600\U0010FFFF");
    EXPECT_EQ(firstMalformedUtf8(out), std::nullopt);
    std::string replaced;
    qs::appendUtf8(replaced, 0xD800); // a surrogate is no character
    qs::appendUtf8(replaced, 0x110000);
    EXPECT_EQ(replaced, "\uFFFD\uFFFD");
}
