#include "ui/monitor/monitorcharts.h"

#include "ui/common/chartfiles.h"
#include "ui/common/icons.h"
#include "ui/common/livechart.h"

#include <QComboBox>
#include <QDateTime>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include <limits>

namespace qs {

namespace {

const QList<QPair<QString, int>> kWindows = {{QObject::tr("1 min"), 60},
    {QObject::tr("5 min"), 300}, {QObject::tr("15 min"), 900}, {QObject::tr("1 h"), 3600}};

} // namespace

MonitorCharts::MonitorCharts(const MonitorTimeline &timeline, QWidget *parent)
    : QWidget(parent), m_timeline(timeline), m_route(new QComboBox), m_window(new QComboBox),
      m_pause(new QPushButton(tr("&Pause"))), m_saveMenu(new QMenu(this)),
      m_requests(
          new LiveChart({tr("Requests per second"), tr("time before now (s)"), tr("requests/s")})),
      m_keys(new LiveChart({tr("Keys"), tr("time before now (s)"), tr("keys")}))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    auto *routeLabel = new QLabel(tr("R&oute:"));
    routeLabel->setBuddy(m_route);
    m_route->setObjectName(QStringLiteral("chartRoute"));
    m_route->setToolTip(tr("The route the charts show; All routes sums them"));
    m_route->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_route->addItem(tr("All routes"));
    auto *windowLabel = new QLabel(tr("&Window:"));
    windowLabel->setBuddy(m_window);
    m_window->setObjectName(QStringLiteral("window"));
    for (const auto &[name, seconds] : kWindows)
        m_window->addItem(name, seconds);
    m_window->setCurrentIndex(0); // a fresh connection fills a minute soonest
    m_window->setToolTip(tr("How far back the charts reach. An hour is kept in memory whatever "
                            "the window, so widening it shows what was already collected."));
    m_pause->setCheckable(true);
    m_pause->setObjectName(QStringLiteral("pause"));
    m_pause->setToolTip(tr("Freeze the charts and the table to read them; collecting goes on, "
                           "and Resume shows everything collected meanwhile"));
    auto *save = new QToolButton;
    save->setObjectName(QStringLiteral("save"));
    save->setText(tr("&Save"));
    save->setIcon(icon(QStringLiteral("save")));
    save->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    save->setPopupMode(QToolButton::InstantPopup);
    save->setMenu(m_saveMenu);
    save->setToolTip(tr("Save a chart (PNG, SVG) or the series in the window (CSV)"));
    bar->addWidget(routeLabel);
    bar->addWidget(m_route);
    bar->addWidget(windowLabel);
    bar->addWidget(m_window);
    bar->addStretch(1);
    bar->addWidget(m_pause);
    bar->addWidget(save);
    layout->addLayout(bar);

    auto *charts = new QSplitter(Qt::Horizontal);
    m_requests->setObjectName(QStringLiteral("requestsChart"));
    m_keys->setObjectName(QStringLiteral("keysChart"));
    m_requests->setToolTip(tr("Allowed and denied requests per second, from the "
                              "deployment's own counters (redis.metrics: true)"));
    m_keys->setToolTip(tr("Live keys (one per client and route) and those whose next "
                          "request would be refused now"));
    charts->addWidget(m_requests);
    charts->addWidget(m_keys);
    charts->setChildrenCollapsible(false);
    for (LiveChart *c : {m_requests, m_keys})
        c->setMinimumSize(260, 200);
    layout->addWidget(charts, 1);

    addChartToSave(m_requests, tr("Requests chart as PNG or SVG…"));
    addChartToSave(m_keys, tr("Keys chart as PNG or SVG…"));
    m_saveMenu->addSeparator();
    m_saveMenu->addAction(
        icon(QStringLiteral("table")), tr("Series as CSV…"), this, &MonitorCharts::saveCsv);

    connect(m_route, &QComboBox::currentIndexChanged, this, &MonitorCharts::redraw);
    connect(m_window, &QComboBox::currentIndexChanged, this,
        [this](int i) { setWindowSeconds(m_window->itemData(i).toInt()); });
    connect(m_pause, &QPushButton::toggled, this, &MonitorCharts::setPaused);
    redraw(); // empty, and saying why
}

void MonitorCharts::setRoutes(const QStringList &ids)
{
    const QString current = m_route->currentText();
    const QSignalBlocker quiet(m_route);
    m_route->clear();
    m_route->addItem(tr("All routes"));
    m_route->addItems(ids);
    m_route->setCurrentIndex(std::max(0, m_route->findText(current)));
}

void MonitorCharts::addChartToSave(LiveChart *chart, const QString &menuText)
{
    auto *action = new QAction(icon(QStringLiteral("image")), menuText, m_saveMenu);
    connect(action, &QAction::triggered, this, [this, chart] { saveChart(chart); });
    // Charts before the separator and the CSV.
    const QList<QAction *> actions = m_saveMenu->actions();
    const auto separator = std::find_if(
        actions.begin(), actions.end(), [](const QAction *a) { return a->isSeparator(); });
    m_saveMenu->insertAction(separator == actions.end() ? nullptr : *separator, action);
}

void MonitorCharts::setSource(const QString &server, bool monitoring, bool connected)
{
    const bool changed
        = server != m_server || monitoring != m_monitoring || connected != m_connected;
    m_server = server;
    m_monitoring = monitoring;
    m_connected = connected;
    if (changed && !m_paused)
        redraw(); // the hints follow the connection
}

QString MonitorCharts::route() const
{
    return m_route->currentIndex() > 0 ? m_route->currentText() : QString();
}

void MonitorCharts::redraw()
{
    const double window = m_windowSeconds;
    // An empty chart says why; data kept from a closed connection says whose it is.
    const QString why = !m_monitoring || !m_connected ? tr("not connected")
        : m_timeline.empty()                          ? tr("waiting for the first refresh")
                                                      : tr("waiting for data");
    const QString note = !m_monitoring && !m_timeline.empty() && !m_server.isEmpty()
        ? tr("not connected; the last data of %1").arg(m_server)
        : QString();
    m_keys->setHint(why);
    m_keys->setNote(note);
    m_keys->show(m_timeline.keySeries(route(), window), window);
    m_requests->setNote(note);
    if (m_timeline.hasRequestCounts()) {
        m_requests->setHint(why);
        m_requests->show(m_timeline.requestSeries(route(), window), window);
    } else {
        m_requests->show({}, window);
        m_requests->setHint(m_monitoring && m_connected && !m_timeline.empty()
                ? tr("the deployment does not count (redis.metrics)")
                : why);
    }
}

void MonitorCharts::setPaused(bool paused)
{
    if (m_paused == paused && m_pause->isChecked() == paused)
        return;
    m_paused = paused;
    if (m_pause->isChecked() != paused)
        m_pause->setChecked(paused);
    m_pause->setText(paused ? tr("&Resume") : tr("&Pause"));
    if (!paused)
        redraw();
    emit pausedChanged(paused);
}

void MonitorCharts::setWindowSeconds(int seconds)
{
    m_windowSeconds = seconds;
    for (int i = 0; i < m_window->count(); ++i)
        if (m_window->itemData(i).toInt() == seconds && m_window->currentIndex() != i) {
            const QSignalBlocker quiet(m_window);
            m_window->setCurrentIndex(i);
        }
    // Paused charts redraw too: a wider window is a way of reading what was collected.
    redraw();
    emit windowChanged(seconds);
}

void MonitorCharts::saveChart(LiveChart *chart)
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save chart"),
        QStringLiteral("monitor-%1.png").arg(chart->objectName()),
        tr("PNG image (*.png);;SVG drawing (*.svg)"));
    if (path.isEmpty())
        return;
    // The saved picture says where and when it was taken: it is read without the app beside it.
    const QString title = chart->chart()->title();
    chart->chart()->setTitle(QStringLiteral("%1<br><small>%2 — last %3, %4</small>")
                                 .arg(title, m_server.toHtmlEscaped(), m_window->currentText(),
                                     QLocale().toString(QDateTime::currentDateTime())));
    const Expected<void> saved = saveChartImage(chart, path);
    chart->chart()->setTitle(title);
    if (!saved)
        QMessageBox::warning(this, tr("Save chart"), saved.error());
}

std::vector<Series> MonitorCharts::windowSeries() const
{
    std::vector<Series> series = m_timeline.keySeries(route(), m_windowSeconds);
    // Request counts on the keys' time base: a refresh without counts is an empty cell. (A copy
    // of the times: the push_back below may move the series they belong to.)
    const std::vector<double> t = series.front().t;
    for (const Series &counted : m_timeline.requestSeries(route(), m_windowSeconds)) {
        Series aligned{counted.name, counted.unit, t, {}, {}, {}};
        size_t j = 0;
        for (const double at : t) {
            while (j < counted.t.size() && counted.t[j] < at)
                ++j;
            const double v = j < counted.t.size() && counted.t[j] == at
                ? counted.value[j]
                : std::numeric_limits<double>::quiet_NaN();
            aligned.value.push_back(v);
            aligned.min.push_back(v);
            aligned.max.push_back(v);
        }
        series.push_back(std::move(aligned));
    }
    return series;
}

void MonitorCharts::saveCsv()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save series"), QStringLiteral("monitor.csv"), tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    if (const Expected<void> saved = saveSeriesCsv(windowSeries(), path); !saved)
        QMessageBox::warning(this, tr("Save series"), saved.error());
}

} // namespace qs
