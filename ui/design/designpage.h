#pragma once
// Design: the route list (add, duplicate, delete, reorder, filter), the route editor, the
// algorithm explanation with its live preview, and below them the policy's diagnostics and
// the test console.
#include <QWidget>

class QLineEdit;
class QListView;
class QSortFilterProxyModel;
class QSplitter;
class QTabWidget;
class QAction;

namespace qs {

class AlgorithmPanel;
class DiagnosticsView;
class PolicyDocument;
class RouteEditor;
class RouteListModel;
class TestConsole;

class DesignPage : public QWidget {
    Q_OBJECT
public:
    explicit DesignPage(PolicyDocument *doc, QWidget *parent = nullptr);

    RouteEditor *editor() const { return m_editor; }
    TestConsole *console() const { return m_console; }
    DiagnosticsView *diagnostics() const { return m_diagnostics; }
    QListView *routeList() const { return m_list; }
    AlgorithmPanel *algorithmPanel() const { return m_panel; }
    QTabWidget *bottomTabs() const { return m_bottom; }
    QList<QSplitter *> splitters() const;
    QList<QAction *> routeActions() const;

    void selectRoute(qsizetype index);
    // From a diagnostic: select its route, focus the field ("limit.capacity").
    void showField(qsizetype route, const QString &fieldInRoute);

private:
    void addRoute();
    void duplicateRoute();
    void deleteRoute();
    void moveRoute(int delta);
    void onCurrentChanged();
    void refreshPanel();
    qsizetype currentRoute() const;

    PolicyDocument *m_doc;
    RouteListModel *m_model;
    QSortFilterProxyModel *m_filter;
    QLineEdit *m_filterEdit;
    QLineEdit *m_policyName;
    QListView *m_list;
    RouteEditor *m_editor;
    AlgorithmPanel *m_panel;
    DiagnosticsView *m_diagnostics;
    TestConsole *m_console;
    QTabWidget *m_bottom;
    QSplitter *m_columns, *m_rows;
    QAction *m_add, *m_duplicate, *m_delete, *m_up, *m_down;
    qsizetype m_selectAfterChange = -1;
};

} // namespace qs
