#pragma once
// Saving what a chart shows: the picture as PNG or SVG, the numbers as CSV.
#include "model/simulation/simulator.h"

#include <QString>

class QChartView;

namespace qs {

// Empty string on success, else what went wrong. The format follows the file's suffix.
QString saveChartImage(QChartView *view, const QString &path);
// One row per point: time, then value, min and max of every series (same time base).
QString saveSeriesCsv(const std::vector<Series> &series, const QString &path);
QByteArray seriesCsv(const std::vector<Series> &series);

} // namespace qs
