#pragma once
// Every finding about the policy, errors first, filtered by severity, route and source (the
// policy itself, or what exporting to one gateway would report), identical findings grouped
// ("334 routes: …"), and a plain "No problems" when there are none. Activating a finding
// (double-click, Enter) asks for the field it is about.
#include "model/policy/diagnostic.h"

#include <QFutureWatcher>
#include <QWidget>

class QComboBox;
class QLabel;
class QStackedWidget;
class QTreeWidget;

namespace qs {

class PolicyDocument;

class DiagnosticsView : public QWidget {
    Q_OBJECT
public:
    explicit DiagnosticsView(PolicyDocument *doc, QWidget *parent = nullptr);

    QTreeWidget *tree() const { return m_tree; }
    QComboBox *severityFilter() const { return m_severity; }
    QComboBox *routeFilter() const { return m_route; }
    QComboBox *sourceFilter() const { return m_source; }
    // The rows shown now (groups count once), for tests and the tab title.
    int shownCount() const;

signals:
    void fieldRequested(qsizetype route, const QString &fieldInRoute); // 2, "limit.capacity"

private:
    void refresh(); // the document changed: new findings, new route list
    void runSource(); // the chosen gateway's findings, computed off the GUI thread
    void show(); // the findings through the filters into the tree
    Diagnostics current() const;

    PolicyDocument *m_doc;
    QComboBox *m_severity, *m_route, *m_source;
    QStackedWidget *m_stack;
    QTreeWidget *m_tree;
    QLabel *m_empty;
    Diagnostics m_gateway; // the chosen gateway's findings
    QFutureWatcher<Diagnostics> m_watcher;
    int m_generation = 0;
};

} // namespace qs
