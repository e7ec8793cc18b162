#pragma once

#include <string>
#include <string_view>

namespace qs {

// The value of a quoted YAML scalar from the text between its quotes, as YAML 1.2 (7.3) reads
// it: line breaks fold (a break between two lines is a space, each empty line a newline, white
// space around breaks dropped); in single quotes `''` is one quote; in double quotes the
// backslash escapes apply and an escaped line break joins the lines, keeping the white space
// before it. The text is what the parser accepted, so every escape in it is well formed; should
// one not be, it is kept as written.
//
// libfyaml 0.7.12, the Debian 12 package, gets some of these wrong and leaks when it does:
// `'a''''b'` reads as `a'''`, `"a\<break><empty><empty>b"` loses its `b`, `"\\\<break>x"` reads
// as `\ ` (fixed upstream from 0.9.5, e.g. c0a716e and 0af6061). The document folds quoted
// scalars itself; plain and block scalars still come from the library.
std::string singleQuotedValue(std::string_view inner);
std::string doubleQuotedValue(std::string_view inner);

} // namespace qs
