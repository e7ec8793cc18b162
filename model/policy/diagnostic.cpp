#include "model/policy/diagnostic.h"

#include "model/base/terminaltext.h"

#include <algorithm>

namespace qs {

QString routePath(qsizetype route, const QString &field)
{
    // Built by hand: called per note on every route of large exports, where arg() showed.
    QString path;
    path.reserve(24 + field.size());
    path += QLatin1String("routes[");
    path += QString::number(route);
    path += QLatin1Char(']');
    if (field.isEmpty())
        return path;
    if (!field.startsWith(QLatin1Char('.')) && !field.startsWith(QLatin1Char('[')))
        path += QLatin1Char('.');
    path += field;
    return path;
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
    // One finding, one line: whatever the file, an id or a server put into it.
    return terminalSafe(text + message);
}

bool hasErrors(const Diagnostics &diagnostics)
{
    return std::any_of(diagnostics.begin(), diagnostics.end(),
        [](const Diagnostic &d) { return d.severity == Diagnostic::Severity::Error; });
}

} // namespace qs
