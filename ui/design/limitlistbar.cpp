#include "ui/design/limitlistbar.h"

#include "ui/common/icons.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QToolButton>

namespace qs {

LimitListBar::LimitListBar(QWidget *parent) : QWidget(parent)
{
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    m_picker = new QComboBox;
    m_picker->setObjectName(QStringLiteral("limitPicker"));
    m_picker->setToolTip(tr("The limit the fields below edit. A request is admitted only if "
                            "every enforced limit of its route admits it."));
    m_name = new QLineEdit;
    m_name->setObjectName(QStringLiteral("limitName"));
    m_name->setPlaceholderText(tr("name, e.g. burst"));
    m_name->setToolTip(tr("1-32 letters, digits, '_', '.' or '-': the name in RateLimit "
                          "headers, zone and table names, and the Monitor"));
    row->addWidget(m_picker, 2);
    row->addWidget(m_name, 2);
    m_add
        = button(QStringLiteral("add"), tr("Add a limit (a daily quota beside a burst limit, say)"),
            QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_N));
    m_duplicate = button(QStringLiteral("duplicate"), tr("Duplicate this limit"),
        QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_D));
    m_remove = button(QStringLiteral("delete"), tr("Remove this limit"),
        QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Delete));
    m_up = button(QStringLiteral("up"), tr("Move this limit up"),
        QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Up));
    m_down = button(QStringLiteral("down"), tr("Move this limit down"),
        QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Down));
    for (QToolButton *b : {m_add, m_duplicate, m_remove, m_up, m_down})
        row->addWidget(b);
    m_add->setObjectName(QStringLiteral("addLimit"));
    m_duplicate->setObjectName(QStringLiteral("duplicateLimit"));
    m_remove->setObjectName(QStringLiteral("removeLimit"));
    m_up->setObjectName(QStringLiteral("limitUp"));
    m_down->setObjectName(QStringLiteral("limitDown"));

    connect(m_picker, &QComboBox::currentIndexChanged, this, &LimitListBar::picked);
    connect(m_name, &QLineEdit::textEdited, this, &LimitListBar::renamed);
    connect(m_add->defaultAction(), &QAction::triggered, this, &LimitListBar::addRequested);
    connect(
        m_duplicate->defaultAction(), &QAction::triggered, this, &LimitListBar::duplicateRequested);
    connect(m_remove->defaultAction(), &QAction::triggered, this, &LimitListBar::removeRequested);
    connect(m_up->defaultAction(), &QAction::triggered, this, [this] { emit moveRequested(-1); });
    connect(m_down->defaultAction(), &QAction::triggered, this, [this] { emit moveRequested(+1); });
}

// A button for an action whose shortcut works wherever the focus is in the route editor (the
// editor adds keyActions() to itself), not only on the bar.
QToolButton *LimitListBar::button(
    const QString &iconName, const QString &tip, const QKeySequence &keys)
{
    auto *a = new QAction(icon(iconName), tip, this);
    a->setShortcut(keys);
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    a->setToolTip(QStringLiteral("%1 (%2)").arg(tip, keys.toString(QKeySequence::NativeText)));
    m_actions.append(a);
    auto *b = new QToolButton;
    b->setDefaultAction(a);
    b->setAccessibleName(tip);
    return b;
}

void LimitListBar::show(const QStringList &names, int current, bool named)
{
    {
        const QSignalBlocker block(m_picker);
        QStringList shown;
        for (int i = 0; i < m_picker->count(); ++i)
            shown << m_picker->itemText(i);
        if (shown != names) {
            m_picker->clear();
            m_picker->addItems(names);
        }
        m_picker->setCurrentIndex(current);
    }
    m_picker->setEnabled(names.size() > 1);
    if (m_name->text() != names.value(current)) // unchanged text keeps the cursor
        m_name->setText(names.value(current));
    m_name->setEnabled(named);
    m_remove->defaultAction()->setEnabled(names.size() > 1);
    m_up->defaultAction()->setEnabled(current > 0);
    m_down->defaultAction()->setEnabled(current + 1 < names.size());
}

int LimitListBar::current() const
{
    return m_picker->currentIndex();
}

} // namespace qs
