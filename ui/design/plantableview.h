#pragma once
// A route's plans × limits: each cell a plan's numbers for that limit (`capacity 100, refill
// 10/s`), `unlimited`, or the limit's own numbers shown greyed (inherited). Typing into a cell and
// pressing Enter asks for the change; clearing it returns the plan to the limit's own. It only
// shows and asks; the route editor makes each change an undo step and reports what it refused.
#include "model/policy/policy.h"

#include <QTableWidget>

namespace qs {

class PlanTableView : public QTableWidget {
    Q_OBJECT
public:
    explicit PlanTableView(QWidget *parent = nullptr);

    void show(const Route &route, const PlanSettings &plans);

signals:
    // `text` for plan `plan` of limit `limit`, as typed (plans.h, parsePlanCell).
    void cellEdited(const QString &plan, int limit, const QString &text);

private:
    bool m_loading = false;
};

} // namespace qs
