#include "ui/design/algorithmpanel.h"

#include "ui/common/charts.h"

#include "model/export/limitshape.h"
#include "model/policy/algorithmguide.h"

#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QPen>
#include <QVBoxLayout>
#include <QValueAxis>

namespace qs {

AlgorithmPanel::AlgorithmPanel(QWidget *parent)
    : QWidget(parent), m_text(new QLabel), m_view(new QChartView)
{
    auto *layout = new QVBoxLayout(this);
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    m_text->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_text);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumHeight(230);
    m_view->setToolTip(tr("Requests offered and admitted when a client sends a burst of twice the "
                          "limit at once, then keeps sending at twice the sustained rate."));
    layout->addWidget(m_view, 1);
}

void AlgorithmPanel::show(
    limiter::Algorithm algorithm, const std::optional<limiter::AlgorithmConfig> &config)
{
    const AlgorithmGuide g = algorithmGuide(algorithm);
    // No heading: the algorithm's name is right beside, in the editor's picker.
    m_text->setText(
        QStringLiteral("<p><b>%1</b> %2</p><p><b>%3</b> %4</p>"
                       "<p><b>%5</b> %6</p><p><b>%7</b> %8</p>")
            .arg(tr("Guarantee:"), g.guarantee.toHtmlEscaped(), tr("Bursts:"),
                g.burst.toHtmlEscaped(), tr("Memory per key:"), g.memory.toHtmlEscaped(),
                tr("Choose it for:"), g.chooseWhen.toHtmlEscaped()));
    if (config)
        plot(*config);
    else {
        auto *chart = new QChart;
        chart->setTitle(tr("Fix the limit's parameters to see its burst behaviour"));
        QChart *old = m_view->chart();
        m_view->setChart(chart);
        delete old;
    }
}

void AlgorithmPanel::plot(const limiter::AlgorithmConfig &config)
{
    // The trace: a burst of twice the limit at t = 0, then twice the sustained rate for three
    // times the time the burst would take to refill. Few hundred decisions: cheap enough to
    // redo on every keystroke.
    const LimitShape shape = limitShape(config);
    const double ratePerSecond = double(shape.count) * 1e6 / double(shape.period);
    const double span = std::clamp(3.0 * double(shape.burst) / ratePerSecond, 1.0, 3600.0);
    const std::int64_t burst = std::min<std::int64_t>(2 * shape.burst, 400);
    const int steady = int(std::min(400.0, 2 * ratePerSecond * span));
    auto *offered = new QLineSeries;
    offered->setName(tr("offered"));
    auto *admitted = new QLineSeries;
    admitted->setName(tr("admitted"));
    limiter::AlgorithmState state = limiter::freshState(config);
    std::int64_t offeredCount = 0, admittedCount = 0;
    const auto request = [&](double t) {
        const auto now = limiter::Micros(t * 1e6) + 1'700'000'000'000'000;
        ++offeredCount;
        if (limiter::decide(config, state, now, 1).allowed)
            ++admittedCount;
        offered->append(t, double(offeredCount));
        admitted->append(t, double(admittedCount));
    };
    for (std::int64_t i = 0; i < burst; ++i)
        request(0);
    for (int i = 1; i <= steady; ++i)
        request(span * i / steady);

    auto *chart = new QChart;
    // The theme first: applying it later would reset the series' pens.
    chart->setTheme(palette().color(QPalette::Window).lightness() < 128 ? QChart::ChartThemeDark
                                                                        : QChart::ChartThemeLight);
    chart->setBackgroundVisible(false);
    chart->setTitle(tr("Cumulative requests: burst of %1, then %2/s")
                        .arg(burst)
                        .arg(2 * ratePerSecond, 0, 'g', 3));
    chart->addSeries(offered);
    chart->addSeries(admitted);
    offered->setPen(QPen(seriesColor(QStringLiteral("offered")), 2, Qt::DashLine));
    admitted->setPen(QPen(seriesColor(QStringLiteral("admitted")), 2));
    auto *x = new QValueAxis;
    x->setTitleText(tr("time (s)"));
    auto *y = new QValueAxis;
    y->setTitleText(tr("requests"));
    // The axes end where the trace does (a rounder end left the series stopping short of it).
    setRoundTicks(x, span);
    setRoundTicks(y, double(offeredCount) * 1.05, true);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QLineSeries *s : {offered, admitted}) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    chart->legend()->setAlignment(Qt::AlignBottom);
    // setChart takes ownership of the new chart; the old one must be deleted by us.
    QChart *old = m_view->chart();
    m_view->setChart(chart);
    delete old;
}

} // namespace qs
