#pragma once
// Undo commands for policy edits. Each stores the whole before and after value of what it
// touches (a route, the route list, the policy's own fields): small, and impossible to get
// out of step with the document.
#include "model/policy/policy.h"

#include <QUndoCommand>

namespace qs {

class PolicyDocument;

class ReplaceRouteCommand : public QUndoCommand {
public:
    ReplaceRouteCommand(PolicyDocument *doc, qsizetype index, Route before, Route after,
        const QString &text, const QString &mergeKey);
    void undo() override;
    void redo() override;
    int id() const override { return m_mergeKey.isEmpty() ? -1 : 1; }
    // Consecutive edits of the same field of the same route become one step.
    bool mergeWith(const QUndoCommand *other) override;

private:
    PolicyDocument *m_doc;
    qsizetype m_index;
    Route m_before, m_after;
    QString m_mergeKey;
};

class ReplaceRoutesCommand : public QUndoCommand {
public:
    ReplaceRoutesCommand(
        PolicyDocument *doc, QList<Route> before, QList<Route> after, const QString &text);
    void undo() override;
    void redo() override;

private:
    PolicyDocument *m_doc;
    QList<Route> m_before, m_after;
};

class ReplacePolicyFieldsCommand : public QUndoCommand {
public:
    ReplacePolicyFieldsCommand(PolicyDocument *doc, Policy before, Policy after,
        const QString &text, const QString &mergeKey);
    void undo() override;
    void redo() override;
    int id() const override { return m_mergeKey.isEmpty() ? -1 : 2; }
    bool mergeWith(const QUndoCommand *other) override;

private:
    PolicyDocument *m_doc;
    Policy m_before, m_after;
    QString m_mergeKey;
};

} // namespace qs
