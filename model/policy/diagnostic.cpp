#include "model/policy/diagnostic.h"

#include <algorithm>

namespace qs {

QString routePath(qsizetype route, const QString &field)
{
    QString path = QStringLiteral("routes[%1]").arg(route);
    if (field.isEmpty())
        return path;
    return field.startsWith(QLatin1Char('.')) || field.startsWith(QLatin1Char('['))
        ? path + field
        : path + QLatin1Char('.') + field;
}

QString Diagnostic::fieldInRoute() const
{
    if (route < 0)
        return path;
    const qsizetype prefix = routePath(route).size();
    return path.size() > prefix ? path.mid(prefix + (path.at(prefix) == QLatin1Char('.')))
                                : QString();
}

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
    if (!target.isEmpty())
        text += QStringLiteral("[%1] ").arg(target);
    if (!routeId.isEmpty())
        text += QStringLiteral("route '%1': ").arg(routeId);
    return text + message;
}

bool hasErrors(const Diagnostics &diagnostics)
{
    return std::any_of(diagnostics.begin(), diagnostics.end(),
        [](const Diagnostic &d) { return d.severity == Diagnostic::Severity::Error; });
}

} // namespace qs
