#pragma once
// (method, request target) -> the route that limits it: among the routes whose methods and
// path pattern match, the most specific pattern wins (see PathPattern::compareSpecificity);
// between equally specific ones (which validation reports) the first declared wins.
#include "model/policy/pathpattern.h"
#include "model/policy/policy.h"

#include <optional>

namespace qs {

class RouteResolver {
public:
    explicit RouteResolver(const Policy &policy); // patterns are parsed once, here

    // Index into policy.routes, or nullopt when no route matches. Methods compare
    // case-insensitively; the target may carry a query string and percent-encoding.
    std::optional<qsizetype> resolve(const QString &method, const QString &target) const;

private:
    struct Entry {
        qsizetype index = 0;
        QStringList methods;
        PathPattern pattern;
    };
    QList<Entry> m_entries;
};

} // namespace qs
