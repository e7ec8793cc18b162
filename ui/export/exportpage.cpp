#include "ui/export/exportpage.h"

#include "ui/common/confighighlighter.h"
#include "ui/common/icons.h"
#include "ui/document/policydocument.h"

#include <QDir>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <map>

namespace qs {

namespace {

std::vector<TargetExport> exportAll(const Policy &policy, const QStringList &targets)
{
    std::vector<TargetExport> out;
    for (const QString &t : targets)
        if (const Exporter *e = exporterById(t))
            out.push_back({t, e->exportPolicy(policy)});
    return out;
}

QString routeOf(const Diagnostic &d, const Policy &policy)
{
    static const QRegularExpression index(QStringLiteral("^routes\\[(\\d+)\\]"));
    const QRegularExpressionMatch m = index.match(d.path);
    if (!m.hasMatch())
        return QObject::tr("(policy)");
    const qsizetype i = m.captured(1).toLongLong();
    return i < policy.routes.size() ? policy.routes[i].id : d.path;
}

} // namespace

ExportPage::ExportPage(PolicyDocument *doc, QWidget *parent)
    : QWidget(parent), m_doc(doc), m_targets(new QListWidget), m_previews(new QTabWidget),
      m_warnings(new QTreeWidget), m_status(new QLabel), m_save(new QPushButton),
      m_debounce(new QTimer(this))
{
    for (const Exporter *e : exporters()) {
        auto *item = new QListWidgetItem(e->displayName(), m_targets);
        item->setData(Qt::UserRole, e->id());
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(e->id() == QLatin1String("nginx") ? Qt::Checked : Qt::Unchecked);
        item->setToolTip(tr("Files: %1").arg(e->suggestedFileNames().join(QStringLiteral(", "))));
    }
    m_targets->setAccessibleName(tr("Export targets"));
    m_targets->setToolTip(tr("Check the gateways to export for (Space toggles)."));
    m_save->setText(tr("&Save to folder…"));
    m_save->setIcon(icon(QStringLiteral("export")));
    m_save->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_save->setToolTip(tr("Write the checked targets' files, one folder per target (Ctrl+E)"));
    m_status->setWordWrap(true);

    auto *left = new QWidget;
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(new QLabel(tr("Gateways:")));
    leftLayout->addWidget(m_targets, 1);
    leftLayout->addWidget(m_save);
    leftLayout->addWidget(m_status);

    m_previews->setDocumentMode(true);
    m_warnings->setColumnCount(2);
    m_warnings->setHeaderLabels({tr("Route / gateway"), tr("What changes")});
    m_warnings->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_warnings->header()->setStretchLastSection(true);
    m_warnings->setWordWrap(true);
    m_warnings->setAlternatingRowColors(true);
    m_warnings->setAccessibleName(tr("Export warnings per route"));

    m_rows = new QSplitter(Qt::Vertical);
    m_rows->setObjectName(QStringLiteral("exportRows"));
    m_rows->addWidget(m_previews);
    m_rows->addWidget(m_warnings);
    m_rows->setStretchFactor(0, 3);
    m_rows->setStretchFactor(1, 1);
    m_rows->setSizes({7000, 3000}); // proportions: previews get most of the height
    m_columns = new QSplitter(Qt::Horizontal);
    m_columns->setObjectName(QStringLiteral("exportColumns"));
    m_columns->addWidget(left);
    m_columns->addWidget(m_rows);
    m_columns->setStretchFactor(0, 1);
    m_columns->setStretchFactor(1, 5);
    m_columns->setSizes({2000, 8000});
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_columns);

    m_debounce->setSingleShot(true);
    m_debounce->setInterval(150); // typing in the editor re-exports once it pauses
    connect(m_debounce, &QTimer::timeout, this, &ExportPage::refreshNow);
    connect(m_targets, &QListWidget::itemChanged, this, &ExportPage::scheduleRefresh);
    connect(doc, &PolicyDocument::reset, this, &ExportPage::scheduleRefresh);
    connect(doc, &PolicyDocument::routesChanged, this, &ExportPage::scheduleRefresh);
    connect(doc, &PolicyDocument::routeChanged, this, &ExportPage::scheduleRefresh);
    connect(doc, &PolicyDocument::policyFieldsChanged, this, &ExportPage::scheduleRefresh);
    connect(&m_watcher, &QFutureWatcher<std::vector<TargetExport>>::finished, this,
        &ExportPage::onFinished);
    connect(m_save, &QPushButton::clicked, this, &ExportPage::chooseFolderAndSave);
    scheduleRefresh();
}

ExportPage::~ExportPage()
{
    m_watcher.waitForFinished();
}

QList<QSplitter *> ExportPage::splitters() const
{
    return {m_columns, m_rows};
}

void ExportPage::setTargetChecked(const QString &id, bool checked)
{
    for (int i = 0; i < m_targets->count(); ++i)
        if (m_targets->item(i)->data(Qt::UserRole).toString() == id)
            m_targets->item(i)->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
}

QStringList ExportPage::checkedTargets() const
{
    QStringList out;
    for (int i = 0; i < m_targets->count(); ++i)
        if (m_targets->item(i)->checkState() == Qt::Checked)
            out << m_targets->item(i)->data(Qt::UserRole).toString();
    return out;
}

void ExportPage::scheduleRefresh()
{
    m_debounce->start();
}

void ExportPage::refreshNow()
{
    m_debounce->stop();
    if (m_watcher.isRunning()) {
        m_again = true;
        return;
    }
    m_status->setText(tr("Exporting…"));
    m_watcher.setFuture(QtConcurrent::run(exportAll, m_doc->policy(), checkedTargets()));
}

void ExportPage::onFinished()
{
    if (m_again) { // what finished is already stale
        m_again = false;
        refreshNow();
        return;
    }
    m_last = m_watcher.result();
    const QString current = m_previews->currentIndex() >= 0
        ? m_previews->tabText(m_previews->currentIndex())
        : QString();
    while (m_previews->count() > 0) {
        QWidget *w = m_previews->widget(0);
        m_previews->removeTab(0);
        delete w;
    }
    m_warnings->clear();
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    std::map<QString, QTreeWidgetItem *> routes;
    int warnings = 0, errors = 0;
    for (const TargetExport &t : m_last) {
        for (const ExportedFile &f : t.result.files) {
            auto *view = new QPlainTextEdit;
            view->setReadOnly(true);
            view->setLineWrapMode(QPlainTextEdit::NoWrap);
            view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
            view->setPlainText(QString::fromUtf8(f.content));
            new ConfigHighlighter(
                view->document(), ConfigHighlighter::languageForFile(f.name), dark);
            const QString label = QStringLiteral("%1/%2").arg(t.target, f.name);
            m_previews->addTab(view, label);
            view->setAccessibleName(label);
        }
        for (const Diagnostic &d : t.result.diagnostics) {
            const bool error = d.severity == Diagnostic::Severity::Error;
            (error ? errors : warnings)++;
            const QString route = routeOf(d, m_doc->policy());
            QTreeWidgetItem *&parent = routes[route];
            if (!parent) {
                parent = new QTreeWidgetItem(m_warnings, {route});
                parent->setIcon(0, icon(QStringLiteral("route")));
                parent->setExpanded(true);
            }
            auto *item = new QTreeWidgetItem(parent,
                {t.target,
                    QString(d.message).remove(
                        QRegularExpression(QStringLiteral("^\\[[a-z-]+\\] route '[^']*': ")))});
            item->setIcon(0, icon(error ? QStringLiteral("error") : QStringLiteral("warning")));
            item->setToolTip(1, d.toString());
        }
    }
    for (int i = 0; i < m_previews->count(); ++i)
        if (m_previews->tabText(i) == current)
            m_previews->setCurrentIndex(i);
    m_status->setText(errors
            ? tr("%1 error(s): fix them to get the files of those gateways; %2 warning(s).")
                  .arg(errors)
                  .arg(warnings)
            : tr("%1 file(s), %2 warning(s).").arg(m_previews->count()).arg(warnings));
    m_save->setEnabled(m_previews->count() > 0);
    emit finished();
}

QString ExportPage::saveTo(const QString &dir)
{
    for (const TargetExport &t : m_last) {
        if (hasErrors(t.result.diagnostics))
            continue;
        const QString folder = QDir(dir).filePath(t.target);
        if (!QDir().mkpath(folder))
            return tr("cannot create %1").arg(folder);
        for (const ExportedFile &f : t.result.files) {
            QSaveFile file(QDir(folder).filePath(f.name));
            if (!file.open(QIODevice::WriteOnly) || file.write(f.content) != f.content.size()
                || !file.commit())
                return tr("cannot write %1: %2").arg(file.fileName(), file.errorString());
        }
    }
    return {};
}

void ExportPage::chooseFolderAndSave()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export to folder"));
    if (dir.isEmpty())
        return;
    const QString problem = saveTo(dir);
    if (!problem.isEmpty())
        QMessageBox::warning(this, tr("Export"), problem);
    else
        m_status->setText(
            tr("Saved to %1 (one folder per gateway).").arg(QDir::toNativeSeparators(dir)));
}

} // namespace qs
