#pragma once
// The key a request is counted under, as the policy format defines it: one value per key part
// (`ip` the client address, `header:` and `query:` the request's values, `global` one constant),
// and the route's `missing_key` choice when a header or query part is absent or empty. The test
// console and the simulator follow it; every exporter writes the same rule in its gateway's
// syntax (docs/policy-format.md, "missing_key").
#include "model/policy/policy.h"

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace qs {

struct RequestFacts {
    QString clientAddress;
    QList<QPair<QString, QString>> headers; // as sent; names compare case-insensitively
    QString target; // path and query string
};

struct RequestKey {
    enum class Outcome { Counted, Denied, Unlimited };
    Outcome outcome = Outcome::Counted;
    QString key; // the parts, '\\' and '|' escaped, joined by '|'; a shared missing part is empty
    QStringList missing; // the parts the request lacked, as written (`header:X-Api-Key`)
};

RequestKey requestKey(
    const QList<KeySelector> &selectors, MissingKeyMode missing, const RequestFacts &request);

// The first value of a header (case-insensitive name), or a null string.
QString headerValue(const QList<QPair<QString, QString>> &headers, const QString &name);
// The first value of a query parameter in a request target, percent-decoded, or a null string.
QString queryValue(const QString &target, const QString &name);

} // namespace qs
