#pragma once
// Every finding about the policy, errors first; activating one (double-click, Enter) asks for
// the field it is about.
#include <QTreeWidget>

namespace qs {

class PolicyDocument;

class DiagnosticsView : public QTreeWidget {
    Q_OBJECT
public:
    explicit DiagnosticsView(PolicyDocument *doc, QWidget *parent = nullptr);

signals:
    void fieldRequested(const QString &path); // e.g. routes[2].limit.capacity

private:
    void refresh();
    PolicyDocument *m_doc;
};

} // namespace qs
