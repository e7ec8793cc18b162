#pragma once
// The limits of a route, as a row above the limit's fields: which limit the fields edit, its
// name, and buttons to add, duplicate, remove and reorder limits. It only shows and asks; the
// route editor makes each change an undo step.
#include <QList>
#include <QStringList>
#include <QWidget>

class QAction;
class QComboBox;
class QLineEdit;
class QToolButton;

namespace qs {

class LimitListBar : public QWidget {
    Q_OBJECT
public:
    explicit LimitListBar(QWidget *parent = nullptr);

    // The route's limit names and the one the fields edit; `named`: the route writes a list
    // (`limits:`), so its limits have names to edit.
    void show(const QStringList &names, int current, bool named);
    int current() const;

    QComboBox *picker() const { return m_picker; }
    // Add, duplicate, remove, up, down: for the editor to add to itself (their shortcuts).
    const QList<QAction *> &keyActions() const { return m_actions; }
    QLineEdit *nameEdit() const { return m_name; }

signals:
    void picked(int index);
    void renamed(const QString &name);
    void addRequested();
    void duplicateRequested();
    void removeRequested();
    void moveRequested(int by); // -1 up, +1 down

private:
    QToolButton *button(const QString &iconName, const QString &tip, const QKeySequence &keys);

    QComboBox *m_picker = nullptr;
    QLineEdit *m_name = nullptr;
    QList<QAction *> m_actions;
    QToolButton *m_add = nullptr, *m_duplicate = nullptr, *m_remove = nullptr, *m_up = nullptr,
                *m_down = nullptr;
};

} // namespace qs
