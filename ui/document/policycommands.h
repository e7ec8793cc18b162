#pragma once
// Undo commands for policy edits: one template, as Tiled's ChangeValue<Object, Value>. Each
// command stores the whole before and after value of what it touches (a route, the route list,
// the policy's own fields): small, and impossible to get out of step with the document. A
// change kind (the traits below) says what it replaces, where, and how to put a value back.
#include "model/policy/policy.h"

#include <QUndoCommand>

#include <variant>

namespace qs {

class PolicyDocument;

// QUndoCommand::id() of the commands that merge (consecutive edits of one field: one step).
enum class MergeId { None = -1, RouteField = 1, PolicyField = 2 };

// One route, by index.
struct RouteChange {
    using Value = Route;
    using Where = qsizetype;
    static constexpr MergeId kMergeId = MergeId::RouteField;
    static void apply(PolicyDocument *doc, Where index, const Value &route);
};

// The whole route list (add, remove, move, duplicate).
struct RouteListChange {
    using Value = QList<Route>;
    using Where = std::monostate;
    static constexpr MergeId kMergeId = MergeId::None;
    static void apply(PolicyDocument *doc, Where, const Value &routes);
};

// The policy's own fields (name, defaults, redis); its routes have commands of their own.
struct PolicyFieldsChange {
    using Value = Policy;
    using Where = std::monostate;
    static constexpr MergeId kMergeId = MergeId::PolicyField;
    static void apply(PolicyDocument *doc, Where, const Value &policy);
};

template <class Change>
class ReplaceCommand : public QUndoCommand {
public:
    using Value = typename Change::Value;
    using Where = typename Change::Where;

    // An empty mergeKey never merges; equal keys at the same place merge into one step.
    ReplaceCommand(PolicyDocument *doc, Where where, Value before, Value after, const QString &text,
        const QString &mergeKey = {})
        : QUndoCommand(text), m_doc(doc), m_where(where), m_before(std::move(before)),
          m_after(std::move(after)), m_mergeKey(mergeKey)
    {
    }

    void undo() override { Change::apply(m_doc, m_where, m_before); }
    void redo() override { Change::apply(m_doc, m_where, m_after); }
    int id() const override { return m_mergeKey.isEmpty() ? -1 : int(Change::kMergeId); }

    bool mergeWith(const QUndoCommand *other) override
    {
        const auto *o = static_cast<const ReplaceCommand *>(other);
        if (o->m_where != m_where || o->m_mergeKey != m_mergeKey)
            return false;
        m_after = o->m_after;
        // Typed back to what it was: no step at all (QUndoStack drops an obsolete command,
        // and the document is unmodified again if it was before).
        setObsolete(m_after == m_before);
        return true;
    }

private:
    PolicyDocument *m_doc;
    Where m_where;
    Value m_before, m_after;
    QString m_mergeKey;
};

using ReplaceRouteCommand = ReplaceCommand<RouteChange>;
using ReplaceRoutesCommand = ReplaceCommand<RouteListChange>;
using ReplacePolicyFieldsCommand = ReplaceCommand<PolicyFieldsChange>;

} // namespace qs
