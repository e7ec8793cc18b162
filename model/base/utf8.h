#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace qs {

// The byte offset of the first byte that does not start or continue a well-formed UTF-8
// sequence (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), or nothing
// when the whole text is UTF-8. Policy files are UTF-8 text, and libfyaml 0.7.12 loops forever
// on some malformed bytes (a `%` directive followed by 0xE6, found by the fuzz pass), so the
// reader refuses malformed text before the parser sees it.
std::optional<std::size_t> firstMalformedUtf8(std::string_view text);

// Code points in well-formed UTF-8 text: a column in characters for a diagnostic.
std::size_t utf8Length(std::string_view text);

// Appends code point `cp` in UTF-8; a surrogate or a value above U+10FFFF, which no UTF-8 text
// may hold, as U+FFFD (the replacement character).
void appendUtf8(std::string &out, char32_t cp);

} // namespace qs
