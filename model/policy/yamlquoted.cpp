#include "model/policy/yamlquoted.h"

#include "model/base/utf8.h"

#include <cstdint>

namespace qs {

namespace {

bool isWhite(char c)
{
    return c == ' ' || c == '\t';
}

bool isBreak(char c)
{
    return c == '\n' || c == '\r';
}

int hexDigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// Builds the value left to right. White space taken from the text may be dropped again when a
// line break follows it; `m_kept` marks the end of what may not (text, escapes, folds).
class Folder {
public:
    explicit Folder(std::string_view inner) : m_in(inner) { m_out.reserve(inner.size()); }

    bool atEnd() const { return m_at >= m_in.size(); }
    char peek(std::size_t ahead = 0) const
    {
        return m_at + ahead < m_in.size() ? m_in[m_at + ahead] : '\0';
    }
    void skip(std::size_t n) { m_at += n; }

    void text(char c)
    {
        m_out += c;
        if (!isWhite(c))
            m_kept = m_out.size();
    }
    void escaped(std::string_view s)
    {
        m_out += s;
        m_kept = m_out.size();
    }
    void escapedCodePoint(std::uint32_t cp)
    {
        appendUtf8(m_out, char32_t(cp));
        m_kept = m_out.size();
    }

    // At a line break: folds it and the empty lines after it, and drops the next line's
    // indentation. An escaped break (the backslash already consumed) keeps the white space
    // before it and adds no space of its own.
    void lineBreak(bool escapedBreak)
    {
        if (!escapedBreak)
            m_out.resize(m_kept);
        int emptyLines = 0;
        consumeBreak();
        for (;;) {
            while (isWhite(peek()))
                skip(1);
            if (!isBreak(peek()))
                break;
            ++emptyLines;
            consumeBreak();
        }
        if (emptyLines > 0)
            m_out.append(std::size_t(emptyLines), '\n');
        else if (!escapedBreak)
            m_out += ' ';
        m_kept = m_out.size();
    }

    std::string result() { return std::move(m_out); }

private:
    void consumeBreak()
    {
        const bool crlf = peek() == '\r' && peek(1) == '\n';
        skip(crlf ? 2 : 1);
    }

    std::string_view m_in;
    std::size_t m_at = 0;
    std::string m_out;
    std::size_t m_kept = 0;
};

// `\x41`, `\u00e9`, `\U0001F600`: `digits` hex digits after the letter; false (and nothing
// consumed) when they are not all there.
bool hexEscape(Folder &f, int digits)
{
    std::uint32_t cp = 0;
    for (int i = 1; i <= digits; ++i) {
        const int d = hexDigit(f.peek(std::size_t(i)));
        if (d < 0)
            return false;
        cp = cp * 16 + std::uint32_t(d);
    }
    f.skip(std::size_t(digits) + 1);
    f.escapedCodePoint(cp);
    return true;
}

// After a backslash: one escape of YAML 1.2's list (5.7).
void escape(Folder &f)
{
    const char c = f.peek();
    if (isBreak(c)) {
        f.lineBreak(true);
        return;
    }
    static constexpr struct {
        char letter;
        std::uint32_t codePoint;
    } simple[] = {{'0', 0x00}, {'a', 0x07}, {'b', 0x08}, {'t', 0x09}, {'\t', 0x09}, {'n', 0x0A},
        {'v', 0x0B}, {'f', 0x0C}, {'r', 0x0D}, {'e', 0x1B}, {' ', 0x20}, {'"', 0x22}, {'/', 0x2F},
        {'\\', 0x5C}, {'N', 0x85}, {'_', 0xA0}, {'L', 0x2028}, {'P', 0x2029}};
    for (const auto &s : simple) {
        if (c == s.letter) {
            f.skip(1);
            f.escapedCodePoint(s.codePoint);
            return;
        }
    }
    const int digits = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
    if (digits > 0 && hexEscape(f, digits))
        return;
    f.escaped("\\"); // not an escape: the parser would have refused it; keep it as written
}

} // namespace

std::string singleQuotedValue(std::string_view inner)
{
    Folder f(inner);
    while (!f.atEnd()) {
        const char c = f.peek();
        if (isBreak(c)) {
            f.lineBreak(false);
        } else if (c == '\'' && f.peek(1) == '\'') {
            f.skip(2);
            f.escaped("'");
        } else {
            f.skip(1);
            f.text(c);
        }
    }
    return f.result();
}

std::string doubleQuotedValue(std::string_view inner)
{
    Folder f(inner);
    while (!f.atEnd()) {
        const char c = f.peek();
        if (isBreak(c)) {
            f.lineBreak(false);
        } else if (c == '\\') {
            f.skip(1);
            escape(f);
        } else {
            f.skip(1);
            f.text(c);
        }
    }
    return f.result();
}

} // namespace qs
