#pragma once
#include <QList>
#include <QString>

namespace qs {

// One finding about a policy file, placed where the operator can fix it.
struct Diagnostic {
    enum class Severity { Error, Warning };
    Severity severity = Severity::Error;
    QString file;
    int line = 0; // 1-based; 0 when the finding has no place in the file
    int column = 0; // 1-based
    QString path; // the field, e.g. routes[2].limit.capacity
    QString message;

    // file:line:col: error: message   (the compiler format editors understand)
    QString toString() const;
};

using Diagnostics = QList<Diagnostic>;

bool hasErrors(const Diagnostics &diagnostics);

} // namespace qs
