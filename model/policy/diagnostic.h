#pragma once
#include <QList>
#include <QString>

namespace qs {

// One finding about a policy file, placed where the operator can fix it. Where it is and who
// found it are data beside the text (as hiredis keeps err beside errstr): a consumer reads
// `route` and `target`, never parses them back out of `path` or `message`.
struct Diagnostic {
    enum class Severity { Error, Warning };
    Severity severity = Severity::Error;
    QString file;
    int line = 0; // 1-based; 0 when the finding has no place in the file
    int column = 0; // 1-based
    QString path; // the field, e.g. routes[2].limit.capacity (built by routePath)
    QString message; // the finding alone
    qsizetype route = -1; // the route it is about; -1: the policy as a whole
    QString target; // the exporter that reported it ("nginx"); empty: the policy itself
    QString routeId; // set by exporters, whose messages do not name the route themselves

    // The field below the route ("limit.capacity"); the whole path for policy-level findings.
    QString fieldInRoute() const;
    // file:line:col: error: path: [target] route 'id': message   (the compiler format
    // editors understand; target and route only when set), on one line: every unprintable
    // character escaped.
    QString toString() const;
};

// The one place a route's field path is spelled: routePath(2, "limit.capacity") is
// "routes[2].limit.capacity"; routePath(2) is "routes[2]".
QString routePath(qsizetype route, const QString &field = QString());

using Diagnostics = QList<Diagnostic>;

bool hasErrors(const Diagnostics &diagnostics);

} // namespace qs
