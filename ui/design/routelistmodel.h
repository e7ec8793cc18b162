#pragma once
// The document's routes as a list for a QListView: "id  METHODS /path", an error or warning
// icon when validation has something to say about the route, its description as tooltip.
#include <QAbstractListModel>

namespace qs {

class PolicyDocument;

class RouteListModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role { RouteIdRole = Qt::UserRole + 1, SearchTextRole };
    explicit RouteListModel(PolicyDocument *doc, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role) const override;

private:
    PolicyDocument *m_doc;
};

} // namespace qs
