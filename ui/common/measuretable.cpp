#include "ui/common/measuretable.h"

#include <QHeaderView>
#include <QTableWidget>

namespace qs {

QTableWidget *newMeasureTable(const QString &accessibleName)
{
    auto *table = new QTableWidget(0, 2);
    table->setHorizontalHeaderLabels({QObject::tr("Measure"), QObject::tr("Value")});
    table->horizontalHeader()->setStretchLastSection(true);
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setAlternatingRowColors(true);
    table->setAccessibleName(accessibleName);
    return table;
}

void addMeasureRow(
    QTableWidget *table, const QString &measure, const QString &value, const QString &tip)
{
    const int row = table->rowCount();
    table->insertRow(row);
    auto *m = new QTableWidgetItem(measure);
    auto *v = new QTableWidgetItem(value);
    m->setToolTip(tip);
    v->setToolTip(tip.isEmpty() ? value : tip);
    table->setItem(row, 0, m);
    table->setItem(row, 1, v);
}

} // namespace qs
