#pragma once
// The two-column "Measure / Value" table that summarises a run (Simulate, Probe): read-only,
// alternating rows, the value column stretched, named for screen readers.
#include <QString>

class QTableWidget;

namespace qs {

QTableWidget *newMeasureTable(const QString &accessibleName);
// Appends a row; `tip` (or the value itself) is the tooltip of both cells.
void addMeasureRow(
    QTableWidget *table, const QString &measure, const QString &value, const QString &tip = {});

} // namespace qs
