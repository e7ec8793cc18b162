#pragma once
// `ip`, `global`, `header:<Name>`, `query:<name>`: parsing with operator-facing errors, and the
// header-name rule (an RFC 9110 token) that exporters rely on to stay injection-free.
#include "model/policy.h"

#include <variant>

namespace qs {

std::variant<KeySelector, QString> parseKeySelector(const QString &text);

// RFC 9110 token: letters, digits and !#$%&'*+-.^_`|~ ; nothing else.
bool isValidHeaderName(const QString &name);

} // namespace qs
