#include "model/export/gatewaywriter.h"

namespace qs {

GatewayWriter::GatewayWriter(const Policy &policy, const Exporter &exporter)
    : m_policy(policy), m_exporter(exporter),
      m_report(policy, exporter.id(), exporter.writesSeveralLimits())
{
    m_report.setDisplayName(exporter.displayName());
}

ExportResult GatewayWriter::run()
{
    for (qsizetype i = 0; i < m_policy.routes.size(); ++i)
        prepare(i);
    ExportResult result;
    if (!m_report.hasErrors()) {
        order();
        for (const QString &name : files())
            result.files.push_back({name, write(name)});
    }
    result.diagnostics = m_report.diagnostics();
    if (m_report.hasErrors()) // an error found while writing withholds every file
        result.files.clear();
    return result;
}

void GatewayWriter::noteCostNotExported(qsizetype route)
{
    const Route &r = m_policy.routes[route];
    if (!r.cost || *r.cost == 1)
        return;
    m_report.note(Diagnostic::Severity::Warning, route, QStringLiteral(".cost"),
        QStringLiteral("%1 counts every request as 1; cost %2 is not exported (the route admits "
                       "%2x more requests than designed)")
            .arg(m_exporter.displayName())
            .arg(*r.cost));
}

void GatewayWriter::noteCostNotExported(qsizetype route, qsizetype limit)
{
    const Route &r = m_policy.routes[route];
    const RouteLimit &l = r.limits[limit];
    if (!l.cost || !r.hasSeveralLimits()) {
        noteCostNotExported(route);
        return;
    }
    if (*l.cost == 1)
        return;
    m_report.note(Diagnostic::Severity::Warning, route,
        QLatin1Char('.') + r.limitPath(limit) + QStringLiteral(".cost"),
        QStringLiteral("%1 counts every request as 1; limit '%2''s cost %3 is not exported (it "
                       "admits %3x more requests than designed)")
            .arg(m_exporter.displayName(), ExportReport::commentSafe(l.name))
            .arg(*l.cost));
}

QString GatewayWriter::keyField(qsizetype route, qsizetype limit) const
{
    const Route &r = m_policy.routes[route];
    return r.limits[limit].key && r.hasSeveralLimits()
        ? QLatin1Char('.') + r.limitPath(limit) + QStringLiteral(".key")
        : QStringLiteral(".key");
}

} // namespace qs
