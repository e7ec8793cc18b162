#include "ui/document/policycommands.h"

#include "ui/document/policydocument.h"

namespace qs {

ReplaceRouteCommand::ReplaceRouteCommand(PolicyDocument *doc, qsizetype index, Route before,
    Route after, const QString &text, const QString &mergeKey)
    : QUndoCommand(text), m_doc(doc), m_index(index), m_before(std::move(before)),
      m_after(std::move(after)), m_mergeKey(mergeKey)
{
}

void ReplaceRouteCommand::undo()
{
    m_doc->applyRoute(m_index, m_before);
}
void ReplaceRouteCommand::redo()
{
    m_doc->applyRoute(m_index, m_after);
}

bool ReplaceRouteCommand::mergeWith(const QUndoCommand *other)
{
    const auto *o = static_cast<const ReplaceRouteCommand *>(other);
    if (o->m_index != m_index || o->m_mergeKey != m_mergeKey)
        return false;
    m_after = o->m_after;
    return true;
}

ReplaceRoutesCommand::ReplaceRoutesCommand(
    PolicyDocument *doc, QList<Route> before, QList<Route> after, const QString &text)
    : QUndoCommand(text), m_doc(doc), m_before(std::move(before)), m_after(std::move(after))
{
}

void ReplaceRoutesCommand::undo()
{
    m_doc->applyRoutes(m_before);
}
void ReplaceRoutesCommand::redo()
{
    m_doc->applyRoutes(m_after);
}

ReplacePolicyFieldsCommand::ReplacePolicyFieldsCommand(
    PolicyDocument *doc, Policy before, Policy after, const QString &text, const QString &mergeKey)
    : QUndoCommand(text), m_doc(doc), m_before(std::move(before)), m_after(std::move(after)),
      m_mergeKey(mergeKey)
{
}

void ReplacePolicyFieldsCommand::undo()
{
    m_doc->applyPolicy(m_before);
}
void ReplacePolicyFieldsCommand::redo()
{
    m_doc->applyPolicy(m_after);
}

bool ReplacePolicyFieldsCommand::mergeWith(const QUndoCommand *other)
{
    const auto *o = static_cast<const ReplacePolicyFieldsCommand *>(other);
    if (o->m_mergeKey != m_mergeKey)
        return false;
    m_after = o->m_after;
    return true;
}

} // namespace qs
