#pragma once
// A chart of series that move: the Monitor tab's charts are redrawn every second, so the chart,
// its axes and its lines are made once and only their points are replaced (building a QChart
// anew each second would cost the GUI thread several milliseconds per chart). Time runs on the
// x axis up to now (0), in seconds or minutes before it; the conventions of charts.h hold:
// title, axes with units, legend, hover tooltips, the palette's theme, fixed series colours.
#include "model/simulation/simulator.h"
#include "ui/common/charts.h"

#include <QChartView>
#include <QHash>

class QAbstractSeries;
class QLineSeries;
class QValueAxis;

namespace qs {

class LiveChart : public QChartView {
    Q_OBJECT
public:
    LiveChart(const ChartLabels &labels, QWidget *parent = nullptr);

    // The series to show, t in seconds before now (≤ 0), over the last `windowSeconds`. Lines
    // are matched by name: a name seen first adds a line, a name gone removes it. A NaN value
    // is a gap (MonitorTimeline: nothing was read): the line breaks there and a shaded band,
    // "not connected" in the legend, covers the time between the points on either side.
    void show(const std::vector<Series> &series, double windowSeconds);
    // What the chart shows when it has nothing: the title says why ("waiting for data").
    void setHint(const QString &hint);
    void setTitle(const QString &title);
    // Said after the title whether or not there are points ("not connected; last data from …").
    void setNote(const QString &note);
    // The series last shown (for CSV).
    const std::vector<Series> &series() const { return m_series; }

protected:
    void changeEvent(QEvent *event) override; // a palette change re-themes the chart
    void resizeEvent(QResizeEvent *event) override;

private:
    // The line of `s`'s segment `segment` (a gap starts the next); the first carries the legend.
    QLineSeries *lineFor(const Series &s, int segment, TimeUnit time);
    void showGaps(const std::vector<std::pair<double, double>> &gaps, double top);
    void updateTitle();

    ChartLabels m_labels;
    QString m_hint, m_note;
    QValueAxis *m_x, *m_y;
    QHash<QString, QList<QLineSeries *>> m_lines; // by name, one per segment
    QList<QAbstractSeries *> m_gapBands;
    QString m_timeUnit;
    std::vector<Series> m_series;
    double m_windowSeconds = 60;
};

} // namespace qs
