#pragma once
// `ip`, `global`, `header:<Name>`, `query:<name>`: parsing with operator-facing errors, and the
// header-name rule (an RFC 9110 token) that exporters rely on to stay injection-free.
#include "model/base/expected.h"
#include "model/policy/policy.h"

namespace qs {

Expected<KeySelector> parseKeySelector(const QString &text);

// The editor's form of a key list: selectors separated by commas ("header:X-Api-Key, ip").
// Parsing returns the first problem; an empty text is an empty list.
Expected<QList<KeySelector>> parseKeySelectorList(const QString &text);
QString formatKeySelectorList(const QList<KeySelector> &keys);

// RFC 9110 token: letters, digits and !#$%&'*+-.^_`|~ ; nothing else.
bool isValidHeaderName(const QString &name);

} // namespace qs
