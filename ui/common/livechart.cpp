#include "ui/common/livechart.h"

#include <QAreaSeries>
#include <QChart>
#include <QEvent>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace qs {

namespace {

// Round tick steps (1, 2, 5 × 10^n) so that at most `most` ticks fit `span`.
double tickFor(double span, double most = 8)
{
    double tick = 1e-3;
    for (double decade = 1e-3; span / tick > most; decade *= 10)
        for (const double m : {1.0, 2.0, 5.0})
            if (span / tick > most)
                tick = m * decade;
    return tick;
}

// A dynamic-tick axis creates one item per tick at once: changing range and interval in the
// wrong order would build, for a moment, 100 000 ticks (0–100 000 keys at the old interval of 1)
// and hold the GUI thread for seconds. The coarser setting goes first.
void setRangeAndTicks(QValueAxis *axis, double min, double max, double interval)
{
    if (interval >= axis->tickInterval()) {
        axis->setTickInterval(interval);
        axis->setRange(min, max);
    } else {
        axis->setRange(min, max);
        axis->setTickInterval(interval);
    }
}

} // namespace

LiveChart::LiveChart(const ChartLabels &labels, QWidget *parent)
    : QChartView(parent), m_labels(labels), m_x(new QValueAxis), m_y(new QValueAxis)
{
    setRenderHint(QPainter::Antialiasing);
    auto *chart = new QChart;
    applyChartTheme(chart, this);
    m_y->setTitleText(labels.yAxis);
    m_y->setLabelFormat(QStringLiteral("%.0f"));
    m_y->setTickType(QValueAxis::TicksDynamic);
    m_y->setTickAnchor(0);
    m_x->setLabelFormat(QStringLiteral("%.0f"));
    m_x->setTickType(QValueAxis::TicksDynamic);
    m_x->setTickAnchor(0);
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    setChart(chart);
    m_hint = tr("waiting for data");
    show({}, 60);
}

void LiveChart::setHint(const QString &hint)
{
    m_hint = hint;
    updateTitle();
}

void LiveChart::setTitle(const QString &title)
{
    m_labels.title = title;
    updateTitle();
}

void LiveChart::setNote(const QString &note)
{
    m_note = note;
    updateTitle();
}

void LiveChart::updateTitle()
{
    bool anyPoint = false;
    for (const Series &s : m_series)
        anyPoint = anyPoint || !s.t.empty();
    QString title = m_labels.title;
    if (!anyPoint && !m_hint.isEmpty())
        title += QStringLiteral(" — ") + m_hint;
    if (!m_note.isEmpty())
        title += QStringLiteral(" (%1)").arg(m_note);
    chart()->setTitle(title);
}

QLineSeries *LiveChart::lineFor(const Series &s, int segment, TimeUnit time)
{
    QList<QLineSeries *> &segments = m_lines[s.name];
    while (segments.size() <= segment) {
        auto *line = new QLineSeries;
        line->setName(s.name);
        chart()->addSeries(line);
        if (const QColor c = seriesColor(s.name); c.isValid())
            line->setPen(QPen(c, 2));
        else if (!segments.isEmpty())
            line->setPen(segments.front()->pen()); // the theme's colour of the first
        line->attachAxis(m_x);
        line->attachAxis(m_y);
        // The tooltip names the unit the axis shows; a window change re-creates the line.
        showValueOnHover(line, this, s.name, s.unit, time);
        if (!segments.isEmpty()) // one legend entry per series, not per segment
            for (QLegendMarker *marker : chart()->legend()->markers(line))
                marker->setVisible(false);
        segments.append(line);
    }
    return segments[segment];
}

void LiveChart::showGaps(const std::vector<std::pair<double, double>> &gaps, double top)
{
    for (QAbstractSeries *band : std::as_const(m_gapBands)) {
        chart()->removeSeries(band);
        delete band;
    }
    m_gapBands.clear();
    for (const auto &[from, to] : gaps) {
        auto *upper = new QLineSeries;
        auto *lower = new QLineSeries;
        upper->append({QPointF(from, top), QPointF(to, top)});
        lower->append({QPointF(from, 0), QPointF(to, 0)});
        auto *band = new QAreaSeries(upper, lower);
        upper->setParent(band);
        lower->setParent(band);
        band->setName(tr("not connected"));
        QColor fill = palette().color(QPalette::Text);
        fill.setAlphaF(0.12);
        band->setBrush(fill);
        band->setPen(Qt::NoPen);
        chart()->addSeries(band);
        band->attachAxis(m_x);
        band->attachAxis(m_y);
        if (!m_gapBands.isEmpty())
            for (QLegendMarker *marker : chart()->legend()->markers(band))
                marker->setVisible(false);
        m_gapBands.append(band);
    }
}

void LiveChart::show(const std::vector<Series> &series, double windowSeconds)
{
    m_series = series;
    m_windowSeconds = windowSeconds;
    const TimeUnit time = timeUnitFor(windowSeconds);
    if (time.name != m_timeUnit) { // the tooltips' unit changes: start the lines afresh
        for (const QList<QLineSeries *> &segments : std::as_const(m_lines))
            for (QLineSeries *line : segments) {
                chart()->removeSeries(line);
                delete line;
            }
        m_lines.clear();
        m_timeUnit = time.name;
        QString title = m_labels.xAxis;
        m_x->setTitleText(
            title.replace(QStringLiteral("(s)"), QStringLiteral("(%1)").arg(time.name)));
    }
    QHash<QString, int> shown; // name -> segments used
    std::vector<std::pair<double, double>> gaps;
    double yMax = 0;
    for (const Series &s : series) {
        int segment = 0;
        QList<QPointF> points;
        points.reserve(qsizetype(s.t.size()));
        for (size_t i = 0; i < s.t.size(); ++i) {
            const double x = s.t[i] / time.seconds;
            if (std::isnan(s.value[i])) {
                // The band spans from the point before the gap to the point after it.
                const double from = i > 0 ? s.t[i - 1] / time.seconds : x;
                const double to = i + 1 < s.t.size() ? s.t[i + 1] / time.seconds : 0;
                if (std::none_of(gaps.begin(), gaps.end(),
                        [&](const auto &g) { return g.first == from && g.second == to; }))
                    gaps.emplace_back(from, to);
                lineFor(s, segment++, time)->replace(points); // one update, not one per point
                points.clear();
                continue;
            }
            points.append(QPointF(x, s.value[i]));
            yMax = std::max(yMax, s.value[i]);
        }
        lineFor(s, segment, time)->replace(points);
        shown.insert(s.name, segment + 1);
    }
    for (auto it = m_lines.begin(); it != m_lines.end();) {
        const int keep = shown.value(it.key(), 0);
        while (it->size() > keep) { // segments (or a whole series) no longer shown
            chart()->removeSeries(it->back());
            delete it->back();
            it->pop_back();
        }
        it = it->isEmpty() ? m_lines.erase(it) : std::next(it);
    }
    const double span = windowSeconds / time.seconds;
    const double tick = tickFor(span);
    setRangeAndTicks(m_x, -span, 0, tick);
    m_x->setLabelFormat(tick < 1 ? QStringLiteral("%.1f") : QStringLiteral("%.0f"));
    // The y axis ends at the next round step above the data, with ticks at those steps.
    // As many ticks as the height has room for (a label about every 40 px): on a short chart
    // eight labels overlap and Qt elides every one of them to "…".
    const double top = std::max(1.0, yMax * 1.1);
    const double step = std::max(1.0, tickFor(top, std::clamp(height() / 40.0, 2.0, 8.0)));
    const double yTop = std::ceil(top / step) * step;
    setRangeAndTicks(m_y, 0, yTop, step);
    showGaps(gaps, yTop);
    updateTitle();
}

void LiveChart::resizeEvent(QResizeEvent *event)
{
    QChartView::resizeEvent(event);
    show(std::vector<Series>(m_series), m_windowSeconds); // the ticks follow the height
}

void LiveChart::changeEvent(QEvent *event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyChartTheme(chart(), this);
        for (const QList<QLineSeries *> &segments : std::as_const(m_lines))
            for (QLineSeries *line : segments)
                if (const QColor c = seriesColor(line->name()); c.isValid())
                    line->setPen(QPen(c, 2));
        show(std::vector<Series>(m_series), m_windowSeconds); // the bands take the new palette
    }
}

} // namespace qs
