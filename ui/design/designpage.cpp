#include "ui/design/designpage.h"

#include "model/policy/limitconversion.h"
#include "ui/common/icons.h"
#include "ui/common/panes.h"
#include "ui/design/algorithmpanel.h"
#include "ui/design/diagnosticsview.h"
#include "ui/design/routeeditor.h"
#include "ui/design/routelistmodel.h"
#include "ui/design/testconsole.h"
#include "ui/document/policydocument.h"

#include <QAction>
#include <QApplication>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

namespace qs {

DesignPage::DesignPage(PolicyDocument *doc, QWidget *parent)
    : QWidget(parent), m_doc(doc), m_model(new RouteListModel(doc, this)),
      m_filter(new QSortFilterProxyModel(this))
{
    // Left: policy name, filter, route list and its actions.
    auto *left = new QWidget;
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    auto *nameForm = new QFormLayout;
    m_policyName = new QLineEdit;
    m_policyName->setToolTip(tr("The policy's name: shown in exports, the Envoy domain and the "
                                "RateLimit-Policy header."));
    nameForm->addRow(tr("Polic&y:"), m_policyName);
    leftLayout->addLayout(nameForm);
    m_filterEdit = new QLineEdit;
    m_filterEdit->setObjectName(QStringLiteral("routeFilter"));
    m_filterEdit->setPlaceholderText(tr("Filter routes (Ctrl+F)"));
    m_filterEdit->setClearButtonEnabled(true);
    m_filterEdit->addAction(icon(QStringLiteral("filter")), QLineEdit::LeadingPosition);
    leftLayout->addWidget(m_filterEdit);
    m_filter->setSourceModel(m_model);
    m_filter->setFilterRole(RouteListModel::SearchTextRole);
    m_filter->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_list = new QListView;
    m_list->setModel(m_filter);
    m_list->setAlternatingRowColors(true);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setAccessibleName(tr("Routes"));
    leftLayout->addWidget(m_list, 1);
    auto *tools = new QToolBar;
    tools->setIconSize(QSize(18, 18));
    const auto action = [&](const char *iconName, const QString &text, const QKeySequence &keys,
                            const QString &tip) {
        auto *a = new QAction(icon(QString::fromLatin1(iconName)), text, this);
        a->setShortcut(keys);
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        a->setToolTip(QStringLiteral("%1 (%2)").arg(tip, keys.toString(QKeySequence::NativeText)));
        tools->addAction(a);
        m_list->addAction(a);
        return a;
    };
    m_add = action(
        "add", tr("&Add route"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A), tr("Add a route"));
    m_duplicate = action("duplicate", tr("D&uplicate route"),
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), tr("Duplicate the selected route"));
    m_delete = action("delete", tr("De&lete route"), QKeySequence(Qt::Key_Delete),
        tr("Delete the selected route"));
    m_up = action("up", tr("Move &up"), QKeySequence(Qt::ALT | Qt::Key_Up),
        tr("Move up (order only breaks ties between equally specific routes)"));
    m_down
        = action("down", tr("Move do&wn"), QKeySequence(Qt::ALT | Qt::Key_Down), tr("Move down"));
    m_add->setShortcutContext(Qt::WindowShortcut);
    leftLayout->addWidget(tools);
    auto *findAction = new QAction(this);
    findAction->setShortcut(QKeySequence::Find);
    connect(findAction, &QAction::triggered, m_filterEdit, [this] { m_filterEdit->setFocus(); });
    addAction(findAction);

    // Centre: the editor, scrollable at small sizes.
    m_editor = new RouteEditor(doc);
    auto *scroll = new QScrollArea;
    scroll->setWidget(m_editor);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    // A field reached by its mnemonic (Alt+B to the plan table) or by Tab comes into view: the
    // scroll area itself follows Tab only.
    connect(qApp, &QApplication::focusChanged, scroll, [scroll, this](QWidget *, QWidget *now) {
        if (now && m_editor->isAncestorOf(now))
            scroll->ensureWidgetVisible(now, 20, 20);
    });

    m_panel = new AlgorithmPanel;
    auto *panelScroll = new QScrollArea;
    panelScroll->setWidget(m_panel);
    panelScroll->setWidgetResizable(true);
    panelScroll->setFrameShape(QFrame::NoFrame);

    m_columns = splitPanes(Qt::Horizontal, QStringLiteral("designColumns"),
        {{left, 2, 2600}, {scroll, 5, 5600}, {panelScroll, 3, 3800}});

    m_diagnostics = new DiagnosticsView(doc);
    m_console = new TestConsole(doc);
    m_bottom = new QTabWidget;
    m_bottom->addTab(m_diagnostics, icon(QStringLiteral("warning")), tr("Dia&gnostics"));
    // Scrollable, so that the splitter may make the console shorter than its form.
    auto *consoleScroll = new QScrollArea;
    consoleScroll->setWidget(m_console);
    consoleScroll->setWidgetResizable(true);
    consoleScroll->setFrameShape(QFrame::NoFrame);
    m_bottom->addTab(consoleScroll, icon(QStringLiteral("send")), tr("&Test console"));

    m_rows = splitPanes(
        Qt::Vertical, QStringLiteral("designRows"), {{m_columns, 3, 6000}, {m_bottom, 2, 4000}});
    fillPage(this, m_rows);

    connect(m_filterEdit, &QLineEdit::textChanged, m_filter,
        &QSortFilterProxyModel::setFilterFixedString);
    connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this,
        &DesignPage::onCurrentChanged);
    connect(m_add, &QAction::triggered, this, &DesignPage::addRoute);
    connect(m_duplicate, &QAction::triggered, this, &DesignPage::duplicateRoute);
    connect(m_delete, &QAction::triggered, this, &DesignPage::deleteRoute);
    connect(m_up, &QAction::triggered, this, [this] { moveRoute(-1); });
    connect(m_down, &QAction::triggered, this, [this] { moveRoute(+1); });
    connect(m_diagnostics, &DiagnosticsView::fieldRequested, this, &DesignPage::showField);
    // The tab says how bad things are without being opened.
    const auto updateTab = [this] {
        const int errors = m_doc->errorCount(), warnings = m_doc->warningCount();
        const int at = m_bottom->indexOf(m_diagnostics);
        m_bottom->setTabIcon(at,
            icon(errors        ? QStringLiteral("error")
                    : warnings ? QStringLiteral("warning")
                               : QStringLiteral("ok")));
        m_bottom->setTabText(at,
            errors || warnings
                ? tr("Dia&gnostics (%1 errors, %2 warnings)").arg(errors).arg(warnings)
                : tr("Dia&gnostics"));
    };
    connect(m_doc, &PolicyDocument::diagnosticsChanged, this, updateTab);
    updateTab();
    connect(m_policyName, &QLineEdit::textEdited, this, [this](const QString &name) {
        Policy after = m_doc->policy();
        after.name = name;
        m_doc->setPolicyField(after, tr("Rename policy"), QStringLiteral("name"));
    });
    const auto reselect = [this] {
        m_policyName->setText(m_doc->policy().name);
        const qsizetype want = m_selectAfterChange >= 0
            ? m_selectAfterChange
            : std::max<qsizetype>(0, m_editor->routeIndex());
        m_selectAfterChange = -1;
        selectRoute(std::min<qsizetype>(want, m_doc->policy().routes.size() - 1));
    };
    connect(doc, &PolicyDocument::reset, this, [this, reselect] {
        m_editor->setRouteIndex(-1);
        reselect();
    });
    connect(doc, &PolicyDocument::routesChanged, this, reselect);
    connect(doc, &PolicyDocument::policyFieldsChanged, this, [this] {
        if (m_policyName->text() != m_doc->policy().name)
            m_policyName->setText(m_doc->policy().name);
        // The route's form shows the policy's defaults and plans (its plan table): follow them.
        m_editor->reload();
    });
    connect(m_editor, &RouteEditor::limitPicked, this, &DesignPage::refreshPanel);
    connect(doc, &PolicyDocument::routeChanged, this, [this](qsizetype i) {
        if (i == m_editor->routeIndex())
            refreshPanel();
    });
    reselect();
}

QList<QSplitter *> DesignPage::splitters() const
{
    return {m_columns, m_rows};
}

QList<QAction *> DesignPage::routeActions() const
{
    return {m_add, m_duplicate, m_delete, m_up, m_down};
}

qsizetype DesignPage::currentRoute() const
{
    return m_editor->routeIndex();
}

void DesignPage::selectRoute(qsizetype index)
{
    if (index < 0) {
        m_editor->setRouteIndex(-1);
        refreshPanel();
        return;
    }
    QModelIndex proxy = m_filter->mapFromSource(m_model->index(int(index)));
    if (!proxy.isValid()) { // filtered out: show it anyway
        m_filterEdit->clear();
        proxy = m_filter->mapFromSource(m_model->index(int(index)));
    }
    m_list->setCurrentIndex(proxy);
    m_editor->setRouteIndex(index);
    refreshPanel();
}

void DesignPage::showField(qsizetype route, const QString &fieldInRoute)
{
    if (route < 0 || route >= m_doc->policy().routes.size()) {
        m_policyName->setFocus();
        return;
    }
    selectRoute(route);
    m_editor->focusField(fieldInRoute);
}

void DesignPage::onCurrentChanged()
{
    const QModelIndex source = m_filter->mapToSource(m_list->currentIndex());
    m_editor->setRouteIndex(source.isValid() ? source.row() : -1);
    const bool any = source.isValid();
    if (any) // the console opens ready to test the route in view
        m_console->showRoute(m_doc->policy().routes[source.row()]);
    for (QAction *a : {m_duplicate, m_delete, m_up, m_down})
        a->setEnabled(any);
    refreshPanel();
}

void DesignPage::refreshPanel()
{
    const qsizetype i = currentRoute();
    if (i < 0 || i >= m_doc->policy().routes.size()) {
        m_panel->setEnabled(false);
        return;
    }
    m_panel->setEnabled(true);
    // The limit the editor's fields show: the guide explains what is being edited.
    const Route &route = m_doc->policy().routes[i];
    const LimitSpec &limit
        = route.limits[std::clamp<qsizetype>(m_editor->currentLimit(), 0, route.limits.size() - 1)]
              .spec;
    const auto converted = toAlgorithmConfig(limit);
    std::optional<limiter::AlgorithmConfig> config;
    if (converted.hasValue())
        config = *converted;
    m_panel->show(limit.algorithm, config);
}

void DesignPage::addRoute()
{
    QList<Route> routes = m_doc->policy().routes;
    const qsizetype at = currentRoute() + 1;
    routes.insert(at, makeNewRoute(m_doc->policy()));
    m_selectAfterChange = at;
    m_doc->replaceRoutes(routes, tr("Add route"));
    m_editor->focusField(QStringLiteral("id"));
}

void DesignPage::duplicateRoute()
{
    const qsizetype i = currentRoute();
    if (i < 0)
        return;
    QList<Route> routes = m_doc->policy().routes;
    Route copy = routes[i];
    QString id = copy.id + QStringLiteral("-copy");
    for (int n = 2; m_doc->policy().route(id); ++n)
        id = copy.id + QStringLiteral("-copy%1").arg(n);
    copy.id = id;
    copy.origin = {}; // new text: the original keeps its own
    routes.insert(i + 1, copy);
    m_selectAfterChange = i + 1;
    m_doc->replaceRoutes(routes, tr("Duplicate route '%1'").arg(routes[i].id));
}

void DesignPage::deleteRoute()
{
    const qsizetype i = currentRoute();
    if (i < 0)
        return;
    QList<Route> routes = m_doc->policy().routes;
    const QString id = routes[i].id;
    routes.removeAt(i);
    m_selectAfterChange = std::min(i, routes.size() - 1);
    m_doc->replaceRoutes(routes, tr("Delete route '%1'").arg(id)); // Undo brings it back
}

void DesignPage::moveRoute(int delta)
{
    const qsizetype i = currentRoute();
    const qsizetype j = i + delta;
    QList<Route> routes = m_doc->policy().routes;
    if (i < 0 || j < 0 || j >= routes.size())
        return;
    routes.swapItemsAt(i, j);
    m_selectAfterChange = j;
    m_doc->replaceRoutes(routes, tr("Move route '%1'").arg(routes[j].id));
}

} // namespace qs
