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
    // What the finding says wherever it is found: its target, field and message. Findings of
    // one kind on many routes are shown as one group (groupDiagnostics, the Diagnostics view).
    QString kind() const;
    // file:line:col: error: path: [target] route 'id': message   (the compiler format
    // editors understand; target and route only when set), on one line: every unprintable
    // character escaped.
    QString toString() const;
};

// The one place a route's field path is spelled: routePath(2, "limit.capacity") is
// "routes[2].limit.capacity"; routePath(2) is "routes[2]".
QString routePath(qsizetype route, const QString &field = QString());

using Diagnostics = QList<Diagnostic>;

// Findings that say the same of many routes, said once: 100 000 fixed-window routes exported to
// NGINX are one warning "... (and 99 999 more routes alike)", not 100 000 lines. Warnings about
// a route group by severity, target, field and message; errors and findings about the policy as
// a whole stay one per line (each is to be fixed where it is).
struct DiagnosticGroup {
    Diagnostic first; // where the kind was first found
    qsizetype count = 1;
    QStringList routes; // the routes alike after the first, by id (or path): at most a few
    // The first finding's line, and when there are more, how many and which.
    QString toString() const;
};
QList<DiagnosticGroup> groupDiagnostics(const Diagnostics &diagnostics);

bool hasErrors(const Diagnostics &diagnostics);

} // namespace qs
