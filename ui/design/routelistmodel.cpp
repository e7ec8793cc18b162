#include "ui/design/routelistmodel.h"

#include "ui/common/icons.h"
#include "ui/document/policydocument.h"

namespace qs {

RouteListModel::RouteListModel(PolicyDocument *doc, QObject *parent)
    : QAbstractListModel(parent), m_doc(doc)
{
    const auto resetAll = [this] {
        beginResetModel();
        endResetModel();
    };
    connect(doc, &PolicyDocument::reset, this, resetAll);
    connect(doc, &PolicyDocument::routesChanged, this, resetAll);
    connect(doc, &PolicyDocument::routeChanged, this,
        [this](qsizetype row) { emit dataChanged(index(int(row)), index(int(row))); });
    // Validation of one route can change another's icon (a duplicate id, an overlap).
    connect(doc, &PolicyDocument::diagnosticsChanged, this, [this] {
        if (rowCount() > 0)
            emit dataChanged(
                index(0), index(rowCount() - 1), {Qt::DecorationRole, Qt::ToolTipRole});
    });
}

int RouteListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_doc->policy().routes.size());
}

QVariant RouteListModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Route &r = m_doc->policy().routes[index.row()];
    const QString methods = r.methods.isEmpty() ? tr("ANY") : r.methods.join(QLatin1Char(','));
    switch (role) {
    case Qt::DisplayRole:
        return QStringLiteral("%1\n%2 %3").arg(r.id, methods, r.path);
    case RouteIdRole:
        return r.id;
    case SearchTextRole: {
        // Every limit's name and algorithm: filtering by `daily` or `gcra` finds the route.
        QStringList words{r.id, r.path, methods, r.description};
        for (const RouteLimit &l : r.limits)
            words << l.name << QString::fromLatin1(limiter::algorithmName(l.spec.algorithm).data());
        return words.join(QLatin1Char(' '));
    }
    case Qt::DecorationRole: {
        const Diagnostics d = m_doc->diagnosticsOfRoute(index.row());
        if (hasErrors(d))
            return icon(QStringLiteral("error"));
        if (!d.isEmpty())
            return icon(QStringLiteral("warning"));
        return icon(QStringLiteral("route"));
    }
    case Qt::ToolTipRole: {
        QStringList lines;
        if (!r.description.isEmpty())
            lines << r.description;
        for (const RouteLimit &l : r.limits)
            lines << (r.hasSeveralLimits()
                    ? tr("%1: %2").arg(l.name, algorithmDisplayName(l.spec.algorithm))
                    : algorithmDisplayName(l.spec.algorithm));
        for (const Diagnostic &d : m_doc->diagnosticsOfRoute(index.row()))
            lines << d.message;
        return lines.join(QLatin1Char('\n'));
    }
    default:
        return {};
    }
}

} // namespace qs
