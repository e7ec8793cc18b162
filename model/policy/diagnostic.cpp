#include "model/policy/diagnostic.h"

#include "model/base/terminaltext.h"

#include <QHash>

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

QString Diagnostic::kind() const
{
    return target + QChar(0) + fieldInRoute() + QChar(0) + message;
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

namespace {

constexpr qsizetype kRoutesNamed = 3;

QString routeName(const Diagnostic &d)
{
    return d.routeId.isEmpty() ? routePath(d.route) : d.routeId;
}

} // namespace

QList<DiagnosticGroup> groupDiagnostics(const Diagnostics &diagnostics)
{
    QList<DiagnosticGroup> groups;
    QHash<QString, qsizetype> byKind; // kind -> index into groups
    for (const Diagnostic &d : diagnostics) {
        if (d.severity == Diagnostic::Severity::Error || d.route < 0) {
            groups.append({d, 1, {}});
            continue;
        }
        const QString kind = d.kind();
        const auto found = byKind.constFind(kind);
        if (found == byKind.cend()) {
            byKind.insert(kind, groups.size());
            groups.append({d, 1, {}});
            continue;
        }
        DiagnosticGroup &g = groups[*found];
        ++g.count;
        if (g.routes.size() < kRoutesNamed)
            g.routes << routeName(d);
    }
    return groups;
}

QString DiagnosticGroup::toString() const
{
    const QString line = first.toString();
    if (count == 1)
        return line;
    const qsizetype more = count - 1;
    QString which = routes.join(QStringLiteral(", "));
    if (more > routes.size())
        which += QStringLiteral(", …");
    return line
        + terminalSafe(QStringLiteral(" (and %1 more route%2 alike: %3; --verbose lists each)")
                           .arg(more)
                           .arg(more == 1 ? QString() : QStringLiteral("s"), which));
}

bool hasErrors(const Diagnostics &diagnostics)
{
    return std::any_of(diagnostics.begin(), diagnostics.end(),
        [](const Diagnostic &d) { return d.severity == Diagnostic::Severity::Error; });
}

} // namespace qs
