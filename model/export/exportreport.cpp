#include "model/export/exportreport.h"

#include "model/policy/limitconversion.h"

namespace qs {

void ExportReport::note(
    Diagnostic::Severity severity, qsizetype route, const QString &field, const QString &message)
{
    const QString path = routePath(route, field);
    const auto found
        = m_policy.locations.find(path); // the route's own place when the field has none
    const SourceLocation at = found ? *found : m_policy.locations.value(routePath(route));
    m_diagnostics.append(Diagnostic{severity, QString(), at.line, at.column, path, message, route,
        m_target, m_policy.routes[route].id});
}

void ExportReport::notePolicy(
    Diagnostic::Severity severity, const QString &field, const QString &message)
{
    const SourceLocation at = m_policy.locations.value(field);
    m_diagnostics.append(
        Diagnostic{severity, QString(), at.line, at.column, field, message, -1, m_target, {}});
}

std::optional<PathPattern> ExportReport::pathPattern(qsizetype route)
{
    auto parsed = PathPattern::parse(m_policy.routes[route].path);
    if (!parsed) {
        note(Diagnostic::Severity::Error, route, QStringLiteral(".match.path"), parsed.error());
        return std::nullopt;
    }
    // Defence in depth: whatever PathPattern::parse lets through, no exporter writes a path
    // that could be read as syntax in any target's file (a quote, a space, a control, `;`, `#`,
    // `$` other than the regex anchor, a brace or a backtick).
    const PathPattern pattern = *std::move(parsed);
    const auto configSafe = [](const QString &regex) {
        if (regex.size() < 2 || !regex.startsWith(QLatin1Char('^'))
            || !regex.endsWith(QLatin1Char('$')))
            return false;
        for (qsizetype i = 1; i + 1 < regex.size(); ++i) {
            const char16_t u = regex[i].unicode();
            const bool alnum
                = (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9');
            if (!alnum && !QStringView(u"._~:@!+,=/%^\\()?|[]*-").contains(regex[i]))
                return false;
        }
        return true;
    };
    if (!configSafe(pattern.toRegex())) {
        note(Diagnostic::Severity::Error, route, QStringLiteral(".match.path"),
            QStringLiteral("path '%1' holds characters this target's configuration could read as "
                           "syntax; it is not exported")
                .arg(commentSafe(m_policy.routes[route].path)));
        return std::nullopt;
    }
    return pattern;
}

std::optional<limiter::AlgorithmConfig> ExportReport::algorithmConfig(qsizetype route)
{
    const Route &r = m_policy.routes[route];
    if (r.hasSeveralLimits() && !m_severalLimits) {
        QStringList names;
        for (const RouteLimit &l : r.limits)
            names << l.name;
        note(Diagnostic::Severity::Error, route, QStringLiteral(".limits"),
            QStringLiteral("%1 limits (%2); the %3 export writes one limit per route so far: "
                           "keep one limit for this target")
                .arg(r.limits.size())
                .arg(commentSafe(names.join(QStringLiteral(", "))), m_target));
        return std::nullopt;
    }
    return algorithmConfig(route, 0);
}

std::optional<limiter::AlgorithmConfig> ExportReport::algorithmConfig(
    qsizetype route, qsizetype limit)
{
    const Route &r = m_policy.routes[route];
    const auto converted = toAlgorithmConfig(r.limits[limit].spec);
    if (!converted) {
        note(Diagnostic::Severity::Error, route, QLatin1Char('.') + r.limitPath(limit),
            converted.error().message);
        return std::nullopt;
    }
    return *converted;
}

QString ExportReport::uniqueName(
    const QString &prefix, const QString &id, const QRegularExpression &disallowed, QChar filler)
{
    QString name = prefix + QString(id).replace(disallowed, QString(filler));
    while (m_names.contains(name))
        name += filler;
    m_names.insert(name);
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
