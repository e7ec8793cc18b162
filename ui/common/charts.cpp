#include "ui/common/charts.h"

#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QLegend>
#include <QLineSeries>
#include <QToolTip>
#include <QValueAxis>

namespace qs {

namespace {

QChart *newChart(QChartView *view, const ChartLabels &labels)
{
    auto *chart = new QChart;
    // The theme first: applying it after the series would reset their pens.
    chart->setTheme(view->palette().color(QPalette::Window).lightness() < 128
            ? QChart::ChartThemeDark
            : QChart::ChartThemeLight);
    chart->setBackgroundBrush(view->palette().color(QPalette::Base));
    chart->setTitle(labels.title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
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

} // namespace

void showSeries(
    QChartView *view, const ChartLabels &labels, const std::vector<const Series *> &series)
{
    QChart *chart = newChart(view, labels);
    QValueAxis *x = axis(labels.xAxis), *y = axis(labels.yAxis);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    double xMax = 0, yMax = 0;
    for (const Series *s : series) {
        auto *line = new QLineSeries;
        line->setName(s->name);
        QList<QPointF> points;
        points.reserve(qsizetype(s->t.size()));
        for (std::size_t i = 0; i < s->t.size(); ++i) {
            points.append(QPointF(s->t[i], s->value[i]));
            xMax = std::max(xMax, s->t[i]);
            yMax = std::max(yMax, s->value[i]);
        }
        line->replace(points); // one update instead of one per point
        chart->addSeries(line);
        line->attachAxis(x);
        line->attachAxis(y);
        const QString unit = s->unit;
        QObject::connect(line, &QLineSeries::hovered, view,
            [name = s->name, unit](const QPointF &p, bool state) {
                if (state)
                    QToolTip::showText(QCursor::pos(),
                        QStringLiteral("%1 at %2 s: %3 %4")
                            .arg(name)
                            .arg(p.x(), 0, 'f', 2)
                            .arg(p.y(), 0, 'g', 5)
                            .arg(unit));
                else
                    QToolTip::hideText();
            });
    }
    x->setRange(0, std::max(1.0, xMax));
    y->setRange(0, std::max(1.0, yMax * 1.1));
    x->applyNiceNumbers(); // ticks at 0, 10, 20 … instead of 0, 14.9, 29.8 …
    y->applyNiceNumbers();
    install(view, chart);
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
