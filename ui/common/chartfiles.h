#pragma once
// Saving what a chart shows: the picture as PNG or SVG, the numbers as CSV.
#include "model/base/expected.h"
#include "model/simulation/simulator.h"

#include <QString>

class QChartView;

namespace qs {

// Saved, or what went wrong. The format follows the file's suffix.
Expected<void> saveChartImage(QChartView *view, const QString &path);
// One row per point: time, then value, min and max of every series (same time base).
Expected<void> saveSeriesCsv(const std::vector<Series> &series, const QString &path);
QByteArray seriesCsv(const std::vector<Series> &series);

} // namespace qs
