#pragma once
// Text for a terminal or a log line. Ids, header names, methods, prefixes and file names come
// from files and servers Quota Studio does not control: a carriage return, an escape sequence
// or a newline in one could overwrite or forge a line of output ("0 errors" over the real
// summary). Every character that is not printable is written as an escape instead.
#include <QString>

namespace qs {

// `\n`, `\r`, `\t` and `\0` by name, any other non-printable character as `\xNN` (below U+0100)
// or `\uNNNN` (bidirectional overrides, line separators, …); printable text unchanged.
QString terminalSafe(const QString &text);

} // namespace qs
