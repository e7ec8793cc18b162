#include "ui/common/charts.h"

#include "limiter/algorithms/algorithm.h"

#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QLegend>
#include <QLineSeries>
#include <QLocale>
#include <QPen>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <array>
#include <cmath>

namespace qs {

namespace {

QChart *newChart(QChartView *view, const ChartLabels &labels)
{
    auto *chart = new QChart;
    // The theme first: applying it after the series would reset their pens.
    applyChartTheme(chart, view);
    chart->setTitle(labels.title);
    return chart;
}

void install(QChartView *view, QChart *chart)
{
    QChart *old = view->chart();
    view->setChart(chart);
    delete old;
}

QValueAxis *axis(const QString &title)
{
    auto *a = new QValueAxis;
    a->setTitleText(title);
    a->setLabelFormat(QStringLiteral("%.4g"));
    return a;
}

// The same colour for the same meaning on every chart and in both palettes (Okabe-Ito:
// told apart by colour-blind eyes too): offered, allowed, denied, delayed, remaining, and one
// per algorithm, so that a comparison reads the same as the explanation beside the editor.
QColor colorOf(const QString &seriesName)
{
    // By Algorithm: token bucket, leaky bucket, fixed window, sliding log, sliding counter, GCRA.
    static const std::array<QColor, limiter::kAlgorithmCount> kAlgorithmColors
        = {QColor(0x00, 0x72, 0xb2), QColor(0xe6, 0x9f, 0x00), QColor(0xd5, 0x5e, 0x00),
            QColor(0xcc, 0x79, 0xa7), QColor(0x00, 0x9e, 0x73), QColor(0x56, 0xb4, 0xe9)};
    for (const limiter::Algorithm a : limiter::kAllAlgorithms)
        if (seriesName.startsWith(QLatin1String(limiter::algorithmName(a).data())))
            return kAlgorithmColors[std::size_t(a)];
    static const QList<QPair<QString, QColor>> byPrefix = {
        {QStringLiteral("offered"), QColor(0x56, 0xb4, 0xe9)},
        {QStringLiteral("allowed"), QColor(0x00, 0x9e, 0x73)},
        {QStringLiteral("admitted"), QColor(0x00, 0x9e, 0x73)},
        {QStringLiteral("denied"), QColor(0xd5, 0x5e, 0x00)},
        {QStringLiteral("delayed"), QColor(0xe6, 0x9f, 0x00)},
        {QStringLiteral("remaining"), QColor(0xcc, 0x79, 0xa7)},
        // the Monitor tab's: keys in blue, those refused in the colour of denials
        {QStringLiteral("keys seen"), QColor(0x00, 0x72, 0xb2)},
        {QStringLiteral("throttled"), QColor(0xd5, 0x5e, 0x00)},
        {QStringLiteral("limit"), QColor(0x99, 0x99, 0x99)},
        // the Probe tab's: the gateway as admitted, the design in blue, defects in vermillion
        {QStringLiteral("observed"), QColor(0x00, 0x9e, 0x73)},
        {QStringLiteral("predicted"), QColor(0x00, 0x72, 0xb2)},
        {QStringLiteral("divergence"), QColor(0xd5, 0x5e, 0x00)},
    };
    for (const auto &[prefix, color] : byPrefix)
        if (seriesName.startsWith(prefix))
            return color;
    return {};
}

} // namespace

TimeUnit timeUnitFor(double spanSeconds)
{
    if (spanSeconds > 3 * 3600)
        return {3600, QStringLiteral("h")};
    if (spanSeconds > 300)
        return {60, QStringLiteral("min")};
    return {1, QStringLiteral("s")};
}

QColor seriesColor(const QString &seriesName)
{
    return colorOf(seriesName);
}

void applyChartTheme(QChart *chart, const QWidget *view)
{
    chart->setTheme(view->palette().color(QPalette::Window).lightness() < 128
            ? QChart::ChartThemeDark
            : QChart::ChartThemeLight);
    chart->setBackgroundBrush(view->palette().color(QPalette::Base));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
}

void showValueOnHover(
    QXYSeries *series, QWidget *owner, const QString &name, const QString &unit, TimeUnit time)
{
    QObject::connect(
        series, &QXYSeries::hovered, owner, [name, unit, time](const QPointF &p, bool state) {
            if (state)
                QToolTip::showText(QCursor::pos(),
                    QStringLiteral("%1 at %2 %3: %4 %5")
                        .arg(name)
                        .arg(QLocale().toString(p.x(), 'f', 2), time.name)
                        .arg(QLocale().toString(p.y(), 'f', p.y() < 100 ? 2 : 0), unit));
            else
                QToolTip::hideText();
        });
}

void showSeries(
    QChartView *view, const ChartLabels &labels, const std::vector<const Series *> &series)
{
    QChart *chart = newChart(view, labels);
    // Each point is the start of an interval: the data ends one interval after the last.
    double span = 0;
    for (const Series *s : series)
        if (!s->t.empty())
            span = std::max(span, s->t.back() + (s->t.size() > 1 ? s->t[1] - s->t[0] : 0.0));
    const TimeUnit time = timeUnitFor(span);
    // The x axis title names the unit the values are in: "time (min)" for a 20-minute run.
    QString xTitle = labels.xAxis;
    xTitle.replace(QStringLiteral("(s)"), QStringLiteral("(%1)").arg(time.name));
    QValueAxis *x = axis(xTitle), *y = axis(labels.yAxis);
    x->setLabelFormat(QStringLiteral("%.0f"));
    y->setLabelFormat(QStringLiteral("%.0f")); // never 1e+04
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    double xMax = 0, yMax = 0;
    bool integers = true;
    // Offered is drawn last and dashed: where every request is admitted it lies on the allowed
    // line, which must show through it rather than hide it.
    std::vector<const Series *> order = series;
    std::stable_partition(order.begin(), order.end(),
        [](const Series *s) { return s->name != QLatin1String("offered"); });
    for (const Series *s : order) {
        auto *line = new QLineSeries;
        line->setName(s->name);
        QList<QPointF> points;
        points.reserve(qsizetype(s->t.size()));
        for (std::size_t i = 0; i < s->t.size(); ++i) {
            points.append(QPointF(s->t[i] / time.seconds, s->value[i]));
            xMax = std::max(xMax, s->t[i] / time.seconds);
            yMax = std::max(yMax, s->value[i]);
            integers = integers && s->value[i] == std::floor(s->value[i]);
        }
        line->replace(points); // one update instead of one per point
        chart->addSeries(line);
        if (const QColor c = colorOf(s->name); c.isValid())
            line->setPen(
                QPen(c, 2, s->name == QLatin1String("offered") ? Qt::DashLine : Qt::SolidLine));
        line->attachAxis(x);
        line->attachAxis(y);
        showValueOnHover(line, view, s->name, s->unit, time);
    }
    // The axis ends at the data, not at the next round number past it, with ticks at round
    // steps from 0 (0, 10, 20 … 60, not 0, 9.8, 19.7 …).
    setRoundTicks(x, std::max(span / time.seconds, xMax));
    setRoundTicks(y, std::max(1.0, yMax * 1.05), integers);
    install(view, chart);
}

void setRoundTicks(QValueAxis *axis, double end, bool integers)
{
    end = std::max(1e-9, end);
    double tick = 1e-3;
    for (double decade = 1e-3; end / tick > 8; decade *= 10)
        for (const double m : {1.0, 2.0, 5.0})
            if (end / tick > 8)
                tick = m * decade;
    if (integers)
        tick = std::max(tick, 1.0);
    axis->setRange(0, end);
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0);
    axis->setTickInterval(tick);
    axis->setLabelFormat(tick < 1 ? QStringLiteral("%.1f") : QStringLiteral("%.0f"));
}

void showEmptyChart(QChartView *view, const ChartLabels &labels, const QString &hint)
{
    QChart *chart = newChart(view, labels);
    chart->setTitle(QStringLiteral("%1 — %2").arg(labels.title, hint));
    QValueAxis *x = axis(labels.xAxis), *y = axis(labels.yAxis);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    install(view, chart);
}

} // namespace qs
