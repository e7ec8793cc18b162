#include "ui/monitor/monitorpage.h"

#include "model/monitor/monitoredroute.h"

#include "model/redis/localdemo.h"
#include "ui/document/policydocument.h"
#include "ui/monitor/connectionpanel.h"
#include "ui/monitor/connectionstatus.h"
#include "ui/monitor/discoverdialog.h"
#include "ui/monitor/hotkeyspanel.h"
#include "ui/monitor/monitorcharts.h"

#include <QLocale>
#include <QMessageBox>
#include <QScrollArea>
#include <QSplitter>
#include <QStyle>
#include <QTimer>
#include <QVBoxLayout>

namespace qs {

namespace {

// What the monitor counts as routes: a route, or each limit of a route with several.
QStringList routeIds(const Policy &policy)
{
    QStringList ids;
    for (const MonitoredTarget &t : monitoredTargets(policy))
        ids << t.id;
    return ids;
}

} // namespace

MonitorPage::MonitorPage(PolicyDocument *doc, QWidget *parent)
    : QWidget(parent), m_doc(doc), m_demo(std::make_unique<LocalDemo>()),
      m_panel(new ConnectionPanel), m_status(new ConnectionStatus),
      m_charts(new MonitorCharts(m_timeline)), m_hotKeys(new HotKeysPanel)
{
    m_confirm = [this](const QString &title, const QString &question) {
        return QMessageBox::question(this, title, question, QMessageBox::Yes | QMessageBox::Cancel,
                   QMessageBox::Cancel)
            == QMessageBox::Yes;
    };
    m_charts->addChartToSave(m_hotKeys->keyChart(), tr("Selected key's chart as PNG or SVG…"));

    auto *left = new QScrollArea;
    left->setWidget(m_panel);
    left->setWidgetResizable(true);
    left->setFrameShape(QFrame::NoFrame);
    left->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // As wide as the panel needs (plus a vertical scroll bar on a short screen): never clipped.
    const int panelWidth
        = m_panel->sizeHint().width() + left->style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 4;
    left->setMinimumWidth(panelWidth);

    auto *right = new QSplitter(Qt::Vertical);
    right->addWidget(m_charts);
    right->addWidget(m_hotKeys);
    right->setStretchFactor(0, 1);
    right->setStretchFactor(1, 1);
    right->setChildrenCollapsible(false);

    auto *split = new QSplitter(Qt::Horizontal);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(1, 1);
    split->setSizes({panelWidth, 1280 - panelWidth});
    split->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

    connect(m_panel, &ConnectionPanel::connectRequested, this, &MonitorPage::connectToServer);
    connect(m_panel, &ConnectionPanel::disconnectRequested, this, [this] {
        if (demoRunning())
            stopDemo();
        else
            disconnectFromServer();
    });
    connect(m_panel, &ConnectionPanel::budgetChanged, this, [this](qint64 perSecond) {
        if (m_monitor)
            m_monitor->setBudgetPerSecond(perSecond);
    });
    connect(m_status, &ConnectionStatus::demoToggleRequested, this, [this] {
        if (demoRunning())
            stopDemo();
        else
            startDemo();
    });
    connect(m_status, &ConnectionStatus::discoverRequested, this, &MonitorPage::discover);
    connect(m_charts, &MonitorCharts::windowChanged, this,
        [this](int seconds) { m_hotKeys->showKeyTrail(m_timeline.keyTrail(seconds), seconds); });
    connect(m_charts, &MonitorCharts::pausedChanged, this, [this](bool paused) {
        m_hotKeys->setPaused(paused);
        if (!paused)
            redrawCharts();
    });
    connect(m_hotKeys, &HotKeysPanel::keySelected, this, &MonitorPage::follow);
    connect(m_hotKeys, &HotKeysPanel::resetRequested, this, &MonitorPage::resetKey);
    connect(m_hotKeys, &HotKeysPanel::writesAllowedChanged, this, [this](bool allow) {
        if (m_monitor)
            m_monitor->setReadOnly(!allow);
    });
    connect(m_demo.get(), &LocalDemo::ready, this, [this](quint16 port) {
        m_panel->showDemo(port);
        MonitorOptions options;
        options.connection = m_panel->options();
        startMonitor(m_demo->policy(), options);
        m_server = m_demo->clusterPorts().isEmpty()
            ? tr("local demo on 127.0.0.1:%1").arg(port)
            : tr("local cluster demo, %1 masters from 127.0.0.1:%2")
                  .arg(m_demo->clusterPorts().size())
                  .arg(port);
        m_status->setDemoRunning(true);
        showState();
        emit demoStateChanged(true);
    });
    connect(m_demo.get(), &LocalDemo::failed, this, [this](const QString &why) {
        m_panel->endDemo();
        disconnectFromServer();
        m_status->setSummary(tr("Demo: %1").arg(why));
        m_status->setDemoRunning(false);
        emit demoStateChanged(false);
    });
    connect(m_demo.get(), &LocalDemo::stopped, this, [this] {
        m_panel->endDemo();
        disconnectFromServer();
        m_status->setSummary(tr("Local demo stopped: its server and traffic are gone."));
        m_status->setDemoRunning(false);
        emit demoStateChanged(false);
    });
    auto *stateTicker = new QTimer(this); // the "retrying in …" countdown
    stateTicker->setInterval(1000);
    connect(stateTicker, &QTimer::timeout, this, &MonitorPage::showState);
    stateTicker->start();
    connect(m_doc, &PolicyDocument::reset, this, &MonitorPage::refreshRouteLists);
    connect(m_doc, &PolicyDocument::routesChanged, this, &MonitorPage::refreshRouteLists);
    refreshRouteLists();
    showState();
}

MonitorPage::~MonitorPage()
{
    if (m_discover)
        delete m_discover;
    m_monitor.reset(); // before the demo's server goes
    m_demo.reset(); // stops the traffic and the server, waiting for both
}

void MonitorPage::refreshRouteLists()
{
    const QStringList ids = routeIds(m_doc->policy());
    m_charts->setRoutes(ids);
    m_hotKeys->setRouteChoices(ids);
}

void MonitorPage::startMonitor(const Policy &policy, const MonitorOptions &options)
{
    m_monitor.reset();
    m_timeline.clear();
    m_shadowRoutes.clear();
    for (const MonitoredTarget &t : monitoredTargets(policy))
        m_shadowRoutes << t.shadow;
    m_hotKeys->startOver(routeIds(policy), m_shadowRoutes);
    // One server or a cluster, whichever the address leads to (ClusterMonitor).
    m_monitor = std::make_unique<ClusterMonitor>(policy);
    m_monitor->setReadOnly(!m_hotKeys->writesAllowed());
    connect(m_monitor.get(), &ClusterMonitor::refreshed, this, &MonitorPage::onRefreshed);
    connect(&m_monitor->client(), &RespClient::stateChanged, this, [this](RespClient::State state) {
        if (state != RespClient::State::Connected)
            m_timeline.interrupt(); // whatever the refreshes say, nothing is read from here
        showState();
    });
    MonitorOptions o = options;
    o.budgetPerSecond = m_panel->budgetPerSecond();
    o.historySeconds = 60; // the page keeps its own hour (MonitorTimeline)
    m_monitor->start(o);
    m_server = m_panel->serverName();
    showState();
    redrawCharts(); // the last connection's data goes: new series for a new connection
}

void MonitorPage::connectToServer()
{
    if (demoRunning())
        return;
    if (const QString problem = m_panel->seedsProblem(); !problem.isEmpty()) {
        m_status->setSummary(problem);
        return;
    }
    MonitorOptions o;
    o.connection = m_panel->options();
    o.moreSeeds = m_panel->moreSeeds();
    o.readReplicas = m_panel->readReplicas();
    startMonitor(m_doc->policy(), o);
}

void MonitorPage::disconnectFromServer()
{
    m_monitor.reset();
    showState();
    redrawCharts(); // the data stays, labelled as the closed connection's
}

bool MonitorPage::demoRunning() const
{
    return m_demo->running();
}

void MonitorPage::startDemo(int clusterMasters)
{
    if (demoRunning())
        return;
    disconnectFromServer();
    m_status->setSummary(clusterMasters > 0 ? tr("Starting the local cluster demo…")
                                            : tr("Starting the local demo…"));
    LocalDemo::Options options;
    options.clusterMasters = clusterMasters;
    m_demo->start(m_doc->policy(), options);
    m_status->setDemoRunning(demoRunning());
    showState();
}

void MonitorPage::stopDemo()
{
    m_status->setSummary(tr("Stopping the local demo…"));
    m_monitor.reset();
    m_demo->stop();
    m_status->setDemoRunning(demoRunning());
    showState();
}

void MonitorPage::onRefreshed(const MonitorSnapshot &snapshot)
{
    m_timeline.record(snapshot);
    std::vector<KeyRow> rows = m_monitor->keyRows();
    if (!m_timeline.followed().isEmpty() && snapshot.serverTimeUs)
        for (const KeyRow &r : rows)
            if (r.key == m_timeline.followed()) {
                if (r.status == KeyQuota::Status::Read)
                    m_timeline.recordKey(snapshot.serverTimeUs, r.remaining, r.limit);
                break;
            }
    // A cluster: how many of its nodes are read, which are down; each node's keys on hover.
    QStringList nodes;
    for (const NodeStatus &n : snapshot.nodes)
        nodes << tr("%1 (%2): %3 keys, %4")
                     .arg(n.address, n.replica ? tr("replica") : tr("master"),
                         QLocale().toString(n.keys), n.stateText);
    m_status->setSummary(summaryOf(snapshot, rows), nodes.join(QLatin1Char('\n')));
    m_hotKeys->setRows(std::move(rows), snapshot.serverTimeUs);
    if (!m_charts->paused())
        redrawCharts();
    showState();
    emit refreshed();
}

QString MonitorPage::summaryOf(
    const MonitorSnapshot &snapshot, const std::vector<KeyRow> &rows) const
{
    // A shadow route's keys over the limit would be throttled, and are not: counted apart.
    qint64 throttled = 0, wouldBe = 0;
    for (const KeyRow &r : rows)
        if (r.throttled)
            ++(m_shadowRoutes.value(r.route) ? wouldBe : throttled);
    QString summary
        = tr("%1 keys · %2 throttled")
              .arg(QLocale().toString(qint64(rows.size())), QLocale().toString(throttled));
    if (wouldBe > 0)
        summary += tr(" · %1 would be (shadow)").arg(QLocale().toString(wouldBe));
    if (!snapshot.scanComplete)
        summary += tr(" · first scan running");
    if (m_charts->paused())
        summary += tr(" · paused");
    if (!snapshot.nodes.isEmpty()) {
        const auto read = std::count_if(snapshot.nodes.cbegin(), snapshot.nodes.cend(),
            [](const NodeStatus &n) { return n.state == RespClient::State::Connected; });
        summary += tr(" · cluster: %1 of %2 nodes read").arg(read).arg(snapshot.nodes.size());
    }
    return summary;
}

void MonitorPage::redrawCharts()
{
    m_charts->redraw();
    m_hotKeys->showKeyTrail(
        m_timeline.keyTrail(m_charts->windowSeconds()), m_charts->windowSeconds());
}

void MonitorPage::follow(const QByteArray &key)
{
    if (key == m_timeline.followed())
        return;
    m_timeline.follow(key, m_monitor ? m_monitor->history() : std::deque<MonitorSnapshot>());
    if (const std::optional<KeyRow> r = m_hotKeys->row(key);
        r && r->readAtUs && r->status == KeyQuota::Status::Read)
        m_timeline.recordKey(r->readAtUs, r->remaining, r->limit);
    m_hotKeys->showKey(key);
    m_hotKeys->showKeyTrail(
        m_timeline.keyTrail(m_charts->windowSeconds()), m_charts->windowSeconds());
}

void MonitorPage::showState()
{
    ConnectionStatus::State s;
    if (m_monitor) {
        s.state = m_monitor->client().state();
        s.detail = m_monitor->client().stateText();
        s.retryMs = m_monitor->client().retryInMs();
        s.server = m_server;
        if (!m_monitor->history().empty())
            s.lastError = m_monitor->history().back().lastError;
    } else if (m_demo->running()) {
        s.state = RespClient::State::Connecting;
        s.detail = tr("starting the local demo");
    }
    m_status->showState(s);
    m_status->setDiscoverEnabled(!demoRunning() || m_monitor);
    m_panel->setConnected(m_monitor != nullptr);
    m_charts->setSource(m_server, m_monitor != nullptr, s.state == RespClient::State::Connected);
    m_hotKeys->setMonitorState(m_monitor != nullptr, s.state == RespClient::State::Connected);
}

void MonitorPage::resetKey(const QByteArray &key)
{
    if (!m_monitor)
        return;
    const QString question
        = tr("Delete the key \"%1\" on %2?\n\nThis resets that client's quota: its next requests "
             "are admitted as if it had sent none.")
              .arg(QString::fromUtf8(key), m_server);
    if (!m_confirm(tr("Reset this key"), question))
        return;
    m_monitor->setReadOnly(false);
    m_monitor->resetKey(key, [this, key](const RespValue &reply) {
        m_status->setSummary(reply.isError()
                ? tr("Reset of %1 failed: %2")
                      .arg(QString::fromUtf8(key), QString::fromUtf8(reply.text))
                : tr("Reset %1.").arg(QString::fromUtf8(key)));
    });
}

void MonitorPage::discover()
{
    if (m_discover) {
        m_discover->raise();
        m_discover->activateWindow();
        return;
    }
    m_discover = new DiscoverDialog(
        m_panel->options(), m_panel->budgetPerSecond(), routeIds(m_doc->policy()), this);
    m_discover->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_discover, &DiscoverDialog::layoutChosen, this, &MonitorPage::addLayout);
    m_discover->show();
}

void MonitorPage::addLayout(const RedisLayout &layout)
{
    Policy after = m_doc->policy();
    after.redis.present = true;
    // One layout per route: a new one replaces the old.
    after.redis.layouts.removeIf([&](const RedisLayout &l) { return l.routeId == layout.routeId; });
    after.redis.layouts.append(layout);
    m_doc->setPolicyField(after,
        tr("Add the %1 layout for route %2").arg(layout.preset.value_or(QString()), layout.routeId),
        QString());
}

std::vector<Series> MonitorPage::windowSeries() const
{
    return m_charts->windowSeries();
}

} // namespace qs
