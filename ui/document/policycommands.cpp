#include "ui/document/policycommands.h"

#include "ui/document/policydocument.h"

namespace qs {

void RouteChange::apply(PolicyDocument *doc, Where index, const Value &route)
{
    doc->applyRoute(index, route);
}

void RouteListChange::apply(PolicyDocument *doc, Where, const Value &routes)
{
    doc->applyRoutes(routes);
}

void PolicyFieldsChange::apply(PolicyDocument *doc, Where, const Value &policy)
{
    doc->applyPolicy(policy);
}

} // namespace qs
