#include "model/exportreport.h"

namespace qs {

void ExportReport::note(
    Diagnostic::Severity severity, qsizetype route, const QString &field, const QString &message)
{
    const QString routePath = QStringLiteral("routes[%1]").arg(route);
    const QString path = routePath + field;
    const SourceLocation at = m_policy.locations.value(path, m_policy.locations.value(routePath));
    m_diagnostics.append(Diagnostic{severity, QString(), at.line, at.column, path,
        QStringLiteral("[%1] route '%2': %3").arg(m_target, m_policy.routes[route].id, message)});
}

QString ExportReport::uniqueName(
    const QString &prefix, const QString &id, const QRegularExpression &disallowed, QChar filler)
{
    QString name = prefix + QString(id).replace(disallowed, QString(filler));
    while (m_names.contains(name))
        name += filler;
    m_names << name;
    return name;
}

QString ExportReport::commentSafe(const QString &text)
{
    QString out;
    for (const QChar c : text)
        out += c.isPrint() ? c : QLatin1Char('?');
    return out;
}

} // namespace qs
