#include "ui/design/diagnosticsview.h"

#include "model/export/exporter.h"
#include "ui/common/icons.h"
#include "ui/document/policydocument.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QStackedWidget>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <map>

namespace qs {

namespace {

enum Severity { AnySeverity, ErrorsOnly, WarningsOnly };

} // namespace

DiagnosticsView::DiagnosticsView(PolicyDocument *doc, QWidget *parent)
    : QWidget(parent), m_doc(doc), m_severity(new QComboBox), m_route(new QComboBox),
      m_source(new QComboBox), m_stack(new QStackedWidget), m_tree(new QTreeWidget),
      m_empty(new QLabel)
{
    auto *filters = new QHBoxLayout;
    filters->setContentsMargins(0, 0, 0, 0);
    m_severity->addItems({tr("Errors and warnings"), tr("Errors"), tr("Warnings")});
    m_severity->setToolTip(tr("Show errors, warnings or both"));
    m_route->setToolTip(tr("Show the findings about one route"));
    m_route->setMinimumContentsLength(12);
    m_route->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_source->addItem(tr("Policy"), QString());
    for (const Exporter *e : exporters())
        m_source->addItem(tr("Export to %1").arg(e->displayName()), e->id());
    m_source->setToolTip(tr("The policy's own findings, or what exporting to one gateway would "
                            "report (where the gateway cannot express the design exactly)"));
    for (QComboBox *box : {m_severity, m_route, m_source})
        filters->addWidget(box);
    filters->addStretch(1);

    m_tree->setColumnCount(3);
    m_tree->setHeaderLabels({tr("Line"), tr("Field"), tr("Message")});
    m_tree->setUniformRowHeights(false);
    m_tree->setWordWrap(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_tree->header()->setStretchLastSection(true);
    m_tree->setToolTip(tr("Double-click or press Enter to jump to the field."));
    m_tree->setAccessibleName(tr("Diagnostics"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_stack->addWidget(m_tree);
    m_stack->addWidget(m_empty);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(filters);
    layout->addWidget(m_stack, 1);

    connect(doc, &PolicyDocument::diagnosticsChanged, this, &DiagnosticsView::refresh);
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        const QVariant route = item->data(0, Qt::UserRole);
        if (route.isValid())
            emit fieldRequested(route.toLongLong(), item->data(1, Qt::UserRole).toString());
    });
    connect(m_severity, &QComboBox::currentIndexChanged, this, &DiagnosticsView::show);
    connect(m_route, &QComboBox::currentIndexChanged, this, &DiagnosticsView::show);
    connect(m_source, &QComboBox::currentIndexChanged, this, &DiagnosticsView::runSource);
    connect(&m_watcher, &QFutureWatcher<Diagnostics>::finished, this, [this] {
        if (m_watcher.property("generation").toInt() != m_generation)
            return; // a newer policy or source is on its way
        m_gateway = m_watcher.result();
        show();
    });
    refresh();
}

void DiagnosticsView::refresh()
{
    // The route filter follows the route list; the chosen route stays chosen by id.
    const QString chosen = m_route->currentData().toString();
    {
        const QSignalBlocker block(m_route);
        m_route->clear();
        m_route->addItem(tr("All routes"), QString());
        for (const Route &r : m_doc->policy().routes)
            m_route->addItem(r.id, r.id);
        m_route->setCurrentIndex(std::max(0, m_route->findData(chosen)));
    }
    runSource();
}

void DiagnosticsView::runSource()
{
    ++m_generation;
    const QString target = m_source->currentData().toString();
    if (target.isEmpty()) {
        show();
        return;
    }
    m_empty->setText(tr("Checking the export to %1…").arg(m_source->currentText()));
    m_stack->setCurrentWidget(m_empty);
    m_watcher.setProperty("generation", m_generation);
    const QString file = m_doc->displayName();
    m_watcher.setFuture(QtConcurrent::run([policy = m_doc->policy(), target, file] {
        Diagnostics out = exporterById(target)->exportPolicy(policy).diagnostics;
        for (Diagnostic &d : out)
            d.file = file;
        return out;
    }));
}

Diagnostics DiagnosticsView::current() const
{
    return m_source->currentData().toString().isEmpty() ? m_doc->diagnostics() : m_gateway;
}

void DiagnosticsView::show()
{
    const QString routeId = m_route->currentData().toString();
    const int routeIndex = m_route->currentIndex() - 1;
    const auto severity = Severity(m_severity->currentIndex());
    // Groups of identical findings, errors first, in order of first appearance.
    std::map<std::pair<int, QString>, Diagnostics> groups;
    std::vector<std::pair<int, QString>> order;
    for (const Diagnostic &d : current()) {
        const bool error = d.severity == Diagnostic::Severity::Error;
        if ((severity == ErrorsOnly && !error) || (severity == WarningsOnly && error))
            continue;
        if (!routeId.isEmpty() && d.route != routeIndex)
            continue;
        const std::pair<int, QString> key{error ? 0 : 1, d.kind()};
        if (!groups.count(key))
            order.push_back(key);
        groups[key].append(d);
    }
    std::stable_sort(
        order.begin(), order.end(), [](const auto &a, const auto &b) { return a.first < b.first; });

    m_tree->clear();
    const auto fill = [&](QTreeWidgetItem *item, const Diagnostic &d) {
        const bool error = d.severity == Diagnostic::Severity::Error;
        item->setIcon(0, icon(error ? QStringLiteral("error") : QStringLiteral("warning")));
        item->setText(0, d.line > 0 ? QString::number(d.line) : QString());
        item->setText(1, d.path);
        item->setData(0, Qt::UserRole, QVariant::fromValue(qlonglong(d.route)));
        item->setData(1, Qt::UserRole, d.fieldInRoute());
        item->setText(2, d.message);
        item->setToolTip(2, d.toString());
        item->setData(0, Qt::AccessibleTextRole, error ? tr("error") : tr("warning"));
    };
    for (const auto &key : order) {
        const Diagnostics &members = groups[key];
        auto *item = new QTreeWidgetItem(m_tree);
        if (members.size() == 1) {
            fill(item, members.front());
            continue;
        }
        fill(item, members.front());
        item->setText(0, QString());
        item->setText(1, tr("%n routes", nullptr, int(members.size())));
        item->setData(0, Qt::UserRole, QVariant()); // a group: no one field to go to
        item->setText(2, tr("%1 routes: %2").arg(members.size()).arg(members.front().message));
        for (const Diagnostic &d : members)
            fill(new QTreeWidgetItem(item), d);
    }
    const bool none = m_tree->topLevelItemCount() == 0;
    m_empty->setText(m_source->currentData().toString().isEmpty()
            ? tr("No problems")
            : tr("No problems exporting to %1")
                  .arg(m_source->currentText().section(QLatin1Char(' '), -1)));
    m_stack->setCurrentWidget(none ? static_cast<QWidget *>(m_empty) : m_tree);
}

int DiagnosticsView::shownCount() const
{
    return m_stack->currentWidget() == m_tree ? m_tree->topLevelItemCount() : 0;
}

} // namespace qs
