#pragma once
// The hot-keys table: every key the monitor has read, one row each — key, route, remaining,
// limit, % used, reset in, TTL, last change — with keys over their limit highlighted.
//
// Built to stay smooth at 100 000 rows refreshed every second: the rows are a flat copy of the
// monitor's (KeyRow), sorted here with plain comparisons of their numbers, not through
// QVariant. HotKeysFilter, the QSortFilterProxyModel in front, filters by text and route and
// hands sorting back to this model: a proxy sorting 100 000 rows through data() every second
// would take the GUI thread far past its 50 ms.
#include "model/monitor/quotamonitor.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

namespace qs {

class HotKeysModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Key, Route, Remaining, Limit, Used, ResetIn, Ttl, LastChange, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;

    // A refresh's rows in display order, made off the GUI thread (prepare() is a pure function):
    // sorting 100 000 rows is the largest piece of a refresh.
    struct Prepared {
        std::vector<KeyRow> rows; // sorted
        std::vector<QByteArray> keys; // the same keys in the monitor's order
        qint64 serverNowUs = 0;
        int column = Used;
        Qt::SortOrder order = Qt::DescendingOrder;
    };
    static Prepared prepare(
        std::vector<KeyRow> rows, qint64 serverNowUs, int column, Qt::SortOrder order);

    // The routes rows name by index; `shadow[i]`: route i is in shadow mode (counted, never
    // enforced), so its keys over the limit "would be throttled", not are.
    void setRoutes(const QStringList &routes, const QList<bool> &shadow = {});
    const QStringList &routes() const { return m_routes; }
    int sortColumn() const { return m_sortColumn; }
    Qt::SortOrder sortOrder() const { return m_order; }
    // A refresh: the monitor's rows as of `serverNowUs`. Rows keep their keys' places when the
    // set of keys is the same (selection and scrolling stay), else the model is reset.
    void update(std::vector<KeyRow> rows, qint64 serverNowUs);
    // The same with rows prepared elsewhere (sorted again here if the sort changed meanwhile).
    void apply(Prepared prepared);
    void clear();

    const KeyRow &row(int r) const { return m_rows[size_t(r)]; }
    int rowOf(const QByteArray &key) const; // -1: not shown
    static double usedShare(const KeyRow &r); // 0..1 (more for a key over its limit)

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    void sort(int column, Qt::SortOrder order) override;

private:
    static void sortRows(std::vector<KeyRow> &rows, int column, Qt::SortOrder order);
    void reorder(std::vector<KeyRow> sorted); // same keys, new order: a layout change
    QString text(const KeyRow &r, int column) const;

    QStringList m_routes;
    QList<bool> m_shadow;
    std::vector<KeyRow> m_rows; // in display order
    std::vector<QByteArray> m_lastKeys; // the last refresh's keys in the monitor's order
    qint64 m_nowUs = 0;
    int m_sortColumn = Used;
    Qt::SortOrder m_order = Qt::DescendingOrder;
};

class HotKeysFilter : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit HotKeysFilter(HotKeysModel *source, QObject *parent = nullptr);
    void setText(const QString &text); // part of the key, any case
    void setRoute(int route); // -1: every route
    void sort(int column, Qt::SortOrder order) override; // the source model sorts

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    HotKeysModel *m_source;
    QByteArray m_text; // lower case
    int m_route = -1;
};

} // namespace qs
