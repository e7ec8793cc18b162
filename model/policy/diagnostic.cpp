#include "model/policy/diagnostic.h"

#include <algorithm>

namespace qs {

QString Diagnostic::toString() const
{
    QString where = file.isEmpty() ? QStringLiteral("<policy>") : file;
    if (line > 0)
        where += QStringLiteral(":%1:%2").arg(line).arg(column);
    const QString kind
        = severity == Severity::Error ? QStringLiteral("error") : QStringLiteral("warning");
    QString text = QStringLiteral("%1: %2: ").arg(where, kind);
    if (!path.isEmpty())
        text += path + QStringLiteral(": ");
    return text + message;
}

bool hasErrors(const Diagnostics &diagnostics)
{
    return std::any_of(diagnostics.begin(), diagnostics.end(),
        [](const Diagnostic &d) { return d.severity == Diagnostic::Severity::Error; });
}

} // namespace qs
