#pragma once
// Export: choose gateways, preview every file they would get (with syntax colouring), read the
// warnings per route — what each gateway cannot express, in numbers — and save to a folder.
// Exports run on a worker thread whenever the policy or the choice of targets changes.
#include "model/base/expected.h"
#include "model/export/exporter.h"
#include "model/export/exportfolder.h"

#include <QFutureWatcher>
#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;
class QSplitter;
class QTabWidget;
class QTimer;
class QTreeWidget;

namespace qs {

class PolicyDocument;

struct TargetExport {
    QString target;
    ExportResult result;
};

class ExportPage : public QWidget {
    Q_OBJECT
public:
    explicit ExportPage(PolicyDocument *doc, QWidget *parent = nullptr);
    ~ExportPage() override;

    void setTargetChecked(const QString &id, bool checked);
    void refreshNow(); // starts an export; finished() says when it is shown
    // What writing the checked targets' files into dir would change (one target: dir itself,
    // several: dir/<target>/, as quotactl export writes), and the writing itself (`prune`
    // removes the stale files of an earlier export), or what went wrong.
    ExportPlan plan(const QString &dir) const;
    Expected<void> saveTo(const QString &dir, bool prune = false);
    // Runs nginx -t / haproxy -c on the previews where installed; checked() when done.
    void checkWithGateways();
    QLabel *checkResult() const { return m_checkResult; }
    static QString checkerFor(const QString &target); // empty: none installed

    QTabWidget *previews() const { return m_previews; }
    QTreeWidget *warnings() const { return m_warnings; }
    QList<QSplitter *> splitters() const;

signals:
    void finished();
    void checked();

private:
    void scheduleRefresh();
    void onFinished();
    QStringList checkedTargets() const;
    void chooseFolderAndSave();

    PolicyDocument *m_doc;
    QListWidget *m_targets;
    QTabWidget *m_previews;
    QTreeWidget *m_warnings;
    QLabel *m_status;
    QPushButton *m_save, *m_check = nullptr;
    QLabel *m_checkResult = nullptr;
    QFutureWatcher<QString> m_checkWatcher;
    QSplitter *m_columns, *m_rows;
    QTimer *m_debounce;
    QFutureWatcher<std::vector<TargetExport>> m_watcher;
    std::vector<TargetExport> m_last;
    bool m_again = false; // the policy changed while an export was running
};

} // namespace qs
