#pragma once
// Line charts of simulator series with the conventions every chart here follows: a title,
// axes with units, a legend, hover tooltips with the exact value, and the theme of the
// current palette (light or dark).
#include "model/simulation/simulator.h"

#include <QString>

class QChart;
class QColor;
class QChartView;

namespace qs {

struct ChartLabels {
    QString title, xAxis, yAxis;
};

// The colour of a series by what it means ("offered", "allowed", "gcra …"), the same on every
// chart and palette; invalid for a name with no fixed meaning.
QColor seriesColor(const QString &seriesName);

// Replaces the view's chart (deleting the old one).
void showSeries(
    QChartView *view, const ChartLabels &labels, const std::vector<const Series *> &series);
// An empty chart that still says what it will show.
void showEmptyChart(QChartView *view, const ChartLabels &labels, const QString &hint);

} // namespace qs
