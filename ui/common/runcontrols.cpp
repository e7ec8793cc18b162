#include "ui/common/runcontrols.h"

#include "ui/common/icons.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

namespace qs {

RunControls addRunControls(QFormLayout *form, const QString &runTip, const QString &cancelTip,
    const QList<QPushButton *> &extra)
{
    RunControls c;
    c.run = new QPushButton(icon(QStringLiteral("run")), QObject::tr("&Run"));
    c.run->setShortcut(QKeySequence(Qt::Key_F5));
    c.run->setToolTip(runTip + QStringLiteral(" (F5)"));
    c.cancel = new QPushButton(icon(QStringLiteral("cancel")), QObject::tr("Cancel"));
    c.cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    c.cancel->setToolTip(cancelTip + QStringLiteral(" (Esc)"));
    c.cancel->setEnabled(false);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(c.run);
    for (QPushButton *b : extra)
        buttons->addWidget(b);
    buttons->addWidget(c.cancel);
    form->addRow(buttons);
    c.progress = new QProgressBar;
    c.progress->setTextVisible(true);
    c.progress->setFormat(QStringLiteral("%p%"));
    form->addRow(QObject::tr("Progress:"), c.progress);
    c.status = new QLabel;
    c.status->setWordWrap(true);
    form->addRow(c.status);
    return c;
}

} // namespace qs
