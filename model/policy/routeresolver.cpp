#include "model/policy/routeresolver.h"

namespace qs {

RouteResolver::RouteResolver(const Policy &policy)
{
    for (qsizetype i = 0; i < policy.routes.size(); ++i) {
        const auto parsed = PathPattern::parse(policy.routes[i].path);
        if (parsed)
            m_entries.append(Entry{i, policy.routes[i].methods, *parsed});
    }
}

std::optional<qsizetype> RouteResolver::resolve(const QString &method, const QString &target) const
{
    const QString upper = method.toUpper();
    const QStringList segments = normalizeRequestPath(target);
    const Entry *best = nullptr;
    for (const Entry &e : m_entries) {
        if (!e.methods.isEmpty() && !e.methods.contains(upper))
            continue;
        if (!e.pattern.matches(segments))
            continue;
        if (!best || PathPattern::compareSpecificity(e.pattern, best->pattern) > 0)
            best = &e;
    }
    return best ? std::optional<qsizetype>(best->index) : std::nullopt;
}

} // namespace qs
