#pragma once
// The form for one route. Every widget edit becomes one undo command on the document (typing
// into one field merges into one step); every document change (including undo) is reflected
// back into the widgets. Validation messages from the document appear beside their field.
#include "model/policy/policy.h"

#include <QHash>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace qs {

class LimitListBar;
class PlanTableView;

struct LimitField;

class PolicyDocument;
class LimitValueEdit;

class RouteEditor : public QWidget {
    Q_OBJECT
public:
    explicit RouteEditor(PolicyDocument *doc, QWidget *parent = nullptr);

    void setRouteIndex(qsizetype index); // -1: nothing to edit
    qsizetype routeIndex() const { return m_index; }
    // Shows the route again: the policy's fields it depends on (defaults, plans) changed.
    void reload() { load(); }
    // Moves the keyboard focus to the widget of a diagnostic path (routes[2].limit.capacity).
    bool focusField(const QString &fieldInRoute); // "limit.capacity"

    // For tests and the explanation panel.
    QWidget *fieldWidget(const QString &field) const { return m_fields.value(field); }
    PlanTableView *planTable() const { return m_planTable; }
    QLabel *messageLabel(const QString &field) const { return m_messages.value(field); }

    // The limit of the route the fields edit (0 for a route with one).
    qsizetype currentLimit() const
    {
        const Route *r = route();
        return r ? limitIndex(*r) : 0;
    }

signals:
    void algorithmChanged(limiter::Algorithm algorithm);
    void limitPicked(); // the fields now edit another limit of the route

private:
    void build();
    void addMatchRows();
    void addKeyRows();
    void addLimitRows();
    void buildLimitRows(); // one row per field of limitfields.h, in its order
    void addOwnLimitRows(); // a limit's own key, missing key, cost and mode (in a list)
    QWidget *makeLimitEditor(const LimitField &field);
    QWidget *withMessage(const QString &field, QWidget *editor, const QString &tooltip);
    void load(); // route → widgets
    void showMessages();
    void updateParameterRows();
    void updatePathTest();
    void commit(const Route &after, const QString &text, const QString &field);
    // Applies `change` to a copy of the current route and commits it as one undo step;
    // `mergeField` (empty: never merged) lets typing into one field become one step.
    template <class Change>
    void edit(const QString &text, const QString &mergeField, Change &&change)
    {
        if (const Route *r = route()) {
            Route after = *r;
            change(after);
            commit(after, text, mergeField);
        }
    }
    const Route *route() const;

    void onIdEdited();
    void onDescriptionEdited();
    void onMethodsEdited();
    void onPathEdited();
    void onKeyEdited();
    void onAlgorithmChosen();
    void onLimitEdited(const QString &field);
    void onCostEdited();
    static void setCalendar(LimitSpec &limit, int unit);
    static QString nextResetsText(const LimitSpec &spec);
    void onModeChosen();
    void onMissingKeyChosen();
    void onLimitKeyEdited();
    void onLimitMissingKeyChosen();
    void onLimitCostEdited();
    void onLimitModeChosen();
    void loadOwnLimitRows(const Route &r);
    void addPlanRows();
    void onPlanCellEdited(const QString &plan, int limit, const QString &text);
    // The limits of a route (LimitListBar): which one the fields edit, and the list's edits.
    int limitIndex(const Route &r) const;
    QString limitKey(const Route &r, const QString &field) const; // "limits[1].capacity"
    void onLimitPicked(int index);
    void onLimitRenamed(const QString &name);
    void onAddLimit();
    void onDuplicateLimit();
    void onRemoveLimit();
    void onMoveLimit(int by);

    PolicyDocument *m_doc;
    qsizetype m_index = -1;
    QFormLayout *m_form = nullptr;
    QLabel *m_limitsNotice = nullptr;
    LimitListBar *m_limitBar = nullptr;
    PlanTableView *m_planTable = nullptr; // plans × limits, when the policy has plans
    int m_limit = 0; // the limit of the route the fields edit
    QLineEdit *m_id = nullptr, *m_description = nullptr, *m_path = nullptr, *m_key = nullptr;
    QList<QCheckBox *> m_methods;
    QLineEdit *m_pathTest = nullptr;
    bool m_pathTestTyped = false; // the operator's own path stays from route to route
    QLabel *m_pathTestResult = nullptr;
    QComboBox *m_algorithm = nullptr, *m_leakMode = nullptr, *m_mode = nullptr,
              *m_missingKey = nullptr, *m_calendar = nullptr, *m_timeZone = nullptr;
    QSpinBox *m_cost = nullptr;
    QLabel *m_nextResets = nullptr; // a calendar limit's next three resets
    // The chosen limit's own route fields, shown for a route whose limits are a list.
    QLineEdit *m_limitKey = nullptr;
    QComboBox *m_limitMissingKey = nullptr, *m_limitMode = nullptr;
    QSpinBox *m_limitCost = nullptr;
    QHash<QString, QWidget *> m_fields; // field path below the route ("limit.capacity") → editor
    QHash<QString, QWidget *> m_rows; // field → the row widget (editor + message)
    QHash<QString, QLabel *> m_messages;
    QString m_keyProblem; // a key text that does not parse is never committed
    QString m_limitKeyProblem; // the same for the chosen limit's own key
    QString m_planProblem; // a plan table cell that did not parse
};

} // namespace qs
