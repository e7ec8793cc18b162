#pragma once
// Line charts of simulator series with the conventions every chart here follows: a title,
// axes with units, a legend, hover tooltips with the exact value, and the theme of the
// current palette (light or dark).
#include "model/simulation/simulator.h"

#include <QString>

class QValueAxis;

class QChart;
class QColor;
class QChartView;
class QWidget;
class QXYSeries;

namespace qs {

struct ChartLabels {
    QString title, xAxis, yAxis;
};

// Seconds, minutes or hours, whichever keeps the axis labels of a span short and plain.
struct TimeUnit {
    double seconds;
    QString name;
};
TimeUnit timeUnitFor(double spanSeconds);

// The light or dark chart theme of the view's palette, legend below. Apply before adding
// series: the theme resets their pens.
void applyChartTheme(QChart *chart, const QWidget *view);
// A tooltip with the exact value under the pointer: "denied at 12.50 s: 3.00 requests/s".
void showValueOnHover(
    QXYSeries *series, QWidget *owner, const QString &name, const QString &unit, TimeUnit time);

// The colour of a series by what it means ("offered", "allowed", "gcra …"), the same on every
// chart and palette; invalid for a name with no fixed meaning.
QColor seriesColor(const QString &seriesName);

// Replaces the view's chart (deleting the old one).
void showSeries(
    QChartView *view, const ChartLabels &labels, const std::vector<const Series *> &series);
// An empty chart that still says what it will show.
void showEmptyChart(QChartView *view, const ChartLabels &labels, const QString &hint);

// The axis from 0 to `end` (the data's end, not the next round number past it) with ticks at
// round steps from 0: 1, 2 or 5 times a power of ten, at most about 8 of them. `integers` (data
// that are whole numbers): no step below 1, so that labels never read "0, 1, 1, 2".
void setRoundTicks(QValueAxis *axis, double end, bool integers = false);

} // namespace qs
