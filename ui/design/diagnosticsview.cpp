#include "ui/design/diagnosticsview.h"

#include "ui/common/icons.h"
#include "ui/document/policydocument.h"

#include <QHeaderView>

namespace qs {

DiagnosticsView::DiagnosticsView(PolicyDocument *doc, QWidget *parent)
    : QTreeWidget(parent), m_doc(doc)
{
    setColumnCount(3);
    setHeaderLabels({tr("Line"), tr("Field"), tr("Message")});
    setRootIsDecorated(false);
    setUniformRowHeights(false);
    setWordWrap(true);
    setAlternatingRowColors(true);
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    header()->setStretchLastSection(true);
    setToolTip(tr("Double-click or press Enter to jump to the field."));
    connect(doc, &PolicyDocument::diagnosticsChanged, this, &DiagnosticsView::refresh);
    connect(this, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        emit fieldRequested(item->data(1, Qt::UserRole).toString());
    });
    refresh();
}

void DiagnosticsView::refresh()
{
    clear();
    for (const Diagnostic &d : m_doc->diagnostics()) {
        auto *item = new QTreeWidgetItem(this);
        const bool error = d.severity == Diagnostic::Severity::Error;
        item->setIcon(0, icon(error ? QStringLiteral("error") : QStringLiteral("warning")));
        item->setText(0, d.line > 0 ? QString::number(d.line) : QString());
        item->setText(1, d.path);
        item->setData(1, Qt::UserRole, d.path);
        item->setText(2, d.message);
        item->setToolTip(2, d.toString());
        item->setData(0, Qt::AccessibleTextRole, error ? tr("error") : tr("warning"));
    }
}

} // namespace qs
