#include "ui/probe/probepage.h"

#include "model/export/exporter.h"
#include "model/policy/limitconversion.h"
#include "model/policy/ratesyntax.h"
#include "model/probe/httpprobe.h"
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
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QScatterSeries>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>

namespace qs {

namespace {

const ChartLabels kLabels{QObject::tr("Admitted per second: gateway vs design"),
    QObject::tr("time (s)"), QObject::tr("admitted (req/s)")};

QString percent(double share)
{
    return QStringLiteral("%1 %").arg(100.0 * share, 0, 'f', share >= 0.9995 ? 1 : 2);
}

// The observed and predicted admissions as lines, each divergence a marker on the observed
// line: red where nothing explains it, amber where the export's documented approximation does.
// Buckets of a second (a whole number of seconds for runs over two minutes, at most 120 of them):
// quarter-second buckets swung 0-4 req/s while a gateway admitted a steady 2/s, each holding
// 0 or 1 request.
limiter::Micros admissionBucket(const std::vector<ComparedRequest> &compared)
{
    const limiter::Micros span = compared.empty() ? 0 : compared.back().sample.offset;
    const limiter::Micros seconds
        = (span / 120 + limiter::kMicrosPerSecond - 1) / limiter::kMicrosPerSecond;
    return std::max<limiter::Micros>(1, seconds) * limiter::kMicrosPerSecond;
}

void showAdmissions(QChartView *view, const std::vector<ComparedRequest> &compared)
{
    const limiter::Micros width = admissionBucket(compared);
    AdmissionSeries a = admissionSeries(compared, width);
    // A last bucket the run covered for less than half its width reads as a drop that did not
    // happen (the last request alone in a second): left out.
    if (a.t.size() > 1
        && double(compared.back().sample.offset) / 1e6 - a.t.back() < double(width) / 2e6) {
        for (std::vector<double> *v : {&a.t, &a.observed, &a.predicted, &a.divergent})
            v->pop_back();
    }
    ChartLabels labels = kLabels;
    labels.title = QObject::tr("%1 (averaged over %2 s)")
                       .arg(kLabels.title)
                       .arg(width / limiter::kMicrosPerSecond);
    Series observed{QObject::tr("observed admitted"), QObject::tr("req/s"), a.t, a.observed,
        a.observed, a.observed};
    Series predicted{QObject::tr("predicted admitted"), QObject::tr("req/s"), a.t, a.predicted,
        a.predicted, a.predicted};
    showSeries(view, labels, {&predicted, &observed});
    QChart *chart = view->chart();
    // Where the gateway agrees the two lines coincide: the design's is a wide pale band under
    // the gateway's, so that both show.
    for (QAbstractSeries *s : chart->series())
        if (auto *line = qobject_cast<QLineSeries *>(s); line && line->name() == predicted.name) {
            QPen pen = line->pen();
            QColor c = pen.color();
            c.setAlpha(110);
            pen.setColor(c);
            pen.setWidth(7);
            line->setPen(pen);
        }
    const auto xs = chart->axes(Qt::Horizontal), ys = chart->axes(Qt::Vertical);
    if (xs.isEmpty() || ys.isEmpty() || a.t.empty())
        return;
    const double bucket = a.t.size() > 1 ? a.t[1] - a.t[0] : 0.25;
    const TimeUnit time = timeUnitFor(a.t.back() + bucket);
    auto *unexplained = new QScatterSeries;
    unexplained->setName(QObject::tr("divergence, unexplained"));
    auto *explained = new QScatterSeries;
    explained->setName(QObject::tr("divergence, explained"));
    for (QScatterSeries *s : {unexplained, explained}) {
        s->setMarkerSize(9);
        s->setBorderColor(Qt::transparent);
    }
    unexplained->setColor(seriesColor(QStringLiteral("divergence")));
    explained->setColor(seriesColor(QStringLiteral("delayed")));
    for (const ComparedRequest &c : compared) {
        if (c.verdict != Verdict::Explained && c.verdict != Verdict::Unexplained)
            continue;
        const double t = double(c.sample.offset) / 1e6;
        const auto b = std::min(a.observed.size() - 1, std::size_t(t / bucket));
        (c.verdict == Verdict::Explained ? explained : unexplained)
            ->append(t / time.seconds, a.observed[b]);
    }
    for (QScatterSeries *s : {unexplained, explained}) {
        chart->addSeries(s);
        s->attachAxis(xs.front());
        s->attachAxis(ys.front());
        showValueOnHover(s, view, s->name(), QObject::tr("req/s"), time);
    }
}

QString describe(const Divergence &d)
{
    return QObject::tr("request %1 at %2 s: predicted %3, observed %4 (status %5). %6")
        .arg(d.request)
        .arg(double(d.offset) / 1e6, 0, 'f', 3)
        .arg(d.predictedAllowed ? QObject::tr("admit") : QObject::tr("deny"),
            d.observedAllowed ? QObject::tr("admit") : QObject::tr("deny"))
        .arg(d.status)
        .arg(d.explanation);
}

} // namespace

ProbePage::ProbePage(PolicyDocument *doc, QWidget *parent) : QWidget(parent), m_doc(doc)
{
    build();
    m_thread = new QThread(this);
    m_thread->setObjectName(QStringLiteral("probe"));
    m_thread->start();
    connect(doc, &PolicyDocument::reset, this, &ProbePage::refreshRoutes);
    connect(doc, &PolicyDocument::routesChanged, this, &ProbePage::refreshRoutes);
    connect(doc, &PolicyDocument::routeChanged, this, &ProbePage::refreshRoutes);
    refreshRoutes();
}

ProbePage::~ProbePage()
{
    stopProbe();
    m_thread->quit();
    m_thread->wait();
}

// Deletes the probe in its own thread (its sockets and timers belong there) and waits for it:
// a run in progress is abandoned, nothing of it reaches this page any more.
void ProbePage::stopProbe()
{
    if (!m_probe)
        return;
    HttpProbe *probe = m_probe;
    m_probe = nullptr;
    probe->disconnect(this);
    QMetaObject::invokeMethod(
        probe, [probe] { delete probe; }, Qt::BlockingQueuedConnection);
}

QList<QSplitter *> ProbePage::splitters() const
{
    return {m_split};
}

void ProbePage::build()
{
    QWidget *left = buildLeftPane(); // first: the focus follows the order widgets are made
    m_chart = new QChartView;
    m_chart->setRenderHint(QPainter::Antialiasing);
    showEmptyChart(m_chart, kLabels, tr("press Run"));

    m_split = splitPanes(
        Qt::Horizontal, QStringLiteral("probeSplit"), {{left, 2, 3000}, {m_chart, 5, 7000}});
    fillPage(this, m_split);

    m_chartTimer = new QTimer(this);
    m_chartTimer->setInterval(250);
    connect(m_chartTimer, &QTimer::timeout, this, &ProbePage::updateChart);
    connect(m_run, &QPushButton::clicked, this, &ProbePage::run);
    connect(m_cancel, &QPushButton::clicked, this, &ProbePage::cancel);
    connect(m_route, &QComboBox::activated, this, &ProbePage::suggestTraffic);
    connect(m_saveReport, &QPushButton::clicked, this, &ProbePage::chooseReportFile);
    connect(m_saveChart, &QPushButton::clicked, this, &ProbePage::chooseChartFile);
    showTrafficProblems(m_traffic, m_trafficProblem);
}

// The settings and the run controls over the report table and its save buttons.
QWidget *ProbePage::buildLeftPane()
{
    m_table = newMeasureTable(tr("Probe report"));
    m_table->setWordWrap(true);

    QWidget *settings = buildSettings();
    m_saveReport = new QPushButton(icon(QStringLiteral("table")), tr("Save r&eport…"));
    m_saveReport->setToolTip(tr("The report as JSON (as quotactl probe --json) or one row per "
                                "request as CSV"));
    m_saveChart = new QPushButton(icon(QStringLiteral("image")), tr("Save &chart…"));
    m_saveChart->setToolTip(tr("The chart as PNG or SVG"));
    for (QPushButton *b : {m_saveReport, m_saveChart})
        b->setEnabled(false);
    return settingsOverTable(settings, m_table, {m_saveReport, m_saveChart});
}

QWidget *ProbePage::buildSettings()
{
    auto *settings = new QWidget;
    auto *form = new QFormLayout(settings);
    addTargetRows(form);
    addAmountRows(form);
    addRunRows(form);
    return settings;
}

// What is probed: the route, the gateway's address and export, the traffic.
void ProbePage::addTargetRows(QFormLayout *form)
{
    m_route = new QComboBox;
    m_route->setToolTip(tr("The route to probe: the request goes to a path the policy gives to "
                           "this route, with its first method."));
    form->addRow(tr("&Route:"), m_route);
    m_url = new QLineEdit(
        QSettings()
            .value(QStringLiteral("probe/url"), QStringLiteral("http://127.0.0.1:8080"))
            .toString());
    m_url->setToolTip(tr("The running gateway. Loopback only, unless you name its host under "
                         "Allowed host. A path other than / is requested as is."));
    form->addRow(tr("&URL:"), m_url);
    m_gateway = new QComboBox;
    m_gateway->addItem(tr("design only"), QString());
    for (const Exporter *e : exporters())
        if (e->enforcedLimit(limiter::GcraConfig{{1, limiter::kMicrosPerSecond}, 1}))
            m_gateway->addItem(e->displayName(), e->id());
    m_gateway->setToolTip(
        tr("The export the gateway runs. Where it only approximates the design, divergences "
           "that its documented approximation predicts count as explained, not as defects."));
    form->addRow(tr("&Gateway:"), m_gateway);
    m_traffic = new QLineEdit;
    m_traffic->setToolTip(tr("As in Simulate: steady:RATE · poisson:RATE · "
                             "bursts:RATE,on=DUR,off=DUR · spike:N,window=DUR · ramp:RATE..RATE "
                             "· zipf:RATE,clients=N. Sent in real time. On a policy with "
                             "plans, ,plans=free:1/pro:1 puts the clients on plans (their "
                             "requests say it as the policy finds plans)."));
    form->addRow(tr("&Traffic:"), m_traffic);
    m_trafficProblem = new QLabel;
    m_trafficProblem->setWordWrap(true);
    m_trafficProblem->setVisible(false);
    form->addRow(QString(), m_trafficProblem);
}

// How much: duration, clients, the request cap, the tolerance, the host allowed.
void ProbePage::addAmountRows(QFormLayout *form)
{
    m_duration = new QuantityEdit;
    m_duration->setValue(10, limiter::kMicrosPerSecond);
    m_duration->setToolTip(tr("Wall-clock time: the probe sends for this long."));
    form->addRow(tr("&Duration:"), m_duration);
    m_clients = new QSpinBox;
    m_clients->setRange(0, 10'000);
    m_clients->setSpecialValueText(tr("as the traffic says"));
    m_clients->setToolTip(tr("Simulated clients, each with its own identity in the route's key "
                             "header or query parameter. A route keyed by address counts them "
                             "all as one."));
    form->addRow(tr("C&lients:"), m_clients);
    m_maxRequests = new QSpinBox;
    m_maxRequests->setRange(1, int(kProbeMaxRequests));
    m_maxRequests->setValue(10'000);
    m_maxRequests->setToolTip(tr("A hard cap: the probe stops sending after this many."));
    form->addRow(tr("&Max requests:"), m_maxRequests);
    m_tolerance = new QDoubleSpinBox;
    m_tolerance->setRange(0, 100);
    m_tolerance->setDecimals(1);
    m_tolerance->setValue(1.0);
    m_tolerance->setSuffix(QStringLiteral(" %"));
    m_tolerance->setToolTip(tr("Unexplained divergence accepted before the verdict says the "
                               "gateway does not enforce the design."));
    form->addRow(tr("T&olerance:"), m_tolerance);
    m_allowHost = new QLineEdit;
    m_allowHost->setPlaceholderText(tr("loopback only"));
    m_allowHost->setToolTip(tr("A non-loopback host you own (staging). The probe sends real "
                               "traffic: never production."));
    form->addRow(tr("Allowed &host:"), m_allowHost);
}

void ProbePage::addRunRows(QFormLayout *form)
{
    const RunControls c = addRunControls(
        form, tr("Send the traffic and compare"), tr("Stop sending and report what was answered"));
    m_run = c.run;
    m_cancel = c.cancel;
    m_progress = c.progress;
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_status = c.status;
    m_status->setText(tr("Start the gateway, then press Run."));
}

void ProbePage::refreshRoutes()
{
    if (!refillRouteBox(m_route, m_doc->policy()) || m_traffic->text().isEmpty())
        suggestTraffic();
}

// Twice the route's long-run rate, steady: enough to see both admissions and denials.
void ProbePage::suggestTraffic()
{
    const int i = m_route->currentIndex();
    if (i < 0 || i >= m_doc->policy().routes.size())
        return;
    m_traffic->setText(
        QStringLiteral("steady:%1").arg(formatRate(suggestedLoad(m_doc->policy().routes[i]).rate)));
}

bool ProbePage::isRunning() const
{
    return m_running;
}

void ProbePage::run()
{
    if (isRunning())
        return;
    const Policy &policy = m_doc->policy();
    ProbeSettings s;
    s.routeId = m_route->currentText();
    s.url = QUrl(m_url->text().trimmed(), QUrl::StrictMode);
    s.allowedHost = m_allowHost->text().trimmed();
    const auto traffic = parseTrafficSpec(m_traffic->text());
    if (!traffic) {
        m_status->setText(tr("Traffic: %1").arg(traffic.error()));
        m_traffic->setFocus();
        return;
    }
    s.traffic = *traffic;
    s.duration = m_duration->count() * m_duration->unit();
    s.clients = std::uint32_t(m_clients->value());
    s.maxRequests = m_maxRequests->value();
    s.gateway = m_gateway->currentData().toString();
    if (hasErrors(m_doc->diagnostics())) {
        m_status->setText(tr("The policy has errors: fix them on the Design tab first."));
        return;
    }
    const auto planned = makeProbePlan(policy, s);
    if (!planned) {
        m_status->setText(planned.error());
        return;
    }
    const ProbePlan &plan = *planned;
    std::optional<EnforcedLimit> enforced;
    if (!s.gateway.isEmpty())
        enforced = exporterById(s.gateway)->enforcedLimit(
            *(toAlgorithmConfig(policy.routes[plan.routeIndex].limit())));
    QSettings().setValue(QStringLiteral("probe/url"), m_url->text().trimmed());
    m_caption = tr("%1 / %2 — %3 to %4")
                    .arg(policy.name, plan.routeId, s.traffic.text, plan.url.toString());
    stopProbe();
    m_probe = new HttpProbe(policy, plan, s, enforced);
    m_probe->moveToThread(m_thread);
    connect(m_probe, &HttpProbe::progress, this, [this](qint64 answered, qint64 planned) {
        m_progress->setRange(0, int(std::min<qint64>(planned, INT_MAX)));
        m_progress->setValue(int(answered));
    });
    connect(m_probe, &HttpProbe::comparedBatch, this,
        [this](const std::vector<ComparedRequest> &batch) {
            m_compared.insert(m_compared.end(), batch.begin(), batch.end());
        });
    connect(m_probe, &HttpProbe::done, this, &ProbePage::onDone);
    m_compared.clear();
    m_report.reset();
    m_table->setRowCount(0);
    m_progress->setRange(0, int(plan.requests.size()));
    m_progress->setValue(0);
    m_status->setText(tr("Sending %1 requests to %2 %3 over %4…")
                          .arg(plan.requests.size())
                          .arg(plan.method, plan.url.toString(), formatDuration(s.duration)));
    setRunning(true);
    QMetaObject::invokeMethod(m_probe, &HttpProbe::start, Qt::QueuedConnection);
}

void ProbePage::cancel()
{
    if (isRunning())
        QMetaObject::invokeMethod(m_probe, &HttpProbe::cancel, Qt::QueuedConnection);
}

void ProbePage::setRunning(bool running)
{
    m_running = running;
    m_run->setEnabled(!running);
    m_cancel->setEnabled(running);
    for (QWidget *w : std::initializer_list<QWidget *>{m_route, m_url, m_gateway, m_traffic,
             m_duration, m_clients, m_maxRequests, m_allowHost})
        w->setEnabled(!running);
    if (running)
        m_chartTimer->start();
    else
        m_chartTimer->stop();
}

void ProbePage::updateChart()
{
    showAdmissions(m_chart, m_compared);
}

void ProbePage::onDone(const ProbeReport &report)
{
    setRunning(false);
    m_report = report;
    m_compared = report.compared;
    stopProbe();
    updateChart();
    showReport(*m_report);
    const bool pass = withinTolerance(*m_report, m_tolerance->value() / 100.0);
    if (!m_report->unreachable.isEmpty())
        m_status->setText(tr("The gateway could not be reached: %1").arg(m_report->unreachable));
    else
        m_status->setText(
            (pass ? tr("The gateway enforces the design: %1 unexplained divergence, within "
                       "the %2 % tolerance.")
                  : tr("The gateway does NOT enforce the design: %1 unexplained divergence, "
                       "above the %2 % tolerance. The first divergence below says where."))
                .arg(percent(m_report->unexplainedShare))
                .arg(m_tolerance->value(), 0, 'f', 1)
            + (m_report->cancelled ? tr(" (cancelled: partial)") : QString()));
    m_saveReport->setEnabled(true);
    m_saveChart->setEnabled(true);
    emit finished();
}

void ProbePage::showReport(const ProbeReport &r)
{
    m_table->setRowCount(0);
    addMeasureRow(m_table, tr("Requests"),
        tr("%1 sent, %2 answered, %3 without a response")
            .arg(r.requests)
            .arg(r.responses)
            .arg(r.noResponse));
    if (!r.unreachable.isEmpty()) {
        // Nothing was compared: no agreement, no divergence, no header to judge. Rows of 0 %
        // and "no issue found" would read as a verdict on a gateway that never answered.
        addMeasureRow(m_table, tr("Gateway"), tr("did not answer: %1").arg(r.unreachable),
            tr("Start the gateway (docs/probe.md has the commands), then run the probe again."));
        m_table->resizeRowsToContents();
        return;
    }
    addMeasureRow(m_table, tr("Admitted"),
        tr("%1 observed, %2 predicted").arg(r.observedAllowed).arg(r.predictedAllowed));
    addMeasureRow(m_table, tr("Agreement"),
        tr("%1 (%2 within the request's timing)").arg(percent(r.agreement)).arg(r.withinTiming),
        tr("Requests the gateway decided as the design does, some only within the time the "
           "request was in flight (docs/probe.md)."));
    addMeasureRow(m_table, tr("Explained divergence"), percent(r.explainedShare),
        r.gatewayModel.isEmpty() ? tr("No gateway model chosen.") : r.gatewayModel);
    addMeasureRow(m_table, tr("Unexplained divergence"), percent(r.unexplainedShare));
    for (const ProbePlanFigures &p : r.plans)
        addMeasureRow(m_table, tr("Plan %1").arg(p.name),
            p.responses == 0 ? tr("no request of the probe was on this plan")
                             : tr("%1 agreement on %2 responses; %3 admitted, %4 predicted")
                                   .arg(percent(p.agreement))
                                   .arg(p.responses)
                                   .arg(p.observedAllowed)
                                   .arg(p.predictedAllowed),
            tr("The requests the policy puts on plan '%1' from what the probe sent, predicted on "
               "that plan's numbers. The traffic's plans= says how the clients spread over the "
               "plans.")
                .arg(p.name));
    for (const ProbeLimitFigures &l : r.limits)
        addMeasureRow(m_table, tr("Limit %1").arg(l.name),
            tr("%1 denials predicted, %2 divergences").arg(l.predictedDenials).arg(l.divergences),
            tr("Denials the design predicted because of this limit, and divergences about it "
               "(the gateway admitted what it denies). name@plan: the limit on that plan's "
               "numbers."));
    if (!r.limits.empty())
        addMeasureRow(m_table, tr("Denied though every limit admits"),
            QString::number(r.deniedThoughEveryLimitAdmits),
            tr("The gateway's denials that no limit of the design explains: a gateway that "
               "charges every limit for a request another denies, or a stricter limit."));
    if (r.firstDivergence)
        addMeasureRow(m_table, tr("First divergence"), describe(*r.firstDivergence),
            r.firstDivergence->headers.isEmpty() ? tr("no rate-limit headers")
                                                 : r.firstDivergence->headers);
    if (r.firstUnexplained
        && (!r.firstDivergence || r.firstUnexplained->request != r.firstDivergence->request))
        addMeasureRow(m_table, tr("First unexplained"), describe(*r.firstUnexplained));
    if (r.headerIssues.empty())
        addMeasureRow(m_table, tr("Headers"), tr("no issue found"));
    for (const HeaderIssue &i : r.headerIssues)
        addMeasureRow(m_table, tr("Header issue"),
            tr("%1 × %2 (first: %3)").arg(i.kind).arg(i.count).arg(i.example));
    if (r.retryCheck.performed)
        addMeasureRow(m_table, tr("Retry-After check"),
            tr("waited %1 s after request %2, then %3 (status %4)")
                .arg(r.retryCheck.waitedS)
                .arg(r.retryCheck.request)
                .arg(r.retryCheck.admitted ? tr("admitted") : tr("denied"))
                .arg(r.retryCheck.status));
    addMeasureRow(m_table, tr("Latency"),
        tr("p50 %1 ms, p99 %2 ms").arg(r.p50Ms, 0, 'f', 2).arg(r.p99Ms, 0, 'f', 2));
    for (const QString &w : r.warnings)
        addMeasureRow(m_table, tr("Warning"), w);
    m_table->resizeRowsToContents();
}

Expected<void> ProbePage::saveReport(const QString &path) const
{
    if (!m_report)
        return tr("no report yet: run the probe first");
    const QByteArray content = path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive)
        ? toCsv(*m_report)
        : QJsonDocument(toJson(*m_report)).toJson(QJsonDocument::Indented);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size() || !file.commit())
        return tr("cannot write %1: %2").arg(path, file.errorString());
    return {};
}

Expected<void> ProbePage::saveChart(const QString &path) const
{
    // The file says what it shows: a chart in a ticket is read without the workbench.
    const QString title = m_chart->chart()->title();
    m_chart->chart()->setTitle(QStringLiteral("%1<br><small>%2</small>").arg(title, m_caption));
    Expected<void> saved = saveChartImage(m_chart, path);
    m_chart->chart()->setTitle(title);
    return saved;
}

void ProbePage::chooseReportFile()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save probe report"),
        QStringLiteral("probe-%1.json").arg(m_report ? m_report->routeId : QString()),
        tr("JSON report (*.json);;CSV, one row per request (*.csv)"));
    if (path.isEmpty())
        return;
    if (const Expected<void> saved = saveReport(path); !saved)
        QMessageBox::warning(this, tr("Save probe report"), saved.error());
}

void ProbePage::chooseChartFile()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save chart"),
        QStringLiteral("probe-%1.png").arg(m_report ? m_report->routeId : QString()),
        tr("PNG image (*.png);;SVG drawing (*.svg)"));
    if (path.isEmpty())
        return;
    if (const Expected<void> saved = saveChart(path); !saved)
        QMessageBox::warning(this, tr("Save chart"), saved.error());
}

} // namespace qs
