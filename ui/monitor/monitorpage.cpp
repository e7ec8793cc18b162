#include "ui/monitor/monitorpage.h"

#include "model/redis/localdemo.h"
#include "ui/common/chartfiles.h"
#include "ui/common/icons.h"
#include "ui/common/livechart.h"
#include "ui/document/policydocument.h"
#include "ui/monitor/connectionpanel.h"
#include "ui/monitor/discoverdialog.h"
#include "ui/monitor/hotkeysmodel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>
#include <limits>

namespace qs {

namespace {

// Colour and words for a connection state: green when reading, amber while it may heal by
// itself, red when the operator has to act, grey when closed.
QString stateColor(RespClient::State state)
{
    switch (state) {
    case RespClient::State::Connected:
        return QStringLiteral("#009e73");
    case RespClient::State::Connecting:
    case RespClient::State::Loading:
    case RespClient::State::Busy:
        return QStringLiteral("#e69f00");
    case RespClient::State::Unreachable:
    case RespClient::State::AuthenticationFailed:
    case RespClient::State::TlsError:
        return QStringLiteral("#d55e00");
    case RespClient::State::Disconnected:
        break;
    }
    return QStringLiteral("#888888");
}

QString stateWords(RespClient::State state)
{
    switch (state) {
    case RespClient::State::Disconnected:
        return QObject::tr("Not connected");
    case RespClient::State::Connecting:
        return QObject::tr("Connecting");
    case RespClient::State::Connected:
        return QObject::tr("Connected");
    case RespClient::State::AuthenticationFailed:
        return QObject::tr("Authentication failed");
    case RespClient::State::Unreachable:
        return QObject::tr("Unreachable");
    case RespClient::State::Loading:
        return QObject::tr("Server loading");
    case RespClient::State::Busy:
        return QObject::tr("Server busy");
    case RespClient::State::TlsError:
        return QObject::tr("TLS error");
    }
    return {};
}

const QList<QPair<QString, int>> kWindows = {{QObject::tr("1 min"), 60},
    {QObject::tr("5 min"), 300}, {QObject::tr("15 min"), 900}, {QObject::tr("1 h"), 3600}};

} // namespace

MonitorPage::MonitorPage(PolicyDocument *doc, QWidget *parent)
    : QWidget(parent), m_doc(doc), m_demo(std::make_unique<LocalDemo>()),
      m_panel(new ConnectionPanel), m_state(new QLabel), m_summary(new QLabel),
      m_stateTicker(new QTimer(this)),
      m_demoButton(new QPushButton(icon(QStringLiteral("run")), tr("Start local &demo"))),
      m_discoverButton(new QPushButton(icon(QStringLiteral("filter")), tr("D&iscover…"))),
      m_pause(new QPushButton(tr("&Pause"))), m_reset(new QPushButton(tr("Reset this &key…"))),
      m_save(new QToolButton), m_route(new QComboBox), m_window(new QComboBox),
      m_filterRoute(new QComboBox), m_filterText(new QLineEdit),
      m_allowWrites(new QCheckBox(tr("Allow &writes"))),
      m_requestsChart(
          new LiveChart({tr("Requests per second"), tr("time before now (s)"), tr("requests/s")})),
      m_keysChart(new LiveChart({tr("Keys"), tr("time before now (s)"), tr("keys")})),
      m_keyChart(new LiveChart({tr("Selected key"), tr("time before now (s)"), tr("requests")})),
      m_keys(new HotKeysModel(this)), m_filter(new HotKeysFilter(m_keys, this)),
      m_table(new QTableView)
{
    m_confirm = [this](const QString &title, const QString &question) {
        return QMessageBox::question(this, title, question, QMessageBox::Yes | QMessageBox::Cancel,
                   QMessageBox::Cancel)
            == QMessageBox::Yes;
    };
    auto *top = new QHBoxLayout;
    m_state->setObjectName(QStringLiteral("connectionState"));
    m_state->setTextFormat(Qt::RichText);
    m_state->setToolTip(tr("The connection's state, the last error and when it retries. "
                           "The monitor reconnects by itself after a drop."));
    top->addWidget(m_state, 1);
    m_summary->setObjectName(QStringLiteral("summary"));
    top->addWidget(m_summary);
    top->addWidget(m_discoverButton);
    top->addWidget(m_demoButton);
    m_discoverButton->setToolTip(tr("Sample the server's keys (read-only, within the read "
                                    "budget) and offer the layout of the key families found"));

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
    right->addWidget(buildCharts());
    right->addWidget(buildHotKeys());
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
    layout->addLayout(top);
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
    connect(m_demoButton, &QPushButton::clicked, this, [this] {
        if (demoRunning())
            stopDemo();
        else
            startDemo();
    });
    connect(m_discoverButton, &QPushButton::clicked, this, &MonitorPage::discover);
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
        updateDemoButton();
        emit demoStateChanged(true);
    });
    connect(m_demo.get(), &LocalDemo::failed, this, [this](const QString &why) {
        m_panel->endDemo();
        disconnectFromServer();
        m_summary->setText(tr("Demo: %1").arg(why));
        updateDemoButton();
        emit demoStateChanged(false);
    });
    connect(m_demo.get(), &LocalDemo::stopped, this, [this] {
        m_panel->endDemo();
        disconnectFromServer();
        updateDemoButton();
        emit demoStateChanged(false);
    });
    m_stateTicker->setInterval(1000);
    connect(m_stateTicker, &QTimer::timeout, this, &MonitorPage::showState);
    m_stateTicker->start();
    connect(m_doc, &PolicyDocument::reset, this, &MonitorPage::refreshRouteLists);
    connect(m_doc, &PolicyDocument::routesChanged, this, &MonitorPage::refreshRouteLists);
    refreshRouteLists();
    updateDemoButton();
    updateResetButton();
    showState();
}

MonitorPage::~MonitorPage()
{
    // A sort in flight owns its rows; its result must not arrive at a page being destroyed.
    m_sorting.disconnect(this);
    m_sorting.waitForFinished();
    if (m_discover)
        delete m_discover;
    m_monitor.reset(); // before the demo's server goes
    m_demo.reset(); // stops the traffic and the server, waiting for both
}

QWidget *MonitorPage::buildCharts()
{
    auto *box = new QWidget;
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    auto *routeLabel = new QLabel(tr("R&oute:"));
    routeLabel->setBuddy(m_route);
    m_route->setObjectName(QStringLiteral("chartRoute"));
    m_route->setToolTip(tr("The route the charts show; All routes sums them"));
    m_route->setSizeAdjustPolicy(QComboBox::AdjustToContents);
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
    m_save->setText(tr("&Save"));
    m_save->setIcon(icon(QStringLiteral("save")));
    m_save->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_save->setPopupMode(QToolButton::InstantPopup);
    auto *menu = new QMenu(m_save);
    menu->addAction(icon(QStringLiteral("image")), tr("Requests chart as PNG or SVG…"), this,
        [this] { saveChart(m_requestsChart); });
    menu->addAction(icon(QStringLiteral("image")), tr("Keys chart as PNG or SVG…"), this,
        [this] { saveChart(m_keysChart); });
    menu->addAction(icon(QStringLiteral("image")), tr("Selected key's chart as PNG or SVG…"), this,
        [this] { saveChart(m_keyChart); });
    menu->addSeparator();
    menu->addAction(
        icon(QStringLiteral("table")), tr("Series as CSV…"), this, &MonitorPage::saveCsv);
    m_save->setMenu(menu);
    m_save->setToolTip(tr("Save a chart (PNG, SVG) or the series in the window (CSV)"));
    bar->addWidget(routeLabel);
    bar->addWidget(m_route);
    bar->addWidget(windowLabel);
    bar->addWidget(m_window);
    bar->addStretch(1);
    bar->addWidget(m_pause);
    bar->addWidget(m_save);
    layout->addLayout(bar);
    auto *charts = new QSplitter(Qt::Horizontal);
    m_requestsChart->setObjectName(QStringLiteral("requestsChart"));
    m_keysChart->setObjectName(QStringLiteral("keysChart"));
    m_requestsChart->setToolTip(tr("Allowed and denied requests per second, from the "
                                   "deployment's own counters (redis.metrics: true)"));
    m_keysChart->setToolTip(tr("Live keys (one per client and route) and those whose next "
                               "request would be refused now"));
    charts->addWidget(m_requestsChart);
    charts->addWidget(m_keysChart);
    charts->setChildrenCollapsible(false);
    for (LiveChart *c : {m_requestsChart, m_keysChart, m_keyChart})
        c->setMinimumSize(260, 200);
    layout->addWidget(charts, 1);

    connect(m_route, &QComboBox::currentIndexChanged, this, &MonitorPage::redrawCharts);
    connect(m_window, &QComboBox::currentIndexChanged, this,
        [this](int i) { setWindowSeconds(m_window->itemData(i).toInt()); });
    connect(m_pause, &QPushButton::toggled, this, &MonitorPage::setPaused);
    return box;
}

QWidget *MonitorPage::buildHotKeys()
{
    auto *box = new QWidget;
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    m_filterText->setObjectName(QStringLiteral("keyFilter"));
    m_filterText->setPlaceholderText(tr("Filter keys…"));
    m_filterText->setClearButtonEnabled(true);
    m_filterText->setToolTip(tr("Show the keys whose name contains this text (any case)"));
    m_filterRoute->setObjectName(QStringLiteral("keyRoute"));
    m_filterRoute->setToolTip(tr("Show one route's keys"));
    m_allowWrites->setObjectName(QStringLiteral("allowWrites"));
    m_allowWrites->setToolTip(tr("Read-only is the default: the monitor sends no command that "
                                 "writes. Tick to allow \"Reset this key\", the one write, which "
                                 "still asks before it deletes."));
    m_reset->setObjectName(QStringLiteral("resetKey"));
    m_reset->setIcon(icon(QStringLiteral("delete")));
    bar->addWidget(new QLabel(tr("Hot keys:")));
    bar->addWidget(m_filterText, 1);
    bar->addWidget(m_filterRoute);
    bar->addStretch(0);
    bar->addWidget(m_allowWrites);
    bar->addWidget(m_reset);
    layout->addLayout(bar);

    auto *split = new QSplitter(Qt::Horizontal);
    m_table->setObjectName(QStringLiteral("hotKeys"));
    m_table->setModel(m_filter);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(HotKeysModel::Used, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    // Fixed row heights and no per-row size hints: the view never measures 100 000 rows.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(HotKeysModel::Key, 220);
    m_table->setColumnWidth(HotKeysModel::Route, 90);
    for (int c = HotKeysModel::Remaining; c < HotKeysModel::ColumnCount; ++c)
        m_table->setColumnWidth(c, 82);
    m_table->setWordWrap(false);
    m_table->setAlternatingRowColors(true);
    split->addWidget(m_table);
    m_keyChart->setObjectName(QStringLiteral("keyChart"));
    m_keyChart->setHint(tr("select a row"));
    split->addWidget(m_keyChart);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({660, 300}); // the table gets the room; the key's chart stays readable
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);

    connect(m_filterText, &QLineEdit::textChanged, m_filter, &HotKeysFilter::setText);
    connect(m_filterRoute, &QComboBox::currentIndexChanged, this,
        [this](int i) { m_filter->setRoute(i - 1); });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex &current) {
            const QModelIndex source = m_filter->mapToSource(current);
            if (source.isValid())
                follow(m_keys->row(source.row()).key);
            updateResetButton();
        });
    connect(&m_sorting, &QFutureWatcher<PreparedRows>::finished, this, [this] {
        if (m_sorting.future().resultCount() > 0 && m_monitor)
            m_keys->apply(std::move(*m_sorting.result()));
        if (!m_paused)
            sortPendingRows();
    });
    connect(m_allowWrites, &QCheckBox::toggled, this, [this](bool allow) {
        if (m_monitor)
            m_monitor->setReadOnly(!allow);
        updateResetButton();
    });
    connect(m_reset, &QPushButton::clicked, this, &MonitorPage::resetSelectedKey);
    // A reset model (keys came or went) keeps the followed key selected.
    connect(m_filter, &QAbstractItemModel::modelReset, this, [this] {
        const int row = m_keys->rowOf(m_timeline.followed());
        if (row < 0)
            return;
        const QModelIndex index = m_filter->mapFromSource(m_keys->index(row, 0));
        if (index.isValid()) {
            const QSignalBlocker quiet(m_table->selectionModel());
            m_table->selectionModel()->setCurrentIndex(
                index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        }
        updateResetButton();
    });
    return box;
}

void MonitorPage::refreshRouteLists()
{
    QStringList ids;
    for (const Route &r : m_doc->policy().routes)
        ids << r.id;
    for (QComboBox *combo : {m_route, m_filterRoute}) {
        const QString current = combo->currentText();
        const QSignalBlocker quiet(combo);
        combo->clear();
        combo->addItem(tr("All routes"));
        combo->addItems(ids);
        combo->setCurrentIndex(std::max(0, combo->findText(current)));
    }
    m_filter->setRoute(m_filterRoute->currentIndex() - 1);
}

void MonitorPage::startMonitor(const Policy &policy, const MonitorOptions &options)
{
    m_monitor.reset();
    m_timeline.clear();
    m_rowsPending = false;
    m_pendingRows.clear();
    m_sorting.waitForFinished(); // rows of the previous server must not land in the new table
    QStringList routes;
    for (const Route &r : policy.routes)
        routes << r.id;
    m_keys->setRoutes(routes);
    m_keyChart->show({}, m_windowSeconds);
    m_keyChart->setTitle(tr("Selected key"));
    m_keyChart->setHint(tr("select a row"));
    // One server or a cluster, whichever the address leads to (ClusterMonitor).
    m_monitor = std::make_unique<ClusterMonitor>(policy);
    m_monitor->setReadOnly(!m_allowWrites->isChecked());
    connect(m_monitor.get(), &ClusterMonitor::refreshed, this, &MonitorPage::onRefreshed);
    connect(&m_monitor->client(), &RespClient::stateChanged, this, &MonitorPage::showState);
    MonitorOptions o = options;
    o.budgetPerSecond = m_panel->budgetPerSecond();
    o.historySeconds = 60; // the page keeps its own hour (MonitorTimeline)
    m_monitor->start(o);
    m_server = m_panel->serverName();
    m_panel->setConnected(true);
    showState();
    updateResetButton();
}

void MonitorPage::connectToServer()
{
    if (demoRunning())
        return;
    if (const QString problem = m_panel->seedsProblem(); !problem.isEmpty()) {
        m_summary->setText(problem);
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
    m_panel->setConnected(false);
    showState();
    updateResetButton();
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
    m_summary->setText(clusterMasters > 0 ? tr("Starting the local cluster demo…")
                                          : tr("Starting the local demo…"));
    LocalDemo::Options options;
    options.clusterMasters = clusterMasters;
    m_demo->start(m_doc->policy(), options);
    updateDemoButton();
}

void MonitorPage::stopDemo()
{
    m_summary->setText(tr("Stopping the local demo…"));
    m_monitor.reset();
    m_demo->stop();
    updateDemoButton();
}

void MonitorPage::updateDemoButton()
{
    if (LocalDemo::redisServerPath().isEmpty()) {
        m_demoButton->setEnabled(false);
        m_demoButton->setText(tr("Local demo: redis-server not installed"));
        m_demoButton->setToolTip(tr("The demo starts a redis-server of its own. Install it "
                                    "(Debian: apt install redis-server) and restart."));
        return;
    }
    const bool running = demoRunning();
    m_demoButton->setText(running ? tr("Stop local &demo") : tr("Start local &demo"));
    m_demoButton->setIcon(icon(running ? QStringLiteral("cancel") : QStringLiteral("run")));
    m_demoButton->setToolTip(running
            ? tr("Stop the demo's traffic and its redis-server")
            : tr("Start a redis-server of its own on a free loopback port (no persistence) and "
                 "traffic for the open policy's routes, and monitor it"));
}

void MonitorPage::onRefreshed(const MonitorSnapshot &snapshot)
{
    m_timeline.record(snapshot);
    m_lastServerUs = snapshot.serverTimeUs ? snapshot.serverTimeUs : m_lastServerUs;
    std::vector<KeyRow> rows = m_monitor->keyRows();
    if (!m_timeline.followed().isEmpty() && snapshot.serverTimeUs)
        for (const KeyRow &r : rows)
            if (r.key == m_timeline.followed()) {
                if (r.status == KeyQuota::Status::Read)
                    m_timeline.recordKey(snapshot.serverTimeUs, r.remaining, r.limit);
                break;
            }
    const qint64 throttled
        = std::count_if(rows.begin(), rows.end(), [](const KeyRow &r) { return r.throttled; });
    QString summary
        = tr("%1 keys · %2 throttled")
              .arg(QLocale().toString(qint64(rows.size())), QLocale().toString(throttled));
    if (!snapshot.scanComplete)
        summary += tr(" · first scan running");
    if (m_paused)
        summary += tr(" · paused");
    // A cluster: how many of its nodes are read, which are down; each node's keys on hover.
    QStringList nodes;
    qsizetype read = 0;
    for (const NodeStatus &n : snapshot.nodes) {
        nodes << tr("%1 (%2): %3 keys, %4")
                     .arg(n.address, n.replica ? tr("replica") : tr("master"),
                         QLocale().toString(n.keys), n.stateText);
        read += n.state == RespClient::State::Connected ? 1 : 0;
    }
    if (!nodes.isEmpty())
        summary += tr(" · cluster: %1 of %2 nodes read").arg(read).arg(nodes.size());
    m_summary->setToolTip(nodes.join(QLatin1Char('\n')));
    m_summary->setText(summary);
    m_pendingRows = std::move(rows);
    m_rowsPending = true;
    if (!m_paused)
        redraw();
    showState();
    emit refreshed();
}

void MonitorPage::redraw()
{
    redrawCharts();
    sortPendingRows();
}

void MonitorPage::sortPendingRows()
{
    // One sort at a time on a worker thread; a refresh that comes while one runs waits for it
    // (and one that comes after it replaces it: only the newest rows are worth sorting).
    if (!m_rowsPending || m_sorting.isRunning())
        return;
    m_rowsPending = false;
    // The result travels in a shared_ptr: a QFuture hands out copies, and copying 100 000 rows
    // on the GUI thread is what the worker is there to spare.
    m_sorting.setFuture(QtConcurrent::run(
        [rows = std::move(m_pendingRows), now = m_lastServerUs, column = m_keys->sortColumn(),
            order = m_keys->sortOrder()]() mutable {
            return std::make_shared<HotKeysModel::Prepared>(
                HotKeysModel::prepare(std::move(rows), now, column, order));
        }));
    m_pendingRows.clear();
}

void MonitorPage::redrawCharts()
{
    const QString route = m_route->currentIndex() > 0 ? m_route->currentText() : QString();
    const double window = m_windowSeconds;
    if (m_timeline.hasRequestCounts()) {
        m_requestsChart->setHint(tr("waiting for data"));
        m_requestsChart->show(m_timeline.requestSeries(route, window), window);
    } else {
        m_requestsChart->show({}, window);
        m_requestsChart->setHint(
            m_monitor ? tr("the deployment does not count (redis.metrics)") : tr("not connected"));
    }
    m_keysChart->show(m_timeline.keySeries(route, window), window);
    m_keyChart->show(m_timeline.keyTrail(window), window);
}

void MonitorPage::setPaused(bool paused)
{
    m_paused = paused;
    if (m_pause->isChecked() != paused)
        m_pause->setChecked(paused);
    m_pause->setText(paused ? tr("&Resume") : tr("&Pause"));
    if (!paused)
        redraw();
}

void MonitorPage::setWindowSeconds(int seconds)
{
    m_windowSeconds = seconds;
    for (int i = 0; i < m_window->count(); ++i)
        if (m_window->itemData(i).toInt() == seconds && m_window->currentIndex() != i) {
            const QSignalBlocker quiet(m_window);
            m_window->setCurrentIndex(i);
        }
    // Paused charts redraw too: a wider window is a way of reading what was collected.
    redrawCharts();
}

void MonitorPage::follow(const QByteArray &key)
{
    if (key == m_timeline.followed())
        return;
    m_timeline.follow(key, m_monitor ? m_monitor->history() : std::deque<MonitorSnapshot>());
    const int row = m_keys->rowOf(key);
    if (row >= 0 && m_lastServerUs) {
        const KeyRow &r = m_keys->row(row);
        if (r.status == KeyQuota::Status::Read)
            m_timeline.recordKey(r.readAtUs, r.remaining, r.limit);
    }
    // The key names the chart (elided in the middle: prefixes and client ids both matter).
    const QString name = QString::fromUtf8(key);
    m_keyChart->setTitle(
        name.size() > 44 ? name.left(20) + QStringLiteral("…") + name.right(20) : name);
    m_keyChart->setToolTip(tr("Remaining quota of %1 over time").arg(name));
    m_keyChart->setHint(tr("waiting for its next read"));
    m_keyChart->show(m_timeline.keyTrail(m_windowSeconds), m_windowSeconds);
}

void MonitorPage::showState()
{
    RespClient::State state = RespClient::State::Disconnected;
    QString text;
    QString lastError;
    int retryMs = -1;
    if (m_monitor) {
        state = m_monitor->client().state();
        text = m_monitor->client().stateText();
        retryMs = m_monitor->client().retryInMs();
        if (!m_monitor->history().empty())
            lastError = m_monitor->history().back().lastError;
    } else if (m_demo->running()) {
        state = RespClient::State::Connecting;
        text = tr("starting the local demo");
    }
    QString html = QStringLiteral("<span style='color:%1; font-size:large'>●</span> <b>%2</b>")
                       .arg(stateColor(state), stateWords(state).toHtmlEscaped());
    if (m_monitor)
        html += QStringLiteral(" — %1").arg(m_server.toHtmlEscaped());
    if (state != RespClient::State::Connected && !text.isEmpty())
        html += QStringLiteral(": %1").arg(text.toHtmlEscaped());
    if (retryMs >= 0)
        html += tr(" · retrying in %1 s").arg(std::max(1, int(std::ceil(retryMs / 1000.0))));
    if (!lastError.isEmpty())
        html += QStringLiteral(" · <span style='color:#d55e00'>%1</span>")
                    .arg(tr("last error: %1").arg(lastError).toHtmlEscaped());
    m_state->setText(html);
    m_panel->setConnected(m_monitor != nullptr);
    m_discoverButton->setEnabled(!demoRunning() || m_monitor);
}

void MonitorPage::updateResetButton()
{
    const bool selected = m_table->selectionModel()->currentIndex().isValid();
    const bool writable = m_allowWrites->isChecked();
    m_reset->setEnabled(writable && selected && m_monitor
        && m_monitor->client().state() == RespClient::State::Connected);
    m_reset->setToolTip(writable
            ? tr("Delete the selected key: that client's quota starts whole again. Asks first.")
            : tr("Read-only: tick \"Allow writes\" to reset a key"));
}

void MonitorPage::resetSelectedKey()
{
    const QModelIndex current = m_filter->mapToSource(m_table->selectionModel()->currentIndex());
    if (!current.isValid() || !m_monitor || !m_allowWrites->isChecked())
        return;
    const QByteArray key = m_keys->row(current.row()).key;
    const QString question
        = tr("Delete the key \"%1\" on %2?\n\nThis resets that client's quota: its next requests "
             "are admitted as if it had sent none.")
              .arg(QString::fromUtf8(key), m_server);
    if (!m_confirm(tr("Reset this key"), question))
        return;
    m_monitor->setReadOnly(false);
    m_monitor->resetKey(key, [this, key](const RespValue &reply) {
        m_summary->setText(reply.isError()
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
    QStringList routes;
    for (const Route &r : m_doc->policy().routes)
        routes << r.id;
    m_discover = new DiscoverDialog(m_panel->options(), m_panel->budgetPerSecond(), routes, this);
    m_discover->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_discover, &DiscoverDialog::layoutChosen, this, &MonitorPage::addLayout);
    m_discover->show();
}

DiscoverDialog *MonitorPage::discoverDialog() const
{
    return m_discover.data();
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

QString MonitorPage::windowName() const
{
    return m_window->currentText();
}

void MonitorPage::saveChart(LiveChart *chart)
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save chart"),
        QStringLiteral("monitor-%1.png").arg(chart->objectName()),
        tr("PNG image (*.png);;SVG drawing (*.svg)"));
    if (path.isEmpty())
        return;
    // The saved picture says where and when it was taken: it is read without the app beside it.
    const QString title = chart->chart()->title();
    chart->chart()->setTitle(QStringLiteral("%1<br><small>%2 — last %3, %4</small>")
                                 .arg(title, m_server.toHtmlEscaped(), windowName(),
                                     QLocale().toString(QDateTime::currentDateTime())));
    const Expected<void> saved = saveChartImage(chart, path);
    chart->chart()->setTitle(title);
    if (!saved)
        QMessageBox::warning(this, tr("Save chart"), saved.error());
}

std::vector<Series> MonitorPage::windowSeries() const
{
    const QString route = m_route->currentIndex() > 0 ? m_route->currentText() : QString();
    std::vector<Series> series = m_timeline.keySeries(route, m_windowSeconds);
    // Request counts on the keys' time base: a refresh without counts is an empty cell. (A copy
    // of the times: the push_back below may move the series they belong to.)
    const std::vector<double> t = series.front().t;
    for (const Series &counted : m_timeline.requestSeries(route, m_windowSeconds)) {
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

void MonitorPage::saveCsv()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save series"), QStringLiteral("monitor.csv"), tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    if (const Expected<void> saved = saveSeriesCsv(windowSeries(), path); !saved)
        QMessageBox::warning(this, tr("Save series"), saved.error());
}

} // namespace qs
