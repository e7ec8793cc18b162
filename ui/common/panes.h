#pragma once
// How the workbench's pages lay out their panes: named splitters (the window saves and
// restores their state by name) and one content widget per page with the same margin.
#include <QList>
#include <QString>
#include <Qt>

class QPushButton;
class QSplitter;
class QWidget;

namespace qs {

struct Pane {
    QWidget *widget;
    int stretch; // its share of space the splitter gains or loses
    int size; // its starting proportion (QSplitter scales sizes to the room it gets)
};

QSplitter *splitPanes(Qt::Orientation orientation, const QString &name, const QList<Pane> &panes);

// A run page's left column: its settings over its result table, with a row of buttons under
// the table (Save…).
QWidget *settingsOverTable(QWidget *settings, QWidget *table, const QList<QPushButton *> &buttons);

// Makes `content` fill `page`, inside the margin every page keeps.
void fillPage(QWidget *page, QWidget *content);

} // namespace qs
