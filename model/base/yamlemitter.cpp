#include "model/base/yamlemitter.h"

#include "model/base/utf8.h"

#include <array>
#include <cstdint>

namespace qs::yaml {

namespace {

constexpr int kIndent = 2;

bool isOneOf(char c, std::string_view set)
{
    return set.find(c) != std::string_view::npos;
}

// Words a YAML 1.1 or 1.2 reader takes for null or a boolean.
bool isReservedWord(std::string_view s)
{
    if (s.size() > 5)
        return false;
    static constexpr std::array<std::string_view, 27> kWords = {"~", "null", "Null", "NULL", "y",
        "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false",
        "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", ""};
    for (std::string_view w : kWords)
        if (s == w)
            return true;
    return false;
}

// Anything a YAML 1.1 or 1.2 reader could resolve to a number or a date: an optional sign,
// then 0x/0o/0b and digits of that base, or a digit or a dot followed by nothing but digits and
// `_ . : + - e E` (1_000, 1e3, 1:30, 2026-12-04, 127.0.0.1 too: quoting is harmless there), or
// .inf / .nan in any case.
bool looksNumeric(std::string_view s)
{
    std::size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-'))
        ++i;
    if (i == s.size())
        return false;
    const std::string_view rest = s.substr(i);
    for (std::string_view special : {".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN"})
        if (rest == special)
            return true;
    if (rest.size() > 2 && rest[0] == '0' && isOneOf(rest[1], "xXoObB")) {
        for (char c : rest.substr(2))
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
                    || c == '_'))
                return false;
        return true;
    }
    if (!(rest[0] >= '0' && rest[0] <= '9') && rest[0] != '.')
        return false;
    for (char c : rest)
        if (!((c >= '0' && c <= '9') || isOneOf(c, "_.:+-eE")))
            return false;
    return true;
}

// The next code point of UTF-8 text, U+FFFD for a malformed sequence.
char32_t nextCodePoint(std::string_view text, std::size_t &i)
{
    const auto byte = [&](std::size_t k) { return std::uint8_t(text[k]); };
    const std::uint8_t lead = byte(i++);
    if (lead < 0x80)
        return lead;
    const int extra = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : -1;
    if (extra < 0)
        return 0xFFFD;
    char32_t cp = lead & (0x3F >> extra);
    for (int k = 0; k < extra; ++k) {
        if (i >= text.size() || (byte(i) & 0xC0) != 0x80)
            return 0xFFFD;
        cp = (cp << 6) | (byte(i++) & 0x3F);
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0xFFFD;
    return cp;
}

void appendEscape(std::string &out, char32_t cp)
{
    static constexpr char kHex[] = "0123456789abcdef";
    const int digits = cp <= 0xFF ? 2 : cp <= 0xFFFF ? 4 : 8;
    out += '\\';
    out += digits == 2 ? 'x' : digits == 4 ? 'u' : 'U';
    for (int d = digits - 1; d >= 0; --d)
        out += kHex[(cp >> (4 * d)) & 0xF];
}

// Code points a reader could take for a line break, a byte-order mark, or not see at all.
bool mustEscape(char32_t cp)
{
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0xA0) || cp == 0x2028 || cp == 0x2029
        || cp == 0xFEFF || cp == 0xFFFD;
}

// Letters, digits and `_ . / -` after a letter, `/` or `_`: most of what the writers write
// (names, types, paths), plain in any context unless it is a reserved word. The quick answer
// for those; the rules below for the rest.
bool isPlainWord(std::string_view s)
{
    static constexpr auto kWordChar = [] {
        std::array<bool, 256> table{};
        for (int c = 0; c < 256; ++c)
            table[std::size_t(c)] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '/' || c == '-';
        return table;
    }();
    const char f = s.front();
    if (!((f >= 'a' && f <= 'z') || (f >= 'A' && f <= 'Z') || f == '/' || f == '_'))
        return false;
    for (char c : s)
        if (!kWordChar[std::uint8_t(c)])
            return false;
    return true;
}

} // namespace

bool isSafePlainScalar(std::string_view s, bool inFlow)
{
    if (!s.empty() && isPlainWord(s))
        return !isReservedWord(s);
    if (isReservedWord(s) || looksNumeric(s))
        return false;
    const char first = s.front();
    if (isOneOf(first, " \t\r\n,[]{}#&*!|>'\"%@`"))
        return false;
    const bool blankAfterFirst = s.size() == 1 || s[1] == ' ' || s[1] == '\t';
    if (isOneOf(first, "-?:") && (blankAfterFirst || inFlow))
        return false;
    if (s.starts_with("---") || s.starts_with("..."))
        return false;
    if (s.back() == ' ' || s.back() == '\t' || s.back() == ':')
        return false;
    for (std::size_t i = 0; i < s.size();) {
        const char c = s[i];
        const char next = i + 1 < s.size() ? s[i + 1] : '\0';
        if (c == ':' && (next == ' ' || next == '\t' || (inFlow && isOneOf(next, ",[]{}"))))
            return false;
        if (c == '#' && i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
            return false;
        if (inFlow && isOneOf(c, ",?[]{}")) // yaml-cpp ends a flow plain scalar at `?` too
            return false;
        if (mustEscape(nextCodePoint(s, i)))
            return false;
    }
    return true;
}

std::string doubleQuoted(std::string_view text)
{
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    for (std::size_t i = 0; i < text.size();) {
        const char32_t cp = nextCodePoint(text, i);
        switch (cp) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        default:
            if (mustEscape(cp) && cp != 0xFFFD)
                appendEscape(out, cp);
            else
                appendUtf8(out, cp);
        }
    }
    out += '"';
    return out;
}

void Emitter::newLine(int indent)
{
    if (started())
        m_out += '\n';
    m_out.append(indent, ' ');
}

// Writes what goes before a node at the current position: a separator in a flow collection,
// a new line and indentation for a block map's key, `:` before a value, `- ` before an item.
void Emitter::placeNode(NodeKind kind)
{
    if (m_stack.empty()) {
        if (!m_out.isEmpty())
            m_out += '\n'; // after a comment
        return;
    }
    Frame &f = m_stack.back();
    const bool isKey = f.map && f.count % 2 == 0;
    const bool first = f.count == 0;
    ++f.count;
    if (f.flow) {
        if (isKey || !f.map) {
            if (!first)
                m_out += ", ";
        } else {
            m_out += ": ";
        }
        return;
    }
    if (f.map) {
        if (isKey) {
            if (!(first && f.inlineFirst))
                newLine(f.indent);
        } else {
            m_out += kind == NodeKind::BlockContainer ? ":" : ": ";
        }
        return;
    }
    if (!(first && f.inlineFirst))
        newLine(f.indent);
    m_out += "- ";
}

void Emitter::begin(bool map)
{
    const bool flow = m_nextFlow || inFlow();
    m_nextFlow = false;
    placeNode(flow ? NodeKind::FlowContainer : NodeKind::BlockContainer);
    Frame child;
    child.map = map;
    child.flow = flow;
    if (flow) {
        m_out += map ? '{' : '[';
    } else if (m_stack.empty()) {
        child.inlineFirst = true; // the document's root starts where it is
    } else {
        const Frame &parent = m_stack.back();
        child.indent = parent.indent + kIndent;
        // An item's map or list starts after its "- "; a value's on the next line.
        child.inlineFirst = !parent.map;
    }
    m_stack.push_back(child);
}

void Emitter::end(bool map)
{
    if (m_stack.empty() || m_stack.back().map != map)
        return; // unbalanced: a writer's bug; what was written stays as it is
    const Frame f = m_stack.back();
    m_stack.pop_back();
    if (f.flow) {
        m_out += map ? '}' : ']';
    } else if (f.count == 0) {
        if (!m_out.isEmpty() && m_out.back() == ':')
            m_out += ' ';
        m_out += map ? "{}" : "[]";
    }
}

Emitter Emitter::continuation(int itemsBefore, qsizetype bytes) const
{
    Emitter next;
    next.m_out.reserve(bytes);
    next.m_stack = m_stack;
    if (!next.m_stack.empty())
        next.m_stack.back().count += next.m_stack.back().map ? 2 * itemsBefore : itemsBefore;
    next.m_continued = true;
    return next;
}

void Emitter::append(const Emitter &continuation)
{
    m_out += continuation.m_out;
    // The collection it wrote into, with its count after the continuation's items; one that
    // left a collection open (a writer's bug) changes nothing but the text, like end().
    if (continuation.m_stack.size() == m_stack.size() && !m_stack.empty())
        m_stack.back() = continuation.m_stack.back();
}

void Emitter::writeScalar(std::string_view text, bool plainAllowed)
{
    placeNode(NodeKind::Scalar);
    if (plainAllowed) {
        m_out.append(text.data(), qsizetype(text.size()));
    } else {
        const std::string quoted = doubleQuoted(text);
        m_out.append(quoted.data(), qsizetype(quoted.size()));
    }
}

Emitter &Emitter::operator<<(Manip manip)
{
    switch (manip) {
    case BeginMap:
        begin(true);
        break;
    case EndMap:
        end(true);
        break;
    case BeginSeq:
        begin(false);
        break;
    case EndSeq:
        end(false);
        break;
    case Flow:
        m_nextFlow = true;
        break;
    case DoubleQuoted:
        m_nextQuoted = true;
        break;
    case Null:
        m_nextQuoted = false;
        placeNode(NodeKind::Scalar);
        m_out += "null";
        break;
    case Key:
    case Value:
        break; // the position in the map decides
    }
    return *this;
}

Emitter &Emitter::operator<<(const Comment &comment)
{
    if (!m_out.isEmpty())
        m_out += '\n';
    m_out += "# ";
    for (std::size_t i = 0; i < comment.text.size(); ++i) {
        const char c = comment.text[i];
        m_out += c == '\n' || c == '\r' ? ' ' : c; // one line, whatever it was given
    }
    return *this;
}

Emitter &Emitter::operator<<(std::string_view text)
{
    const bool quoted = m_nextQuoted;
    m_nextQuoted = false;
    writeScalar(text, !quoted && isSafePlainScalar(text, inFlow()));
    return *this;
}

Emitter &Emitter::operator<<(bool value)
{
    m_nextQuoted = false;
    placeNode(NodeKind::Scalar);
    m_out += value ? "true" : "false";
    return *this;
}

} // namespace qs::yaml
