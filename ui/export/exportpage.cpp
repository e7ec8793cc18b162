#include "ui/export/exportpage.h"

#include "model/export/exportfolder.h"

#include "ui/common/confighighlighter.h"
#include "ui/common/icons.h"
#include "ui/common/panes.h"
#include "ui/document/policydocument.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSaveFile>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
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
    m_save->setToolTip(tr("Write the checked targets' files (several targets: one folder each, "
                          "as quotactl export does); asks before changing earlier files (Ctrl+E)"));
    m_status->setWordWrap(true);

    auto *left = new QWidget;
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(new QLabel(tr("Gateways:")));
    leftLayout->addWidget(m_targets, 1);
    leftLayout->addWidget(m_save);
    m_check = new QPushButton(icon(QStringLiteral("ok")), tr("Check with &gateways"));
    m_check->setToolTip(tr("Run the real gateway's own checker on the previews (nginx -t, "
                           "haproxy -c) where it is installed"));
    m_checkResult = new QLabel;
    m_checkResult->setWordWrap(true);
    m_checkResult->setTextInteractionFlags(Qt::TextSelectableByMouse);
    leftLayout->addWidget(m_check);
    leftLayout->addWidget(m_checkResult);
    leftLayout->addWidget(m_status);

    m_previews->setDocumentMode(true);
    m_warnings->setColumnCount(2);
    m_warnings->setHeaderLabels({tr("Route / gateway"), tr("What changes")});
    m_warnings->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_warnings->header()->setStretchLastSection(true);
    m_warnings->setWordWrap(true);
    m_warnings->setAlternatingRowColors(true);
    m_warnings->setAccessibleName(tr("Export warnings per route"));

    // The previews get most of the height.
    m_rows = splitPanes(
        Qt::Vertical, QStringLiteral("exportRows"), {{m_previews, 3, 7000}, {m_warnings, 1, 3000}});
    m_columns = splitPanes(
        Qt::Horizontal, QStringLiteral("exportColumns"), {{left, 1, 2000}, {m_rows, 5, 8000}});
    fillPage(this, m_columns);

    m_debounce->setSingleShot(true);
    m_debounce->setInterval(150); // typing in the editor re-exports once it pauses
    connect(m_debounce, &QTimer::timeout, this, &ExportPage::refreshNow);
    connect(m_targets, &QListWidget::itemChanged, this, &ExportPage::scheduleRefresh);
    connect(doc, &PolicyDocument::reset, this, &ExportPage::scheduleRefresh);
    connect(doc, &PolicyDocument::routesChanged, this, &ExportPage::scheduleRefresh);
    connect(doc, &PolicyDocument::routeChanged, this, &ExportPage::scheduleRefresh);
    connect(doc, &PolicyDocument::policyFieldsChanged, this, &ExportPage::scheduleRefresh);
    connect(doc, &PolicyDocument::planMapRead, this, &ExportPage::scheduleRefresh); // its keys
    connect(&m_watcher, &QFutureWatcher<std::vector<TargetExport>>::finished, this,
        &ExportPage::onFinished);
    connect(m_save, &QPushButton::clicked, this, &ExportPage::chooseFolderAndSave);
    connect(m_check, &QPushButton::clicked, this, &ExportPage::checkWithGateways);
    connect(&m_checkWatcher, &QFutureWatcher<QString>::finished, this, [this] {
        m_check->setEnabled(true);
        m_checkResult->setText(m_checkWatcher.result());
        emit checked();
    });
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
            const QString route = d.route >= 0 && d.route < m_doc->policy().routes.size()
                ? m_doc->policy().routes[d.route].id
                : tr("(policy)");
            QTreeWidgetItem *&parent = routes[route];
            if (!parent) {
                parent = new QTreeWidgetItem(m_warnings, {route});
                parent->setIcon(0, icon(QStringLiteral("route")));
                parent->setExpanded(true);
            }
            auto *item = new QTreeWidgetItem(parent, {d.target, d.message});
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

ExportPlan ExportPage::plan(const QString &dir) const
{
    std::vector<TargetFiles> targets;
    for (const TargetExport &t : m_last)
        if (!hasErrors(t.result.diagnostics))
            targets.push_back({t.target, t.result.files});
    return planExport(dir, targets);
}

Expected<void> ExportPage::saveTo(const QString &dir, bool prune)
{
    return writeExport(plan(dir), prune);
}

void ExportPage::chooseFolderAndSave()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export to folder"));
    if (dir.isEmpty())
        return;
    const ExportPlan p = plan(dir);
    bool prune = false;
    const int changed = p.count(PlannedFile::Change::Changed);
    const int stale = p.count(PlannedFile::Change::Stale);
    if (changed + stale > 0) {
        // Never overwrite silently: say what will change, and what an earlier export left.
        QStringList details;
        for (const PlannedFile &f : p.files) {
            static const char *const kWords[]
                = {QT_TR_NOOP("new"), QT_TR_NOOP("changed"), QT_TR_NOOP("unchanged"),
                    QT_TR_NOOP("stale (an earlier export's, not written now)")};
            details << QStringLiteral("%1: %2").arg(
                QDir::toNativeSeparators(f.path), tr(kWords[int(f.change)]));
        }
        QMessageBox box(QMessageBox::Question, tr("Export"),
            tr("%1 already holds exported files: %2.")
                .arg(QDir::toNativeSeparators(dir), p.summary()),
            QMessageBox::Cancel, this);
        box.setDetailedText(details.join(QLatin1Char('\n')));
        QPushButton *overwrite = box.addButton(
            stale ? tr("Overwrite and &remove stale") : tr("&Overwrite"), QMessageBox::AcceptRole);
        QPushButton *keep = stale
            ? box.addButton(tr("Overwrite, &keep stale"), QMessageBox::AcceptRole)
            : nullptr;
        box.setDefaultButton(QMessageBox::Cancel);
        box.exec();
        if (box.clickedButton() != overwrite && (!keep || box.clickedButton() != keep))
            return;
        prune = box.clickedButton() == overwrite && stale > 0;
    }
    if (const Expected<void> written = writeExport(p, prune); !written)
        QMessageBox::warning(this, tr("Export"), written.error());
    else
        m_status->setText(tr("Saved to %1: %2.").arg(QDir::toNativeSeparators(dir), p.summary()));
}

QString ExportPage::checkerFor(const QString &target)
{
    const QString tool = target == QLatin1String("nginx") ? QStringLiteral("nginx")
        : target == QLatin1String("haproxy")              ? QStringLiteral("haproxy")
                                                          : QString();
    if (tool.isEmpty())
        return {};
    QString path = QStandardPaths::findExecutable(tool);
    if (path.isEmpty())
        path = QStandardPaths::findExecutable(
            tool, {QStringLiteral("/usr/sbin"), QStringLiteral("/sbin")});
    return path;
}

void ExportPage::checkWithGateways()
{
    // The previews, written to a scratch folder and handed to the real gateway's own checker,
    // off the GUI thread: nginx -t and haproxy -c take a moment.
    struct Job {
        QString target, tool;
        std::vector<ExportedFile> files;
    };
    std::vector<Job> jobs;
    for (const TargetExport &t : m_last)
        if (const QString tool = checkerFor(t.target); !tool.isEmpty() && !t.result.files.empty())
            jobs.push_back({t.target, tool, t.result.files});
    if (jobs.empty()) {
        m_checkResult->setText(tr("No checked gateway has a checker installed here (nginx -t, "
                                  "haproxy -c)."));
        return;
    }
    m_check->setEnabled(false);
    m_checkResult->setText(tr("Checking…"));
    m_checkWatcher.setFuture(QtConcurrent::run([jobs] {
        QStringList lines;
        for (const Job &job : jobs) {
            QTemporaryDir dir;
            for (const ExportedFile &f : job.files) {
                QFile out(dir.filePath(f.name));
                if (out.open(QIODevice::WriteOnly))
                    out.write(f.content);
            }
            QProcess process;
            process.setProcessChannelMode(QProcess::MergedChannels);
            if (job.target == QLatin1String("nginx"))
                process.start(job.tool,
                    {QStringLiteral("-t"), QStringLiteral("-q"), QStringLiteral("-p"), dir.path(),
                        QStringLiteral("-c"), dir.filePath(QStringLiteral("nginx.conf"))});
            else
                process.start(job.tool,
                    {QStringLiteral("-c"), QStringLiteral("-f"),
                        dir.filePath(QStringLiteral("haproxy.cfg"))});
            const bool finished = process.waitForFinished(20000);
            const QString output = QString::fromUtf8(process.readAll()).trimmed();
            const bool ok = finished && process.exitStatus() == QProcess::NormalExit
                && process.exitCode() == 0;
            lines << QStringLiteral("%1 %2: %3%4")
                         .arg(ok ? QStringLiteral("✔") : QStringLiteral("✖"),
                             QFileInfo(job.tool).fileName()
                                 + (job.target == QLatin1String("nginx") ? QStringLiteral(" -t")
                                                                         : QStringLiteral(" -c")),
                             ok ? QObject::tr("the configuration is accepted")
                                : QObject::tr("refused"),
                             output.isEmpty() || ok ? QString() : QStringLiteral("\n") + output);
        }
        return lines.join(QLatin1Char('\n'));
    }));
}

} // namespace qs
