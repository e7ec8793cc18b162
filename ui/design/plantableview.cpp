#include "ui/design/plantableview.h"

#include "model/policy/limitconversion.h"
#include "model/policy/plans.h"

#include <QHeaderView>

namespace qs {

PlanTableView::PlanTableView(QWidget *parent) : QTableWidget(parent)
{
    setObjectName(QStringLiteral("planTable"));
    setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
        | QAbstractItemView::AnyKeyPressed);
    setSelectionMode(QAbstractItemView::SingleSelection);
    horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    setToolTip(tr("Each plan's numbers for each limit of this route. Type `capacity 100, "
                  "refill 10/s` (the fields of the limit's algorithm), `unlimited` (the plan's "
                  "requests are neither counted nor denied by that limit), or clear the cell for "
                  "the limit's own numbers (shown greyed). Enter or F2 edits; every change is "
                  "one undo step."));
    connect(this, &QTableWidget::itemChanged, this, [this](QTableWidgetItem *item) {
        if (m_loading)
            return;
        // The inherited cell's placeholder, left as it was, asks for the limit's own.
        const QString text = item->text() == tr("(limit's own)") ? QString() : item->text();
        emit cellEdited(verticalHeaderItem(item->row())->text(), item->column(), text);
    });
}

void PlanTableView::show(const Route &route, const PlanSettings &plans)
{
    m_loading = true;
    const int current = currentRow(), currentColumn = this->currentColumn();
    clear();
    setRowCount(int(plans.names.size()));
    setColumnCount(int(route.limits.size()));
    for (int c = 0; c < route.limits.size(); ++c)
        setHorizontalHeaderItem(c, new QTableWidgetItem(route.limits[c].name));
    for (int r = 0; r < plans.names.size(); ++r) {
        const QString &plan = plans.names[r];
        setVerticalHeaderItem(r, new QTableWidgetItem(plan));
        verticalHeaderItem(r)->setToolTip(plan == plans.effectiveDefault()
                ? tr("%1 is the default plan: requests with a missing or unknown plan get it")
                      .arg(plan)
                : QString());
        for (int c = 0; c < route.limits.size(); ++c) {
            const RouteLimit &limit = route.limits[c];
            auto *item = new QTableWidgetItem;
            if (const PlanLimit *own = limit.planLimit(plan)) {
                item->setText(formatPlanCell(*own));
            } else {
                // Inherited: shown, not stored; editing starts from an empty cell.
                item->setData(Qt::ToolTipRole,
                    tr("%1 gets the limit's own numbers: %2").arg(plan, describeLimit(limit.spec)));
                item->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
                item->setData(Qt::DisplayRole, tr("(limit's own)"));
            }
            setItem(r, c, item);
        }
    }
    if (current >= 0 && current < rowCount() && currentColumn >= 0 && currentColumn < columnCount())
        setCurrentCell(current, currentColumn);
    // As tall as its rows: a plan table is a few lines, not a pane to scroll.
    resizeRowsToContents();
    int height = horizontalHeader()->sizeHint().height() + 2 * frameWidth();
    for (int r = 0; r < rowCount(); ++r)
        height += rowHeight(r);
    setFixedHeight(height);
    m_loading = false;
}

} // namespace qs
