#include "ui/common/placeholderpage.h"

#include <QLabel>
#include <QVBoxLayout>

namespace qs {

PlaceholderPage::PlaceholderPage(const QString &title, const QString &explanation, QWidget *parent)
    : QWidget(parent)
{
    auto *heading = new QLabel(title, this);
    QFont font = heading->font();
    font.setPointSizeF(font.pointSizeF() * 1.6);
    font.setBold(true);
    heading->setFont(font);
    heading->setAlignment(Qt::AlignCenter);

    auto *body = new QLabel(explanation, this);
    body->setWordWrap(true);
    body->setAlignment(Qt::AlignCenter);

    // A fixed-width column: a word-wrapped label given only an alignment in a layout gets a
    // too-narrow width and clips its second line.
    auto *column = new QWidget(this);
    column->setFixedWidth(560);
    auto *columnLayout = new QVBoxLayout(column);
    columnLayout->addWidget(heading);
    columnLayout->addWidget(body);

    auto *row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(column);
    row->addStretch(1);

    auto *layout = new QVBoxLayout(this);
    layout->addStretch(1);
    layout->addLayout(row);
    layout->addStretch(2);
}

} // namespace qs
