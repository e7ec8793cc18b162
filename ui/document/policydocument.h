#pragma once
// The open policy: its content, its file, its undo history and its diagnostics. Every edit
// goes through an undo command (policycommands.h), so the modified state is simply "the undo
// stack is not at its clean index", and Undo after Save marks the file modified again.
#include "model/base/expected.h"
#include "model/policy/diagnostic.h"
#include "model/policy/plans.h"
#include "model/policy/policy.h"
#include "model/policy/policytextpatch.h"
#include "model/policy/policywriter.h"

#include <QFutureWatcher>
#include <QObject>
#include <QTimer>
#include <QUndoStack>

namespace qs {

class PolicyDocument : public QObject {
    Q_OBJECT
public:
    explicit PolicyDocument(QObject *parent = nullptr);
    ~PolicyDocument() override;

    const Policy &policy() const { return m_policy; }
    const QString &filePath() const { return m_filePath; }
    QString displayName() const; // file name, or "untitled"
    QUndoStack *undoStack() { return &m_undo; }
    bool isModified() const { return !m_undo.isClean(); }

    // Reader and validator findings for the current content, sorted by place.
    const Diagnostics &diagnostics() const { return m_diagnostics; }
    Diagnostics diagnosticsOfRoute(qsizetype route) const;
    int errorCount() const;
    int warningCount() const;

    // A fresh policy with one example route.
    void newPolicy();
    // Opens what can be shown even when the file has errors; false only when nothing could be
    // read (then the current policy stays). `error` gets the first problem in that case.
    Expected<void> load(const QString &path);
    // A crash-recovery copy (recoverystore.h): its content, belonging to `originalPath` (empty:
    // never saved), marked modified so that Save writes it where it belongs.
    Expected<void> loadRecovered(const QString &copyPath, const QString &originalPath);
    // Atomic save; empty string on success, else what went wrong. The file's own text is
    // edited in place (policytextpatch.h): only what was edited changes.
    Expected<void> save(const QString &path);
    // Why the last save wrote the file afresh instead of editing its text; empty normally.
    const QString &lastSaveRewrite() const { return m_lastSaveRewrite; }

    // Edits (each one undo step). `mergeKey` lets typing into one field become one step.
    void replaceRoute(qsizetype index, const Route &route, const QString &text,
        const QString &mergeKey = QString());
    void replaceRoutes(const QList<Route> &routes, const QString &text);
    void setPolicyField(const Policy &after, const QString &text, const QString &mergeKey);

    // Used by the undo commands only.
    void applyRoute(qsizetype index, const Route &route);
    void applyRoutes(const QList<Route> &routes);
    void applyPolicy(const Policy &policy);

signals:
    void reset(); // a new or loaded policy: everything may have changed
    void routesChanged(); // routes added, removed or reordered
    void routeChanged(qsizetype index);
    void policyFieldsChanged();
    void diagnosticsChanged();
    void filePathChanged(const QString &path);
    void modifiedChanged(bool modified);
    // The plan map file was read again in the background (its name or the plans changed): the
    // policy's map and its diagnostics are the file's now.
    void planMapRead();

private:
    void revalidate();
    void setFilePath(const QString &path);

    void rememberSaved(const QByteArray &text, PolicyFormat format);
    TextPatch textToSave(PolicyFormat format) const;

    Policy m_policy;
    QString m_filePath;
    // The text last read or written and the policy it holds: what the next save edits.
    QByteArray m_savedText;
    Policy m_savedPolicy;
    PolicyFormat m_savedFormat = PolicyFormat::Yaml;
    QString m_lastSaveRewrite;
    // Large policies are validated off the GUI thread, once typing pauses; the newest wins.
    QTimer m_validateLater;
    QFutureWatcher<Diagnostics> m_validation;
    int m_validationGeneration = 0;
    void applyDiagnostics(Diagnostics diagnostics);
    Diagnostics m_diagnostics;
    Diagnostics m_planMapDiagnostics; // of the plan map file, as last read
    // The plan map as the policy names it: read when the policy is opened, and in the
    // background whenever the edited policy names another file or other plans.
    QString planMapKey() const; // the map file's path and the plans it is read for
    void refreshPlanMap();
    QString m_planMapKey; // what m_policy.plans.map and m_planMapDiagnostics are of
    QFutureWatcher<PlanMapReadResult> m_planMapRead;
    QUndoStack m_undo;
};

// A new route with every field a valid route needs, its id unique in `policy`.
Route makeNewRoute(const Policy &policy);

} // namespace qs
