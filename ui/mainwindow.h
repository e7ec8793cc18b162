#pragma once
// The workbench: one policy document, five activities as tabs (Design, Simulate, Export,
// Monitor, Probe), the File and Edit menus, a status bar with the validation state. Window
// geometry, splitters, the last tab and recent files persist in QSettings.
#include "ui/document/recoverystore.h"

#include <QMainWindow>

class QLabel;
class QMenu;
class QTabWidget;
class QSplitter;

namespace qs {

class DesignPage;
class ExportPage;
class MonitorPage;
class ProbePage;
class PolicyDocument;
class SimulatePage;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    PolicyDocument *document() const { return m_doc; }
    QTabWidget *tabs() const { return m_tabs; }
    DesignPage *designPage() const { return m_design; }
    SimulatePage *simulatePage() const { return m_simulate; }
    ExportPage *exportPage() const { return m_export; }
    MonitorPage *monitorPage() const { return m_monitor; }
    ProbePage *probePage() const { return m_probe; }
    // Every splitter whose position is kept in the settings.
    QList<QSplitter *> splitters() const;
    // Monitor ▸ Start local demo, with the tab brought to the front.
    void showMonitorDemo(int clusterMasters = 0); // 3: a local Redis Cluster
    QLabel *validationLabel() const { return m_validation; }

    // Opens a policy file (after asking about unsaved changes when `ask`); shows its
    // diagnostics. False when the file could not be read at all.
    bool openFile(const QString &path, bool ask = true);
    bool save();
    bool saveAs(const QString &path);
    // Unsaved changes: ask to save, discard or cancel. True when it is fine to go on.
    bool maybeSave();

    // Crash recovery (recoverystore.h): copies other windows or sessions left behind, writing
    // this window's copy now (the 30 s timer does it otherwise), taking one back, and asking
    // the operator about each at start-up.
    QList<RecoveryStore::Entry> recoverable() const;
    void writeRecoveryNow();
    bool recover(const RecoveryStore::Entry &entry);
    // Offers lost changes back: those of the file this window opened, and only those (a copy
    // of another file waits for that file, never replaces the one asked for); at a start
    // without a file, every copy, several in a list to choose from.
    void offerRecovery();
    // What Open does once its dialog returned: nothing for a cancelled dialog (empty path), else
    // ask about unsaved changes, open, offer the file's lost changes.
    bool openChosenFile(const QString &path);
    QList<RecoveryStore::Entry> recoveryCandidates() const;

    // Every shortcut of the window: (keys, what they do), for Help > Keyboard shortcuts.
    QList<QPair<QString, QString>> keyboardReference() const;
    static QString docsDirectory();
    QMenu *recentMenu() const { return m_recentMenu; }

protected:
    void closeEvent(QCloseEvent *event) override;
    // Ctrl+Z / Ctrl+Shift+Z / Ctrl+Y belong to the document, whichever field has focus.
    bool eventFilter(QObject *watched, QEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void openDocs();
    void showKeyboardReference();
    void buildMenus();
    void buildFileMenu();
    void buildEditMenu();
    void buildViewMenu();
    void buildMonitorMenu();
    void buildHelpMenu();
    void updateTitle();
    void updateValidation();
    void updateRecentMenu();
    void addRecent(const QString &path);
    void restoreSettings();
    void saveSettings() const;
    void newPolicy();
    void openDialog();
    bool saveAsDialog();
    void revert();

    PolicyDocument *m_doc;
    QTabWidget *m_tabs;
    DesignPage *m_design;
    SimulatePage *m_simulate;
    ExportPage *m_export;
    MonitorPage *m_monitor;
    ProbePage *m_probe;
    QLabel *m_validation;
    int m_errorsWhenOpened = -1; // the status bar says "Opened … with N error(s)"; -1: it does not
    QMenu *m_recentMenu = nullptr;
    RecoveryStore m_recovery;
    QString m_recoveryId; // this window's copy
};

} // namespace qs
