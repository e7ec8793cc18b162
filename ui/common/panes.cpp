#include "ui/common/panes.h"

#include <QHBoxLayout>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

namespace qs {

QSplitter *splitPanes(Qt::Orientation orientation, const QString &name, const QList<Pane> &panes)
{
    auto *split = new QSplitter(orientation);
    split->setObjectName(name);
    QList<int> sizes;
    for (const Pane &p : panes) {
        split->addWidget(p.widget);
        split->setStretchFactor(split->count() - 1, p.stretch);
        sizes << p.size;
    }
    split->setSizes(sizes);
    return split;
}

QWidget *settingsOverTable(QWidget *settings, QWidget *table, const QList<QPushButton *> &buttons)
{
    auto *column = new QWidget;
    auto *layout = new QVBoxLayout(column);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(settings);
    layout->addWidget(table, 1);
    auto *row = new QHBoxLayout;
    for (QPushButton *b : buttons)
        row->addWidget(b);
    layout->addLayout(row);
    return column;
}

void fillPage(QWidget *page, QWidget *content)
{
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(content);
}

} // namespace qs
