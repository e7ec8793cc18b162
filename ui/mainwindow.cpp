#include "ui/mainwindow.h"

#include "ui/common/icons.h"
#include "ui/design/designpage.h"
#include "ui/design/policysettingsdialog.h"
#include "ui/document/policydocument.h"
#include "ui/export/exportpage.h"
#include "ui/monitor/monitorpage.h"
#include "ui/probe/probepage.h"
#include "ui/simulate/simulatepage.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QUndoStack>
#include <QUrl>
#include <QUuid>
#include <QVBoxLayout>

namespace qs {

namespace {

constexpr int kMaxRecent = 8;
const QString kPolicyFilter = QObject::tr("Policies (*.yaml *.yml *.json);;All files (*)");

bool isPolicyFile(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == QLatin1String("yaml") || suffix == QLatin1String("yml")
        || suffix == QLatin1String("json");
}

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_doc(new PolicyDocument(this)), m_tabs(new QTabWidget(this)),
      m_design(new DesignPage(m_doc)), m_simulate(new SimulatePage(m_doc)),
      m_export(new ExportPage(m_doc)), m_monitor(new MonitorPage(m_doc)),
      m_probe(new ProbePage(m_doc)), m_validation(new QLabel)
{
    setWindowIcon(icon(QStringLiteral("quota-studio")));
    setAcceptDrops(true);
    qApp->installEventFilter(this);
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_design, icon(QStringLiteral("design")), tr("&Design"));
    m_tabs->addTab(m_simulate, icon(QStringLiteral("simulate")), tr("&Simulate"));
    m_tabs->addTab(m_export, icon(QStringLiteral("export")), tr("&Export"));
    m_tabs->addTab(m_monitor, icon(QStringLiteral("monitor")), tr("&Monitor"));
    m_tabs->addTab(m_probe, icon(QStringLiteral("probe")), tr("&Probe"));
    setCentralWidget(m_tabs);
    m_validation->setTextInteractionFlags(Qt::NoTextInteraction);
    m_validation->setToolTip(
        tr("Validation state of the policy; the Design tab lists every finding."));
    statusBar()->addPermanentWidget(m_validation);
    buildMenus();

    connect(m_doc, &PolicyDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_doc, &PolicyDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(m_doc, &PolicyDocument::policyFieldsChanged, this, &MainWindow::updateTitle);
    connect(m_doc, &PolicyDocument::reset, this, &MainWindow::updateTitle);
    connect(m_doc, &PolicyDocument::diagnosticsChanged, this, &MainWindow::updateValidation);
    // While modified, a copy every 30 s; gone once saved, discarded or undone to the saved state.
    m_recoveryId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    auto *autosave = new QTimer(this);
    // QS_AUTOSAVE_MS shortens it (tests kill the program between two copies; an operator may
    // want copies more often).
    const int every = qEnvironmentVariableIntValue("QS_AUTOSAVE_MS");
    autosave->setInterval(every >= 100 ? every : 30'000);
    connect(autosave, &QTimer::timeout, this, &MainWindow::writeRecoveryNow);
    autosave->start();
    connect(m_doc, &PolicyDocument::modifiedChanged, this, [this](bool modified) {
        if (!modified)
            m_recovery.remove(m_recoveryId);
    });
    resize(1280, 800);
    restoreSettings();
    updateTitle();
    updateValidation();
}

MainWindow::~MainWindow() = default;

void MainWindow::showMonitorDemo(int clusterMasters)
{
    m_tabs->setCurrentWidget(m_monitor);
    m_monitor->startDemo(clusterMasters);
}

void MainWindow::buildMenus()
{
    buildFileMenu();
    buildEditMenu();
    buildViewMenu();
    buildMonitorMenu();
    buildHelpMenu();
}

void MainWindow::buildFileMenu()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    const auto add = [this](QMenu *menu, const char *iconName, const QString &text,
                         const QKeySequence &keys, auto slot) {
        QAction *a
            = menu->addAction(iconName ? icon(QString::fromLatin1(iconName)) : QIcon(), text);
        a->setShortcut(keys);
        connect(a, &QAction::triggered, this, slot);
        return a;
    };
    add(file, "new", tr("&New"), QKeySequence::New, [this] {
        if (maybeSave())
            newPolicy();
    });
    add(file, "open", tr("&Open…"), QKeySequence::Open, [this] { openDialog(); });
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    add(file, "save", tr("&Save"), QKeySequence::Save, [this] { save(); });
    // Not every platform theme defines a Save As key; Ctrl+Shift+S is what people expect.
    add(file, "save-as", tr("Save &As…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S),
        [this] { saveAsDialog(); });
    add(file, "revert", tr("Re&vert"), QKeySequence(), [this] { revert(); });
    file->addSeparator();
    // One policy per window: closing the policy closes its window (asking first).
    add(file, "cancel", tr("&Close"), QKeySequence(Qt::CTRL | Qt::Key_W), [this] { close(); });
    add(file, "quit", tr("&Quit"), QKeySequence::Quit, [this] { close(); });
}

void MainWindow::buildEditMenu()
{
    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    QAction *undo = m_doc->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    undo->setIcon(icon(QStringLiteral("undo")));
    QAction *redo = m_doc->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
    redo->setIcon(icon(QStringLiteral("redo")));
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    edit->addActions(m_design->routeActions());
    edit->addSeparator();
    QAction *settings = edit->addAction(tr("Policy &settings…"));
    settings->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
    settings->setToolTip(tr("Name, defaults every route inherits, Redis prefix and metrics"));
    connect(settings, &QAction::triggered, this, [this] {
        PolicySettingsDialog dialog(m_doc->policy(), this);
        if (dialog.exec() == QDialog::Accepted)
            m_doc->setPolicyField(dialog.result(), tr("Edit policy settings"), QString());
    });
}

void MainWindow::buildViewMenu()
{
    QMenu *view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < m_tabs->count(); ++i) {
        QAction *a
            = view->addAction(m_tabs->tabIcon(i), m_tabs->tabText(i).remove(QLatin1Char('&')));
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
        connect(a, &QAction::triggered, this, [this, i] { m_tabs->setCurrentIndex(i); });
    }
}

// Monitor: what its tab's buttons do, reachable from the keyboard anywhere.
void MainWindow::buildMonitorMenu()
{
    QMenu *monitor = menuBar()->addMenu(tr("&Monitor"));
    QAction *demo = monitor->addAction(icon(QStringLiteral("run")), tr("Start local &demo"));
    connect(demo, &QAction::triggered, this, [this] {
        m_tabs->setCurrentWidget(m_monitor);
        if (m_monitor->demoRunning())
            m_monitor->stopDemo();
        else
            m_monitor->startDemo();
    });
    QAction *clusterDemo
        = monitor->addAction(icon(QStringLiteral("run")), tr("Start local &cluster demo"));
    clusterDemo->setToolTip(tr("Three redis-server processes joined into a Redis Cluster (needs "
                               "redis-cli), with traffic: every master read, the budget split"));
    connect(clusterDemo, &QAction::triggered, this, [this] { showMonitorDemo(3); });
    connect(m_monitor, &MonitorPage::demoStateChanged, demo, [demo, clusterDemo](bool running) {
        demo->setText(running ? tr("Stop local &demo") : tr("Start local &demo"));
        clusterDemo->setEnabled(!running);
    });
    monitor->addAction(icon(QStringLiteral("filter")), tr("D&iscover key families…"), this, [this] {
        m_tabs->setCurrentWidget(m_monitor);
        m_monitor->discover();
    });
}

void MainWindow::buildHelpMenu()
{
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *docs = help->addAction(tr("&Documentation"), this, [this] { openDocs(); });
    docs->setShortcut(QKeySequence::HelpContents);
    docs->setToolTip(tr("The policy format, the algorithms, the exporters and the workbench"));
    help->addAction(tr("&Keyboard shortcuts"), this, [this] { showKeyboardReference(); })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
    help->addSeparator();
    help->addAction(icon(QStringLiteral("quota-studio")), tr("&About Quota Studio"), this, [this] {
        QMessageBox::about(this, tr("About Quota Studio"),
            tr("<h3>Quota Studio %1</h3><p>Design, live-test, export and monitor API rate-limit "
               "policies.</p>")
                .arg(QApplication::applicationVersion()));
    });
    updateRecentMenu();
}

void MainWindow::updateTitle()
{
    const QString name = m_doc->policy().name.isEmpty() ? tr("untitled") : m_doc->policy().name;
    const QString file
        = m_doc->filePath().isEmpty() ? tr("not saved") : QFileInfo(m_doc->filePath()).fileName();
    // [*] is where Qt shows the modified marker.
    setWindowTitle(QStringLiteral("%1 (%2)[*] — Quota Studio").arg(name, file));
    setWindowModified(m_doc->isModified());
}

void MainWindow::updateValidation()
{
    const int errors = m_doc->errorCount(), warnings = m_doc->warningCount();
    if (errors > 0)
        m_validation->setText(tr("✖ %n error(s)", nullptr, errors)
            + (warnings ? tr(", %n warning(s)", nullptr, warnings) : QString()));
    else if (warnings > 0)
        m_validation->setText(tr("⚠ valid, %n warning(s)", nullptr, warnings));
    else
        m_validation->setText(tr("✔ valid"));
    // "Opened … with N error(s)" is true until the count changes; the label above says the rest.
    if (m_errorsWhenOpened >= 0 && errors != m_errorsWhenOpened) {
        statusBar()->clearMessage();
        m_errorsWhenOpened = -1;
    }
}

bool MainWindow::maybeSave()
{
    if (!m_doc->isModified())
        return true;
    QMessageBox box(QMessageBox::Warning, tr("Unsaved changes"),
        tr("The policy '%1' has unsaved changes. Save them?").arg(m_doc->policy().name),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box.setDefaultButton(QMessageBox::Save);
    // Each answer has a mnemonic (Alt+S, Alt+D); Escape cancels.
    box.button(QMessageBox::Save)->setText(tr("&Save"));
    box.button(QMessageBox::Discard)->setText(tr("&Discard"));
    const int answer = box.exec();
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::newPolicy()
{
    m_doc->newPolicy();
    m_tabs->setCurrentWidget(m_design);
    statusBar()->showMessage(tr("New policy"), 3000);
}

bool MainWindow::openFile(const QString &path, bool ask)
{
    if (ask && !maybeSave())
        return false;
    if (const Expected<void> loaded = m_doc->load(path); !loaded) {
        QMessageBox::warning(this, tr("Open policy"),
            tr("Cannot open %1:\n%2").arg(QDir::toNativeSeparators(path), loaded.error()));
        return false;
    }
    addRecent(path);
    if (m_doc->errorCount() > 0) {
        // Open what could be read and show what could not.
        m_tabs->setCurrentWidget(m_design);
        statusBar()->showMessage(
            tr("Opened %1 with %n error(s): see Diagnostics", nullptr, m_doc->errorCount())
                .arg(QFileInfo(path).fileName()));
        m_errorsWhenOpened = m_doc->errorCount();
    } else {
        m_errorsWhenOpened = -1;
        statusBar()->showMessage(tr("Opened %1").arg(QFileInfo(path).fileName()), 3000);
    }
    return true;
}

void MainWindow::openDialog()
{
    // The file first: asking about unsaved changes is pointless if the operator cancels.
    const QString path = QFileDialog::getOpenFileName(this, tr("Open policy"),
        m_doc->filePath().isEmpty() ? QString() : QFileInfo(m_doc->filePath()).absolutePath(),
        kPolicyFilter);
    openChosenFile(path);
}

bool MainWindow::openChosenFile(const QString &path)
{
    if (path.isEmpty())
        return false; // the dialog was cancelled: nothing to ask about
    if (!openFile(path, true))
        return false;
    offerRecovery();
    return true;
}

QString MainWindow::docsDirectory()
{
    // Installed next to the program, else the source tree this build came from.
    const QString installed
        = QCoreApplication::applicationDirPath() + QStringLiteral("/../share/doc/quota-studio");
    if (QFileInfo::exists(installed + QStringLiteral("/README.md")))
        return QDir(installed).absolutePath();
    return QStringLiteral(QS_DOCS_DIR);
}

void MainWindow::openDocs()
{
    const QString index = docsDirectory() + QStringLiteral("/README.md");
    if (!QFileInfo::exists(index) || !QDesktopServices::openUrl(QUrl::fromLocalFile(index)))
        QMessageBox::information(this, tr("Documentation"),
            tr("The documentation is in %1 (start with README.md).")
                .arg(QDir::toNativeSeparators(docsDirectory())));
}

QList<QPair<QString, QString>> MainWindow::keyboardReference() const
{
    QList<QPair<QString, QString>> rows;
    QStringList seen;
    for (const QAction *a : findChildren<QAction *>()) {
        for (const QKeySequence &key : a->shortcuts()) {
            const QString keys = key.toString(QKeySequence::NativeText);
            const QString what = a->text().remove(QLatin1Char('&')).remove(QStringLiteral("…"));
            if (keys.isEmpty() || what.isEmpty() || seen.contains(keys + what))
                continue;
            seen << keys + what;
            rows.append({keys, what});
        }
    }
    // Keys that belong to a widget rather than an action.
    rows.append({tr("Ctrl+Z / Ctrl+Shift+Z in any field"), tr("Undo / redo the policy")});
    rows.append({tr("Enter in the test console"), tr("Send the request")});
    rows.append({tr("Enter on a diagnostic"), tr("Go to its field")});
    std::sort(
        rows.begin(), rows.end(), [](const auto &a, const auto &b) { return a.second < b.second; });
    return rows;
}

void MainWindow::showKeyboardReference()
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Keyboard shortcuts"));
    auto *table = new QTableWidget(&dialog);
    const auto rows = keyboardReference();
    table->setColumnCount(2);
    table->setRowCount(int(rows.size()));
    table->setHorizontalHeaderLabels({tr("Keys"), tr("Does")});
    for (int i = 0; i < rows.size(); ++i) {
        table->setItem(i, 0, new QTableWidgetItem(rows[i].first));
        table->setItem(i, 1, new QTableWidgetItem(rows[i].second));
    }
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->horizontalHeader()->setStretchLastSection(true);
    table->resizeColumnsToContents();
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto *layout = new QVBoxLayout(&dialog);
    layout->addWidget(table);
    layout->addWidget(buttons);
    dialog.resize(560, 520);
    dialog.exec();
}

bool MainWindow::save()
{
    if (m_doc->filePath().isEmpty())
        return saveAsDialog();
    return saveAs(m_doc->filePath());
}

bool MainWindow::saveAs(const QString &path)
{
    if (const Expected<void> saved = m_doc->save(path); !saved) {
        QMessageBox::warning(this, tr("Save policy"),
            tr("Cannot save %1:\n%2").arg(QDir::toNativeSeparators(path), saved.error()));
        return false;
    }
    addRecent(path);
    if (m_doc->lastSaveRewrite().isEmpty())
        statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 3000);
    else // rare: say so, since comments and layout were not kept
        statusBar()->showMessage(tr("Saved %1, written afresh (comments and layout not kept): %2")
                                     .arg(QFileInfo(path).fileName(), m_doc->lastSaveRewrite()),
            15000);
    return true;
}

bool MainWindow::saveAsDialog()
{
    QString suggestion = m_doc->filePath();
    if (suggestion.isEmpty())
        suggestion = m_doc->policy().name + QStringLiteral(".yaml");
    const QString path
        = QFileDialog::getSaveFileName(this, tr("Save policy as"), suggestion, kPolicyFilter);
    return !path.isEmpty() && saveAs(path);
}

void MainWindow::revert()
{
    if (m_doc->filePath().isEmpty() || !m_doc->isModified())
        return;
    const auto answer = QMessageBox::question(this, tr("Revert"),
        tr("Discard every change since %1 was last saved?")
            .arg(QFileInfo(m_doc->filePath()).fileName()));
    if (answer == QMessageBox::Yes)
        openFile(m_doc->filePath(), false);
}

void MainWindow::addRecent(const QString &path)
{
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("recentFiles")).toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(QStringLiteral("recentFiles"), recent);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    const QString home = QDir::homePath();
    for (int i = 0; i < recent.size(); ++i) {
        // The path, not just the name: two policy.yaml files in two repositories are common.
        QString shown = QDir::toNativeSeparators(recent[i]);
        if (recent[i].startsWith(home + QLatin1Char('/')))
            shown = QStringLiteral("~") + QDir::toNativeSeparators(recent[i].mid(home.size()));
        QAction *a = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(
            shown.replace(QLatin1Char('&'), QStringLiteral("&&"))));
        a->setToolTip(recent[i]);
        a->setEnabled(QFileInfo::exists(recent[i]));
        connect(a, &QAction::triggered, this, [this, path = recent[i]] {
            if (openFile(path))
                offerRecovery();
        });
    }
    if (!recent.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("&Clear list"), this, [this] {
            QSettings().remove(QStringLiteral("recentFiles"));
            updateRecentMenu();
        });
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

QList<QSplitter *> MainWindow::splitters() const
{
    return m_design->splitters() + m_simulate->splitters() + m_export->splitters()
        + m_probe->splitters();
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    for (QSplitter *s : splitters())
        s->restoreState(
            settings.value(QStringLiteral("splitters/") + s->objectName()).toByteArray());
    m_tabs->setCurrentIndex(settings.value(QStringLiteral("window/tab"), 0).toInt());
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    for (QSplitter *s : splitters())
        settings.setValue(QStringLiteral("splitters/") + s->objectName(), s->saveState());
    settings.setValue(QStringLiteral("window/tab"), m_tabs->currentIndex());
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    // A line edit or spin box claims the undo keys for its own text (ShortcutOverride) and
    // would undo behind the document's back, pushing a new command and clearing Redo. Refusing
    // the override here lets the keys reach the Edit menu's actions instead.
    if (event->type() == QEvent::ShortcutOverride) {
        auto *key = static_cast<QKeyEvent *>(event);
        auto *widget = qobject_cast<QWidget *>(watched);
        const bool undoKey = key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo)
            || key->keyCombination() == QKeyCombination(Qt::CTRL | Qt::SHIFT, Qt::Key_Z)
            || key->keyCombination() == QKeyCombination(Qt::CTRL, Qt::Key_Y);
        if (undoKey && widget && widget->window() == this) {
            event->ignore();
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    m_recovery.remove(m_recoveryId); // saved or deliberately discarded
    m_simulate->cancel();
    saveSettings();
    event->accept();
}

QList<RecoveryStore::Entry> MainWindow::recoverable() const
{
    QList<RecoveryStore::Entry> out;
    for (const RecoveryStore::Entry &e : m_recovery.entries())
        if (e.id != m_recoveryId && !e.ownerAlive())
            out.append(e);
    return out;
}

void MainWindow::writeRecoveryNow()
{
    if (!m_doc->isModified())
        return;
    if (const Expected<void> written
        = m_recovery.write(m_recoveryId, m_doc->policy(), m_doc->filePath());
        !written)
        statusBar()->showMessage(
            tr("Could not write the recovery copy: %1").arg(written.error()), 5000);
}

bool MainWindow::recover(const RecoveryStore::Entry &entry)
{
    if (!maybeSave())
        return false;
    if (const Expected<void> loaded = m_doc->loadRecovered(entry.copyPath, entry.originalPath);
        !loaded) {
        QMessageBox::warning(
            this, tr("Recover"), tr("Cannot read the recovery copy:\n%1").arg(loaded.error()));
        return false;
    }
    writeRecoveryNow(); // now this window's copy…
    m_recovery.remove(entry.id); // …so the old one can go
    statusBar()->showMessage(tr("Recovered unsaved changes: save to keep them"), 5000);
    return true;
}

QList<RecoveryStore::Entry> MainWindow::recoveryCandidates() const
{
    const QList<RecoveryStore::Entry> all = recoverable();
    if (m_doc->filePath().isEmpty())
        return all;
    const QString opened = QFileInfo(m_doc->filePath()).canonicalFilePath();
    QList<RecoveryStore::Entry> mine;
    for (const RecoveryStore::Entry &e : all)
        if (!e.originalPath.isEmpty() && QFileInfo(e.originalPath).canonicalFilePath() == opened)
            mine.append(e);
    return mine;
}

void MainWindow::offerRecovery()
{
    const QList<RecoveryStore::Entry> candidates = recoveryCandidates();
    if (candidates.isEmpty())
        return;
    const auto describe = [](const RecoveryStore::Entry &e) {
        return tr("%1 — changes from %2")
            .arg(e.originalPath.isEmpty() ? tr("a policy never saved")
                                          : QDir::toNativeSeparators(e.originalPath),
                QLocale().toString(e.written, QLocale::ShortFormat));
    };
    if (candidates.size() == 1) {
        const RecoveryStore::Entry &e = candidates.front();
        QMessageBox box(QMessageBox::Question, tr("Recover unsaved changes"),
            tr("Quota Studio ended without saving %1. Recover them?").arg(describe(e)),
            QMessageBox::NoButton, this);
        QPushButton *recoverButton = box.addButton(tr("&Recover"), QMessageBox::AcceptRole);
        QPushButton *discard = box.addButton(tr("&Discard the copy"), QMessageBox::DestructiveRole);
        box.addButton(tr("&Later"), QMessageBox::RejectRole);
        box.setDefaultButton(recoverButton);
        box.exec();
        if (box.clickedButton() == recoverButton)
            recover(e);
        else if (box.clickedButton() == discard)
            m_recovery.remove(e.id);
        return;
    }
    // Several: the operator picks the one to recover here; the others stay for later.
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Recover unsaved changes"));
    auto *list = new QListWidget(&dialog);
    for (const RecoveryStore::Entry &e : candidates) {
        auto *item = new QListWidgetItem(describe(e), list);
        item->setData(Qt::UserRole, e.id); // rows move as others are discarded; ids do not
    }
    list->setCurrentRow(0);
    const auto chosen = [&]() -> const RecoveryStore::Entry * {
        const QListWidgetItem *item = list->currentItem();
        if (!item)
            return nullptr;
        for (const RecoveryStore::Entry &e : candidates)
            if (e.id == item->data(Qt::UserRole).toString())
                return &e;
        return nullptr;
    };
    auto *buttons = new QDialogButtonBox(&dialog);
    QPushButton *recoverButton = buttons->addButton(tr("&Recover"), QDialogButtonBox::AcceptRole);
    QPushButton *discard = buttons->addButton(tr("&Discard"), QDialogButtonBox::DestructiveRole);
    buttons->addButton(tr("&Later"), QDialogButtonBox::RejectRole);
    connect(recoverButton, &QPushButton::clicked, &dialog, &QDialog::accept);
    connect(discard, &QPushButton::clicked, &dialog, [&] {
        if (const RecoveryStore::Entry *e = chosen()) {
            m_recovery.remove(e->id);
            delete list->takeItem(list->currentRow());
        }
        if (list->count() == 0)
            dialog.reject();
    });
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto *layout = new QVBoxLayout(&dialog);
    layout->addWidget(new QLabel(tr("Quota Studio ended without saving these changes. Choose "
                                    "one to recover in this window; the others stay for later.")));
    layout->addWidget(list);
    layout->addWidget(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return;
    if (const RecoveryStore::Entry *e = chosen())
        recover(*e);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.first().isLocalFile() && isPolicyFile(urls.first().toLocalFile()))
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.first().isLocalFile()) {
        event->acceptProposedAction();
        openFile(urls.first().toLocalFile());
    }
}

} // namespace qs
