#include "ui/monitor/hotkeysmodel.h"

#include <QBrush>
#include <QColor>
#include <QLocale>

#include <algorithm>
#include <cctype>

namespace qs {

namespace {

QString duration(qint64 ms)
{
    if (ms < 0)
        return QString();
    if (ms < 10'000)
        return QObject::tr("%1 s").arg(QLocale().toString(double(ms) / 1000, 'f', 1));
    if (ms < 120'000)
        return QObject::tr("%1 s").arg(ms / 1000);
    if (ms < 7'200'000)
        return QObject::tr("%1 min").arg(ms / 60'000);
    return QObject::tr("%1 h").arg(ms / 3'600'000);
}

bool containsIgnoringCase(const QByteArray &haystack, const QByteArray &lowerNeedle)
{
    return std::search(haystack.begin(), haystack.end(), lowerNeedle.begin(), lowerNeedle.end(),
               [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; })
        != haystack.end();
}

} // namespace

void HotKeysModel::setRoutes(const QStringList &routes, const QList<bool> &shadow)
{
    beginResetModel();
    m_routes = routes;
    m_shadow = shadow;
    m_rows.clear();
    m_lastKeys.clear();
    endResetModel();
}

void HotKeysModel::clear()
{
    setRoutes(m_routes, m_shadow);
}

double HotKeysModel::usedShare(const KeyRow &r)
{
    return r.limit > 0 ? double(r.limit - r.remaining) / double(r.limit) : 0.0;
}

void HotKeysModel::sortRows(std::vector<KeyRow> &rows, int column, Qt::SortOrder sortOrder)
{
    const auto value = [column](const KeyRow &r) -> double {
        switch (column) {
        case Route:
            return r.route;
        case Remaining:
            return double(r.remaining);
        case Limit:
            return double(r.limit);
        case Used:
            // Throttled keys first, whatever their share: they are the ones being refused.
            return usedShare(r) + (r.throttled ? 1e6 : 0);
        case ResetIn:
            return double(r.resetAfterMs);
        case Ttl:
            return double(r.ttlMs);
        case LastChange:
            return double(r.changedAtUs);
        default:
            return 0;
        }
    };
    // Sorted by a number computed once per row, equal numbers kept in the monitor's order (stable
    // from one refresh to the next, so equal rows do not swap places): 100 000 rows in a few
    // milliseconds, where comparing rows field by field and then by key name took 50 ms.
    std::vector<std::pair<double, quint32>> order(rows.size());
    const double sign = sortOrder == Qt::AscendingOrder ? 1 : -1;
    for (size_t i = 0; i < rows.size(); ++i)
        order[i] = {column == Key ? 0.0 : sign * value(rows[i]), quint32(i)};
    if (column == Key) {
        const bool ascending = sortOrder == Qt::AscendingOrder;
        std::sort(order.begin(), order.end(), [&](const auto &a, const auto &b) {
            const QByteArray &ka = rows[a.second].key, &kb = rows[b.second].key;
            return ascending ? ka < kb : kb < ka;
        });
    } else {
        std::sort(order.begin(), order.end()); // by value, then by the monitor's order
    }
    std::vector<KeyRow> sorted;
    sorted.reserve(rows.size());
    for (const auto &[ignored, i] : order)
        sorted.push_back(std::move(rows[i]));
    rows = std::move(sorted);
}

HotKeysModel::Prepared HotKeysModel::prepare(
    std::vector<KeyRow> rows, qint64 serverNowUs, int column, Qt::SortOrder order)
{
    Prepared p;
    p.keys.reserve(rows.size());
    for (const KeyRow &r : rows)
        p.keys.push_back(r.key);
    sortRows(rows, column, order);
    p.rows = std::move(rows);
    p.serverNowUs = serverNowUs;
    p.column = column;
    p.order = order;
    return p;
}

void HotKeysModel::update(std::vector<KeyRow> rows, qint64 serverNowUs)
{
    apply(prepare(std::move(rows), serverNowUs, m_sortColumn, m_order));
}

void HotKeysModel::apply(Prepared prepared)
{
    m_nowUs = prepared.serverNowUs;
    if (prepared.column != m_sortColumn || prepared.order != m_order)
        sortRows(prepared.rows, m_sortColumn, m_order); // a header was clicked meanwhile
    std::vector<KeyRow> &rows = prepared.rows;
    const bool sameKeys = prepared.keys == m_lastKeys;
    if (!sameKeys) {
        m_lastKeys = std::move(prepared.keys);
        beginResetModel();
        m_rows = std::move(rows);
        endResetModel();
        return;
    }
    bool sameOrder = rows.size() == m_rows.size();
    for (size_t i = 0; sameOrder && i < rows.size(); ++i)
        sameOrder = rows[i].key == m_rows[i].key;
    if (!sameOrder) {
        reorder(std::move(rows));
        return;
    }
    m_rows = std::move(rows);
    if (!m_rows.empty())
        emit dataChanged(index(0, Remaining), index(rowCount() - 1, LastChange));
}

void HotKeysModel::reorder(std::vector<KeyRow> sorted)
{
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    // Only the persistent indexes (a selection, the current row: a key or two) need their new
    // rows. One pass comparing names, stopping when all are found — hashing 100 000 names to
    // find them cost 8 ms a refresh.
    const QModelIndexList before = persistentIndexList();
    QList<QByteArray> keys;
    for (const QModelIndex &i : before)
        if (!keys.contains(m_rows[size_t(i.row())].key))
            keys << m_rows[size_t(i.row())].key;
    QList<int> rowOfKey(keys.size(), -1);
    qsizetype left = keys.size();
    for (size_t r = 0; r < sorted.size() && left > 0; ++r)
        for (qsizetype k = 0; k < keys.size(); ++k)
            if (rowOfKey[k] < 0 && sorted[r].key == keys[k]) {
                rowOfKey[k] = int(r);
                --left;
            }
    QModelIndexList after;
    for (const QModelIndex &i : before)
        after << index(rowOfKey[keys.indexOf(m_rows[size_t(i.row())].key)], i.column());
    m_rows = std::move(sorted);
    changePersistentIndexList(before, after);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void HotKeysModel::sort(int column, Qt::SortOrder order)
{
    if (column < 0 || column >= ColumnCount)
        return;
    m_sortColumn = column;
    m_order = order;
    std::vector<KeyRow> rows = m_rows;
    sortRows(rows, m_sortColumn, m_order);
    reorder(std::move(rows));
}

int HotKeysModel::rowOf(const QByteArray &key) const
{
    for (size_t r = 0; r < m_rows.size(); ++r)
        if (m_rows[r].key == key)
            return int(r);
    return -1;
}

int HotKeysModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int HotKeysModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString HotKeysModel::text(const KeyRow &r, int column) const
{
    const bool read = r.status == KeyQuota::Status::Read;
    switch (column) {
    case Key:
        return QString::fromUtf8(r.key);
    case Route:
        // A shadow route's keys over the limit would be throttled, and are not: said here, and
        // in another colour than the throttled keys' (data(), BackgroundRole).
        return m_shadow.value(r.route) ? tr("%1 (shadow)").arg(m_routes.value(r.route))
                                       : m_routes.value(r.route);
    case Remaining:
        return read ? QLocale().toString(r.remaining) : tr("unreadable");
    case Limit:
        return read ? QLocale().toString(r.limit) : QString();
    case Used:
        return read ? QStringLiteral("%1 %").arg(qRound(usedShare(r) * 100)) : QString();
    case ResetIn:
        return read ? duration(r.resetAfterMs) : QString();
    case Ttl:
        if (r.ttlMs == KeyQuota::kTtlNotRead)
            return tr("= reset");
        return r.ttlMs == -1 ? tr("none") : duration(r.ttlMs);
    case LastChange: {
        if (r.changedAtUs <= 0)
            return QString();
        // Reads land after the refresh's TIME: a change "after now" happened just now.
        const qint64 agoMs = (m_nowUs - r.changedAtUs) / 1000;
        return agoMs < 500 ? tr("just now") : tr("%1 ago").arg(duration(agoMs));
    }
    default:
        return {};
    }
}

QVariant HotKeysModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const KeyRow &r = m_rows[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return text(r, index.column());
    case Qt::TextAlignmentRole:
        return index.column() >= Remaining ? int(Qt::AlignRight | Qt::AlignVCenter)
                                           : int(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::BackgroundRole:
        if (r.throttled && m_shadow.value(r.route)) // counted, not enforced: no alarm colour
            return QBrush(QColor(0x56, 0xb4, 0xe9, 50));
        if (r.throttled) // over its limit: the next request of this client is refused
            return QBrush(QColor(0xd5, 0x5e, 0x00, 70));
        return {};
    case Qt::ToolTipRole:
        if (r.throttled && m_shadow.value(r.route))
            return tr("Shadow mode: over its limit, this client's next request would be refused "
                      "for %1 if the route were enforced; it is admitted.")
                .arg(duration(r.resetAfterMs));
        if (r.throttled)
            return tr("Over its limit: the next request of this client is refused for %1.")
                .arg(duration(r.resetAfterMs));
        if (r.status == KeyQuota::Status::Unreadable)
            return tr("The key is not what the route's layout describes.");
        if (index.column() == Ttl && r.ttlMs == KeyQuota::kTtlNotRead)
            return tr("Not read: Quota Studio's scripts set the TTL to the reset time.");
        return {};
    default:
        return {};
    }
}

QVariant HotKeysModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    static const char *const names[] = {QT_TR_NOOP("Key"), QT_TR_NOOP("Route"),
        QT_TR_NOOP("Remaining"), QT_TR_NOOP("Limit"), QT_TR_NOOP("% used"), QT_TR_NOOP("Reset in"),
        QT_TR_NOOP("TTL"), QT_TR_NOOP("Last change")};
    static const char *const tips[] = {QT_TR_NOOP("The Redis key: one client of one route"),
        QT_TR_NOOP("The route whose limit the key enforces"),
        QT_TR_NOOP("Requests the client may still make now"),
        QT_TR_NOOP("The route's capacity (burst) for one client"),
        QT_TR_NOOP("Share of the limit in use; keys over their limit sort first"),
        QT_TR_NOOP("Until the quota is whole again, as of the last read"),
        QT_TR_NOOP("The key's time to live in Redis"),
        QT_TR_NOOP("Since the remaining quota last changed")};
    if (section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole)
        return tr(names[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    return {};
}

HotKeysFilter::HotKeysFilter(HotKeysModel *source, QObject *parent)
    : QSortFilterProxyModel(parent), m_source(source)
{
    setSourceModel(source);
    // Filtering depends on key and route only, which a refresh never changes: no need to
    // re-test 100 000 rows on every dataChanged.
    setDynamicSortFilter(false);
}

void HotKeysFilter::setText(const QString &text)
{
    m_text = text.trimmed().toLower().toUtf8();
    invalidateFilter();
}

void HotKeysFilter::setRoute(int route)
{
    m_route = route;
    invalidateFilter();
}

void HotKeysFilter::sort(int column, Qt::SortOrder order)
{
    m_source->sort(column, order);
}

bool HotKeysFilter::filterAcceptsRow(int sourceRow, const QModelIndex &) const
{
    const KeyRow &r = m_source->row(sourceRow);
    if (m_route >= 0 && r.route != m_route)
        return false;
    return m_text.isEmpty() || containsIgnoringCase(r.key, m_text);
}

} // namespace qs
