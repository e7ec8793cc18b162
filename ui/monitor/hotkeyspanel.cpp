#include "ui/monitor/hotkeyspanel.h"

#include "ui/common/icons.h"
#include "ui/common/livechart.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace qs {

HotKeysPanel::HotKeysPanel(QWidget *parent)
    : QWidget(parent), m_filterText(new QLineEdit), m_filterRoute(new QComboBox),
      m_allowWrites(new QCheckBox(tr("Allow &writes"))),
      m_reset(new QPushButton(tr("Reset this &key…"))), m_table(new QTableView),
      m_keyChart(new LiveChart(
          {tr("Selected key"), tr("time before now (s)"), tr("remaining (requests)")})),
      m_keys(new HotKeysModel(this)), m_filter(new HotKeysFilter(m_keys, this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    m_filterText->setObjectName(QStringLiteral("keyFilter"));
    m_filterText->setPlaceholderText(tr("Filter keys…"));
    m_filterText->setClearButtonEnabled(true);
    m_filterText->setToolTip(tr("Show the keys whose name contains this text (any case)"));
    m_filterRoute->setObjectName(QStringLiteral("keyRoute"));
    m_filterRoute->setToolTip(tr("Show one route's keys"));
    m_filterRoute->addItem(tr("All routes"));
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
    // Every column in sight at 1280x800: the figures as wide as their header or their widest
    // usual value (a unit included), the key taking the rest.
    QHeaderView *header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setSectionResizeMode(HotKeysModel::Key, QHeaderView::Stretch);
    header->setStretchLastSection(false);
    // A route with several limits shows each as "route/limit".
    const QStringList widest = {{}, QStringLiteral("search/daily"), QStringLiteral("99,999"),
        QStringLiteral("99,999"), QStringLiteral("100 %"), QStringLiteral("59.9 s"),
        QStringLiteral("= reset"), QStringLiteral("59 min ago")};
    for (int c = HotKeysModel::Route; c < HotKeysModel::ColumnCount; ++c) {
        const QString title = m_keys->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
        // The header's text leaves room for the sort arrow beside it.
        const int text = std::max(m_table->fontMetrics().horizontalAdvance(widest[c]),
            header->fontMetrics().horizontalAdvance(title) + 14);
        m_table->setColumnWidth(c, text + 12);
    }
    m_table->setWordWrap(false);
    m_table->setAlternatingRowColors(true);
    split->addWidget(m_table);
    m_keyChart->setObjectName(QStringLiteral("keyChart"));
    m_keyChart->setMinimumSize(260, 200);
    m_keyChart->setHint(tr("select a row"));
    split->addWidget(m_keyChart);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({720, 260}); // the table gets the room; the key's chart stays readable
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);

    connect(m_filterText, &QLineEdit::textChanged, m_filter, &HotKeysFilter::setText);
    connect(m_filterRoute, &QComboBox::currentIndexChanged, this,
        [this](int i) { m_filter->setRoute(i - 1); });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex &current) {
            const QModelIndex source = m_filter->mapToSource(current);
            if (source.isValid() && m_keys->row(source.row()).key != m_selected) {
                m_selected = m_keys->row(source.row()).key;
                emit keySelected(m_selected);
            }
            updateResetButton();
        });
    connect(&m_sorting, &QFutureWatcher<PreparedRows>::finished, this, [this] {
        if (m_sorting.future().resultCount() > 0 && m_monitoring)
            m_keys->apply(std::move(*m_sorting.result()));
        if (!m_paused)
            sortPendingRows();
    });
    connect(m_allowWrites, &QCheckBox::toggled, this, [this](bool allow) {
        updateResetButton();
        emit writesAllowedChanged(allow);
    });
    connect(m_reset, &QPushButton::clicked, this, [this] {
        const QModelIndex current
            = m_filter->mapToSource(m_table->selectionModel()->currentIndex());
        if (current.isValid() && m_allowWrites->isChecked())
            emit resetRequested(m_keys->row(current.row()).key);
    });
    connect(m_filter, &QAbstractItemModel::modelReset, this, &HotKeysPanel::reselect);
    updateResetButton();
}

HotKeysPanel::~HotKeysPanel()
{
    // A sort in flight owns its rows; its result must not arrive at a panel being destroyed.
    m_sorting.disconnect(this);
    m_sorting.waitForFinished();
}

void HotKeysPanel::setRouteChoices(const QStringList &ids)
{
    const QString current = m_filterRoute->currentText();
    {
        const QSignalBlocker quiet(m_filterRoute);
        m_filterRoute->clear();
        m_filterRoute->addItem(tr("All routes"));
        m_filterRoute->addItems(ids);
        m_filterRoute->setCurrentIndex(std::max(0, m_filterRoute->findText(current)));
    }
    m_filter->setRoute(m_filterRoute->currentIndex() - 1);
}

void HotKeysPanel::startOver(const QStringList &routes, const QList<bool> &shadow)
{
    m_rowsPending = false;
    m_pendingRows.clear();
    m_sorting.waitForFinished(); // rows of the previous server must not land in the new table
    m_keys->setRoutes(routes, shadow);
    m_selected.clear();
    m_keyChart->setTitle(tr("Selected key"));
    m_keyChart->setToolTip({});
    m_keyChart->setHint(tr("select a row"));
}

void HotKeysPanel::setRows(std::vector<KeyRow> rows, qint64 serverNowUs)
{
    m_pendingRows = std::move(rows);
    m_rowsPending = true;
    if (serverNowUs)
        m_serverNowUs = serverNowUs;
    if (!m_paused)
        sortPendingRows();
}

void HotKeysPanel::setPaused(bool paused)
{
    m_paused = paused;
    if (!paused)
        sortPendingRows();
}

void HotKeysPanel::setMonitorState(bool monitoring, bool connected)
{
    m_monitoring = monitoring;
    m_connected = connected;
    updateResetButton();
}

bool HotKeysPanel::writesAllowed() const
{
    return m_allowWrites->isChecked();
}

std::optional<KeyRow> HotKeysPanel::row(const QByteArray &key) const
{
    const int r = m_keys->rowOf(key);
    return r < 0 ? std::nullopt : std::optional<KeyRow>(m_keys->row(r));
}

void HotKeysPanel::showKey(const QByteArray &key)
{
    m_selected = key;
    // The key names the chart (elided in the middle: prefixes and client ids both matter).
    const QString name = QString::fromUtf8(key);
    m_keyChart->setTitle(
        name.size() > 44 ? name.left(20) + QStringLiteral("…") + name.right(20) : name);
    m_keyChart->setToolTip(tr("Remaining quota of %1 over time").arg(name));
    m_keyChart->setHint(tr("waiting for its next read"));
}

void HotKeysPanel::showKeyTrail(const std::vector<Series> &trail, double windowSeconds)
{
    m_keyChart->show(trail, windowSeconds);
}

void HotKeysPanel::sortPendingRows()
{
    // One sort at a time on a worker thread; a refresh that comes while one runs waits for it
    // (and one that comes after it replaces it: only the newest rows are worth sorting).
    if (!m_rowsPending || m_sorting.isRunning())
        return;
    m_rowsPending = false;
    // The result travels in a shared_ptr: a QFuture hands out copies, and copying 100 000 rows
    // on the GUI thread is what the worker is there to spare.
    m_sorting.setFuture(QtConcurrent::run(
        [rows = std::move(m_pendingRows), now = m_serverNowUs, column = m_keys->sortColumn(),
            order = m_keys->sortOrder()]() mutable {
            return std::make_shared<HotKeysModel::Prepared>(
                HotKeysModel::prepare(std::move(rows), now, column, order));
        }));
    m_pendingRows.clear();
}

void HotKeysPanel::reselect()
{
    const int row = m_keys->rowOf(m_selected);
    if (row >= 0) {
        const QModelIndex index = m_filter->mapFromSource(m_keys->index(row, 0));
        if (index.isValid()) {
            const QSignalBlocker quiet(m_table->selectionModel());
            m_table->selectionModel()->setCurrentIndex(
                index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        }
    }
    updateResetButton();
}

void HotKeysPanel::updateResetButton()
{
    const bool selected = m_table->selectionModel()->currentIndex().isValid();
    const bool writable = m_allowWrites->isChecked();
    m_reset->setEnabled(writable && selected && m_monitoring && m_connected);
    m_reset->setToolTip(writable
            ? tr("Delete the selected key: that client's quota starts whole again. Asks first.")
            : tr("Read-only: tick \"Allow writes\" to reset a key"));
}

} // namespace qs
