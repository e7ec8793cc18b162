#include "ui/simulate/simulatepage.h"

#include "model/policy/limitconversion.h"
#include "model/policy/ratesyntax.h"
#include "ui/common/chartfiles.h"
#include "ui/common/charts.h"
#include "ui/common/icons.h"
#include "ui/common/measuretable.h"
#include "ui/common/panes.h"
#include "ui/common/routetrafficinputs.h"
#include "ui/common/runcontrols.h"
#include "ui/design/quantityedit.h"
#include "ui/document/policydocument.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace qs {

namespace {

const ChartLabels kTrafficLabels{QObject::tr("Requests per time bucket"), QObject::tr("time (s)"),
    QObject::tr("requests per second (req/s)")};
const ChartLabels kKeyLabels{QObject::tr("Hottest key: quota left"), QObject::tr("time (s)"),
    QObject::tr("remaining (requests)")};
const ChartLabels kCompareLabels{QObject::tr("Admitted per second, by algorithm"),
    QObject::tr("time (s)"), QObject::tr("admitted (req/s)")};

// The work a run does, on a worker thread: only values cross threads.
SimulationRun simulateRun(Policy policy, qsizetype routeIndex, SimulationSettings settings,
    bool compare, std::shared_ptr<std::atomic<bool>> cancel,
    std::shared_ptr<std::atomic<int>> permille)
{
    SimulationRun run;
    run.comparison = compare;
    const Route &route = policy.routes[routeIndex];
    std::vector<limiter::AlgorithmConfig> configs;
    const auto converted = toAlgorithmConfig(route.limit());
    if (compare && converted.hasValue())
        configs = comparableConfigs(*converted);
    const std::size_t parts = std::max<std::size_t>(1, configs.size());
    for (std::size_t i = 0; i < parts; ++i) {
        const auto progress = [&, i](double f) {
            permille->store(
                int(1000.0 * (double(i) + f) / double(parts)), std::memory_order_relaxed);
        };
        run.results.push_back(simulate(policy, route, settings, cancel.get(), progress,
            configs.empty() ? nullptr : &configs[i]));
        if (run.results.back().cancelled || !run.results.back().error.isEmpty())
            break;
    }
    return run;
}

QString percent(double fraction)
{
    return QStringLiteral("%1 %").arg(100.0 * fraction, 0, 'f', 1);
}

} // namespace

SimulatePage::SimulatePage(PolicyDocument *doc, QWidget *parent) : QWidget(parent), m_doc(doc)
{
    build();
    connect(doc, &PolicyDocument::reset, this, &SimulatePage::refreshRoutes);
    connect(doc, &PolicyDocument::routesChanged, this, &SimulatePage::refreshRoutes);
    connect(doc, &PolicyDocument::routeChanged, this, &SimulatePage::refreshRoutes);
    for (auto signal : {&PolicyDocument::routesChanged, &PolicyDocument::policyFieldsChanged,
             &PolicyDocument::reset})
        connect(doc, signal, this, &SimulatePage::markStale);
    connect(doc, &PolicyDocument::routeChanged, this, &SimulatePage::markStale);
    connect(&m_watcher, &QFutureWatcher<SimulationRun>::finished, this, &SimulatePage::onFinished);
    refreshRoutes();
}

SimulatePage::~SimulatePage()
{
    cancel();
    m_watcher.waitForFinished(); // the worker only holds copies; this returns within a bucket
}

QList<QSplitter *> SimulatePage::splitters() const
{
    return {m_split};
}

void SimulatePage::build()
{
    QWidget *left = buildLeftPane(); // first: the focus follows the order widgets are made
    QWidget *charts = buildCharts();
    m_split = splitPanes(
        Qt::Horizontal, QStringLiteral("simulateSplit"), {{left, 2, 3000}, {charts, 5, 7000}});
    fillPage(this, m_split);

    connectControls();
}

// The settings and the run controls over the summary table and its save buttons.
QWidget *SimulatePage::buildLeftPane()
{
    m_summary = newMeasureTable(tr("Simulation summary"));

    QWidget *settings = buildSettings();
    m_savePng = new QPushButton(icon(QStringLiteral("image")), tr("Save &chart…"));
    m_savePng->setToolTip(tr("Save the visible chart as PNG or SVG"));
    m_saveCsv = new QPushButton(icon(QStringLiteral("table")), tr("Save C&SV…"));
    m_saveCsv->setToolTip(tr("Save the series (per point: mean, min and max) as CSV"));
    return settingsOverTable(settings, m_summary, {m_savePng, m_saveCsv});
}

QWidget *SimulatePage::buildSettings()
{
    auto *settings = new QWidget;
    auto *form = new QFormLayout(settings);
    addTrafficRows(form);
    addRunRows(form);
    return settings;
}

// Which route, what traffic, for how long, from which seed.
void SimulatePage::addTrafficRows(QFormLayout *form)
{
    m_route = new QComboBox;
    m_route->setToolTip(tr("The route whose limit the traffic goes through."));
    form->addRow(tr("&Route:"), m_route);
    m_preset = new QComboBox;
    m_preset->addItems({tr("steady"), tr("poisson"), tr("bursts"), tr("spike (window edges)"),
        tr("ramp"), tr("zipf (many clients)"), tr("replay a log…")});
    m_preset->setToolTip(tr("A starting point for the traffic spec below, sized from the route's "
                            "limit (twice its rate)."));
    form->addRow(tr("&Pattern:"), m_preset);
    m_traffic = new QLineEdit;
    m_traffic->setToolTip(
        tr("steady:RATE[,clients=N] · poisson:RATE · bursts:RATE,on=DUR,off=DUR · "
           "spike:N,window=DUR · ramp:RATE..RATE · zipf:RATE,clients=N[,s=EXP] · "
           "replay:FILE (NGINX/Apache combined log or CSV). Any of them may add "
           ",keyless=SHARE and, on a policy with plans, ,plans=free:70/pro:30 (how the clients "
           "spread over the plans). See docs/simulation.md."));
    form->addRow(tr("&Traffic:"), m_traffic);
    m_trafficProblem = new QLabel;
    m_trafficProblem->setWordWrap(true);
    m_trafficProblem->setVisible(false);
    form->addRow(QString(), m_trafficProblem);
    m_duration = new QuantityEdit;
    m_duration->setValue(60, limiter::kMicrosPerSecond);
    m_duration->setToolTip(
        tr("Simulated time, not wall-clock time: an hour takes well under a second."));
    form->addRow(tr("&Duration:"), m_duration);
    m_seed = new QSpinBox;
    m_seed->setRange(1, 1'000'000);
    m_seed->setToolTip(tr("Same seed, same traffic: change it to see another random draw."));
    form->addRow(tr("S&eed:"), m_seed);
}

void SimulatePage::addRunRows(QFormLayout *form)
{
    m_compare = new QPushButton(icon(QStringLiteral("compare")), tr("&Compare algorithms"));
    m_compare->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    m_compare->setToolTip(
        tr("Run the same traffic through all six algorithms with the same long-run "
           "rate and burst (Shift+F5)"));
    const RunControls c = addRunControls(form, tr("Run the simulation"),
        tr("Stop the simulation; the previous results stay on screen"), {m_compare});
    m_run = c.run;
    m_cancel = c.cancel;
    m_progress = c.progress;
    m_progress->setRange(0, 1000);
    m_status = c.status;
}

// Traffic, the hottest key and the comparison, one tab each.
QTabWidget *SimulatePage::buildCharts()
{
    m_charts = new QTabWidget;
    const auto makeView = [](const ChartLabels &labels, const QString &hint) {
        auto *view = new QChartView;
        view->setRenderHint(QPainter::Antialiasing);
        showEmptyChart(view, labels, hint);
        return view;
    };
    m_trafficChart = makeView(kTrafficLabels, tr("press Run"));
    m_keyChart = makeView(kKeyLabels, tr("press Run"));
    m_compareChart = makeView(kCompareLabels, tr("press Compare algorithms"));
    m_charts->addTab(m_trafficChart, icon(QStringLiteral("simulate")), tr("Traffic"));
    m_charts->addTab(m_keyChart, icon(QStringLiteral("clock")), tr("Hottest key"));
    m_charts->addTab(m_compareChart, icon(QStringLiteral("compare")), tr("Comparison"));
    return m_charts;
}

void SimulatePage::connectControls()
{
    connect(m_run, &QPushButton::clicked, this, [this] { run(false); });
    connect(m_compare, &QPushButton::clicked, this, [this] { run(true); });
    connect(m_cancel, &QPushButton::clicked, this, &SimulatePage::cancel);
    connect(m_preset, &QComboBox::activated, this, &SimulatePage::suggestTraffic);
    connect(m_route, &QComboBox::activated, this, &SimulatePage::suggestTraffic);
    connect(m_savePng, &QPushButton::clicked, this, &SimulatePage::saveChart);
    connect(m_saveCsv, &QPushButton::clicked, this, &SimulatePage::saveCsv);
    connect(m_traffic, &QLineEdit::textEdited, this, &SimulatePage::markStale);
    connect(m_seed, &QSpinBox::valueChanged, this, &SimulatePage::markStale);
    connect(m_duration, &QuantityEdit::edited, this, &SimulatePage::markStale);
    connect(m_route, &QComboBox::activated, this, &SimulatePage::markStale);
    showTrafficProblems(m_traffic, m_trafficProblem);
    auto *poll = new QTimer(this);
    poll->setInterval(50);
    connect(poll, &QTimer::timeout, this, [this] {
        if (m_progressPermille)
            m_progress->setValue(m_progressPermille->load(std::memory_order_relaxed));
    });
    poll->start();
}

void SimulatePage::refreshRoutes()
{
    if (!refillRouteBox(m_route, m_doc->policy()) || m_traffic->text().isEmpty())
        suggestTraffic();
}

void SimulatePage::suggestTraffic()
{
    const int i = m_route->currentIndex();
    if (i < 0 || i >= m_doc->policy().routes.size())
        return;
    const auto [rate, burst] = suggestedLoad(m_doc->policy().routes[i]);
    const QString r = formatRate(rate);
    switch (m_preset->currentIndex()) {
    case 0:
        m_traffic->setText(QStringLiteral("steady:%1").arg(r));
        break;
    case 1:
        m_traffic->setText(QStringLiteral("poisson:%1,clients=5").arg(r));
        break;
    case 2:
        m_traffic->setText(QStringLiteral("bursts:%1,on=5s,off=10s")
                               .arg(formatRate({rate.count * 3, rate.period})));
        break;
    case 3:
        m_traffic->setText(
            QStringLiteral("spike:%1,window=%2").arg(burst).arg(formatDuration(rate.period)));
        break;
    case 4:
        m_traffic->setText(QStringLiteral("ramp:%1..%2")
                               .arg(formatRate({std::max<qint64>(1, rate.count / 4), rate.period}),
                                   formatRate({rate.count * 2, rate.period})));
        break;
    case 5:
        m_traffic->setText(
            QStringLiteral("zipf:%1,clients=1000").arg(formatRate({rate.count * 50, rate.period})));
        break;
    case 6: {
        const QString file = QFileDialog::getOpenFileName(this, tr("Replay an access log"),
            QString(), tr("Access logs (*.log *.csv *.txt);;All files (*)"));
        if (!file.isEmpty())
            m_traffic->setText(QStringLiteral("replay:%1").arg(file));
        break;
    }
    }
}

bool SimulatePage::isRunning() const
{
    return m_watcher.isRunning();
}

void SimulatePage::run(bool compare)
{
    if (isRunning())
        return;
    const int routeIndex = m_route->currentIndex();
    if (routeIndex < 0) {
        m_status->setText(tr("The policy has no route to simulate."));
        return;
    }
    const auto spec = parseTrafficSpec(m_traffic->text());
    if (!spec) {
        m_status->setText(tr("Traffic: %1").arg(spec.error()));
        m_traffic->setFocus();
        return;
    }
    const Route &route = m_doc->policy().routes[routeIndex];
    if (compare && route.hasSeveralLimits()) {
        m_status->setText(tr("Compare runs one limit with each algorithm; route '%1' has %2 "
                             "limits: press Run to simulate them together.")
                              .arg(route.id)
                              .arg(route.limits.size()));
        return;
    }
    const auto converted = toAlgorithmConfig(route.limit());
    if (!converted) {
        m_status->setText(
            tr("Route '%1': %2").arg(m_route->currentText(), converted.error().message));
        return;
    }
    SimulationSettings settings;
    settings.traffic = *spec;
    settings.seed = std::uint64_t(m_seed->value());
    settings.duration = m_duration->count() * m_duration->unit();
    // About one point per second up to 600 points: finer points at low rates hold 0 or 1
    // request each and the mean per point jumps between 0 and the bucket's full rate.
    settings.maxPoints
        = int(std::clamp<limiter::Micros>(settings.duration / limiter::kMicrosPerSecond, 60, 600));
    m_cancelFlag = std::make_shared<std::atomic<bool>>(false);
    m_progressPermille = std::make_shared<std::atomic<int>>(0);
    setRunning(true);
    m_status->setText(compare ? tr("Comparing six algorithms…") : tr("Simulating…"));
    m_pending = SimulationRun{};
    m_pending.policy = m_doc->policy().name;
    m_pending.route = m_route->currentText();
    m_pending.traffic = m_traffic->text();
    m_pending.duration = formatDuration(settings.duration);
    m_pending.shadow = m_doc->policy().routes[routeIndex].effectiveMode() == RouteMode::Shadow;
    m_watcher.setFuture(QtConcurrent::run(simulateRun, m_doc->policy(), qsizetype(routeIndex),
        settings, compare, m_cancelFlag, m_progressPermille));
}

void SimulatePage::cancel()
{
    if (m_cancelFlag)
        m_cancelFlag->store(true);
}

void SimulatePage::setRunning(bool running)
{
    m_run->setEnabled(!running);
    m_compare->setEnabled(!running);
    m_cancel->setEnabled(running);
    m_route->setEnabled(!running);
    if (running)
        m_progress->setValue(0);
}

void SimulatePage::onFinished()
{
    SimulationRun run = m_watcher.result();
    setRunning(false);
    if (run.results.empty())
        return;
    const SimulationResult &last = run.results.back();
    m_progressPermille.reset(); // the poll timer must not overwrite the final value
    if (last.cancelled) {
        m_status->setText(tr("Cancelled. The previous results stay on screen."));
        emit finished();
        return;
    }
    if (!last.error.isEmpty()) {
        m_status->setText(last.error);
        emit finished();
        return;
    }
    m_progress->setValue(1000);
    run.policy = m_pending.policy;
    run.route = m_pending.route;
    run.traffic = m_pending.traffic;
    run.duration = m_pending.duration;
    run.shadow = m_pending.shadow;
    m_last = std::move(run);
    m_stale = false;
    if (m_last.comparison)
        showComparison(m_last.results);
    else
        showResult(m_last.results.front());
    emit finished();
}

void SimulatePage::showResult(const SimulationResult &r)
{
    std::vector<const Series *> traffic, key;
    for (const Series &s : r.series)
        (s.unit == QLatin1String("req/s") ? traffic : key).push_back(&s);
    if (r.summary.delayed == 0 && traffic.size() == 4)
        traffic.pop_back(); // no shaping: an all-zero "delayed" line only adds noise
    ChartLabels labels = kTrafficLabels;
    if (!traffic.empty() && traffic.front()->t.size() > 1)
        labels.title = tr("Requests per second, averaged over %1 s")
                           .arg(traffic.front()->t[1] - traffic.front()->t[0], 0, 'g', 3);
    showSeries(m_trafficChart, labels, traffic);
    const SimulationSummary &s = r.summary;
    // Several limits: each curve as a share of its own limit's quota, so that a burst of 20 and
    // a daily 10 000 read on one axis.
    std::vector<Series> shares;
    if (!s.limits.empty()) {
        for (const Series *curve : key) {
            Series share = *curve;
            for (const LimitSummary &l : s.limits)
                if (curve->name.startsWith(QStringLiteral("remaining ") + l.name + QLatin1Char(' '))
                    && l.quota > 0)
                    for (std::vector<double> *v : {&share.value, &share.min, &share.max})
                        for (double &x : *v)
                            x = 100.0 * x / double(l.quota);
            share.unit = QStringLiteral("%");
            // "burst (client-7)": each limit its own colour (charts.cpp colours "remaining…"
            // alike).
            share.name = curve->name.mid(QStringLiteral("remaining ").size());
            shares.push_back(std::move(share));
        }
        key.clear();
        for (const Series &share : shares)
            key.push_back(&share);
    }
    showSeries(m_keyChart,
        s.limits.empty() ? kKeyLabels
                         : ChartLabels{tr("Hottest key: quota left in each limit"), tr("time (s)"),
                             tr("remaining (% of each limit's quota)")},
        key);
    const QLocale locale;
    const auto count = [&](std::uint64_t n) { return locale.toString(qulonglong(n)); };
    QList<QPair<QString, QString>> rows{
        {tr("Algorithm"), s.algorithm},
        {tr("Requests offered"), count(s.offered)},
        {tr("Allowed"), count(s.allowed)},
        // A shadow route denies nothing in production: say what it would have done.
        {m_last.shadow ? tr("Would deny (shadow mode: passed in production)") : tr("Denied"),
            count(s.denied)},
        {tr("Delayed (shaped)"), count(s.delayed)},
        {tr("Acceptance"), percent(s.acceptance)},
        {tr("Most admitted in any %1").arg(formatDuration(s.window)),
            locale.toString(qlonglong(s.maxAdmittedInWindow))},
        {tr("Delay p50 / p99"),
            QStringLiteral("%1 ms / %2 ms")
                .arg(s.p50DelayUs / 1000, 0, 'f', 1)
                .arg(s.p99DelayUs / 1000, 0, 'f', 1)},
        {tr("Clients"), count(s.clients)},
        {tr("Requests for other routes"), count(s.otherRoutes)},
        {tr("Without key (%1)").arg(missingKeyModeName(s.missingKey)), count(s.keyless)},
    };
    // The top 1% of fewer than 100 clients is one client or none: no figure to read then.
    if (s.clients >= 100)
        rows.insert(rows.size() - 3,
            {tr("Denials taken by the top 1% of clients"), percent(s.topClientsDenialShare)});
    // Several limits: what each said, and which denials it decided.
    QList<QPair<QString, QString>> perLimit;
    for (const LimitSummary &l : s.limits)
        perLimit.append({l.shadow ? tr("Limit %1 (shadow)").arg(l.name)
                                  : tr("Limit %1").arg(l.name),
            l.shadow ? tr("would deny %1 of %2").arg(count(l.denied), count(l.allowed + l.denied))
                     : tr("denied %1, decided %2 denials; most admitted in any %3: %4")
                           .arg(count(l.denied), count(l.deciding), formatDuration(l.window))
                           .arg(locale.toString(qlonglong(l.maxAdmittedInWindow)))});
    // Plans: what each plan's clients got (traffic `plans=` says how many are on each).
    for (const PlanSummary &p : s.plans)
        perLimit.append({tr("Plan %1").arg(p.name),
            tr("%1 clients: %2 of %3 allowed (%4)")
                .arg(count(p.clients), count(p.allowed), count(p.offered),
                    percent(p.offered ? double(p.allowed) / double(p.offered) : 0.0))});
    const QList<QPair<QString, QString>> allRows = rows + perLimit;
    m_summary->setColumnCount(2);
    m_summary->setHorizontalHeaderLabels({tr("Measure"), tr("Value")});
    m_summary->setRowCount(int(allRows.size()));
    for (int i = 0; i < allRows.size(); ++i) {
        m_summary->setItem(i, 0, new QTableWidgetItem(allRows[i].first));
        m_summary->setItem(i, 1, new QTableWidgetItem(allRows[i].second));
    }
    m_summary->resizeColumnToContents(0);
    m_status->setText(tr("%1 requests simulated: %2 allowed.%3")
                          .arg(count(s.offered), percent(s.acceptance),
                              m_last.shadow ? tr(" The route is in shadow mode: its denials are "
                                                 "what it would deny once enforced.")
                                            : QString()));
    if (r.skippedLines > 0)
        m_status->setText(m_status->text()
            + tr(" %1 log lines skipped (first: line %2: %3).")
                  .arg(r.skippedLines)
                  .arg(r.problems.empty() ? 0 : r.problems.front().line)
                  .arg(r.problems.empty() ? QString() : r.problems.front().message));
}

void SimulatePage::showComparison(const std::vector<SimulationResult> &results)
{
    std::vector<Series> allowed;
    for (const SimulationResult &r : results) {
        if (r.series.size() < 2)
            continue;
        Series s = r.series[1]; // allowed
        s.name = r.summary.algorithm;
        allowed.push_back(std::move(s));
    }
    std::vector<const Series *> lines;
    for (const Series &s : allowed)
        lines.push_back(&s);
    showSeries(m_compareChart, kCompareLabels, lines);
    m_charts->setCurrentWidget(m_compareChart);
    const QStringList headers{
        tr("Algorithm"), tr("Allowed"), tr("Denied"), tr("Acceptance"), tr("Max/window")};
    m_summary->setColumnCount(int(headers.size()));
    m_summary->setHorizontalHeaderLabels(headers);
    m_summary->setRowCount(int(results.size()));
    for (int i = 0; i < int(results.size()); ++i) {
        const SimulationSummary &s = results[std::size_t(i)].summary;
        const QStringList cells{s.algorithm, QString::number(s.allowed), QString::number(s.denied),
            percent(s.acceptance), QString::number(s.maxAdmittedInWindow)};
        for (int c = 0; c < cells.size(); ++c)
            m_summary->setItem(i, c, new QTableWidgetItem(cells[c]));
    }
    m_summary->resizeColumnsToContents();
    m_status->setText(tr("Six algorithms, same long-run rate and burst, same traffic."));
}

void SimulatePage::saveChart()
{
    auto *view = qobject_cast<QChartView *>(m_charts->currentWidget());
    if (!view)
        return;
    // The file says what it shows, in its name and in its title: a chart in a ticket or a
    // slide is read without the workbench beside it.
    QString name = m_last.results.empty()
        ? QStringLiteral("chart")
        : QStringLiteral("%1-%2-%3-%4")
              .arg(m_last.policy, m_last.route, m_last.traffic.section(QLatin1Char(':'), 0, 0),
                  m_last.duration);
    name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]+")), QStringLiteral("_"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Save chart"),
        name + QStringLiteral(".png"), tr("PNG image (*.png);;SVG drawing (*.svg)"));
    if (path.isEmpty())
        return;
    const QString title = view->chart()->title();
    if (!m_last.results.empty())
        view->chart()->setTitle(QStringLiteral("%1<br><small>%2</small>").arg(title, runCaption()));
    const Expected<void> saved = saveChartImage(view, path);
    view->chart()->setTitle(title);
    if (!saved)
        QMessageBox::warning(this, tr("Save chart"), saved.error());
}

QString SimulatePage::runCaption() const
{
    return tr("%1 / %2 — %3 for %4%5")
        .arg(m_last.policy, m_last.route, m_last.traffic, m_last.duration,
            m_stale ? tr(" (inputs changed since)") : QString());
}

// The charts and the summary no longer answer the question on screen: say so until Run.
void SimulatePage::markStale()
{
    if (m_last.results.empty() || m_stale || isRunning())
        return;
    m_stale = true;
    m_status->setText(tr("Inputs changed since this run: the results below are stale. Press "
                         "Run (F5) to update them."));
    for (QChartView *view : {m_trafficChart, m_keyChart, m_compareChart})
        if (view->chart() && !view->chart()->title().endsWith(tr(" (stale)")))
            view->chart()->setTitle(view->chart()->title() + tr(" (stale)"));
}

void SimulatePage::saveCsv()
{
    if (m_last.results.empty()) {
        m_status->setText(tr("Run a simulation first."));
        return;
    }
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save series"), QStringLiteral("simulation.csv"), tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    std::vector<Series> series;
    for (const SimulationResult &r : m_last.results)
        for (Series s : r.series) {
            if (m_last.comparison)
                s.name = r.summary.algorithm + QLatin1Char(' ') + s.name;
            series.push_back(std::move(s));
        }
    if (const Expected<void> saved = saveSeriesCsv(series, path); !saved)
        QMessageBox::warning(this, tr("Save series"), saved.error());
}

} // namespace qs
