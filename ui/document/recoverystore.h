#pragma once
// Unsaved changes survive a crash: while a policy is modified, the window writes it every
// 30 s to the application's data folder (QStandardPaths::AppDataLocation/recovery), and removes
// the copy once the changes are saved or deliberately discarded. What is left there at the next
// start was lost by a crash or a killed session, and is offered back.
// Each copy is two files: <id>.yaml (the policy, written atomically) and <id>.origin (the id of
// the process that wrote it, then the path of the file it belongs to; empty for a policy never
// saved). Copies of processes that are still running are not offered: they are not lost.
#include "model/base/expected.h"
#include "model/policy/policy.h"

#include <QDateTime>
#include <QList>
#include <QString>

namespace qs {

class RecoveryStore {
public:
    struct Entry {
        QString id;
        QString copyPath; // the recovered policy
        QString originalPath; // empty: the policy was never saved
        QDateTime written;
        qint64 ownerPid = 0;
        bool ownerAlive() const; // another running process: its copy is not lost
    };

    // `directory` empty: the application's data folder.
    explicit RecoveryStore(QString directory = QString());

    // Empty string on success, else what went wrong.
    Expected<void> write(
        const QString &id, const Policy &policy, const QString &originalPath) const;
    void remove(const QString &id) const;
    QList<Entry> entries() const;
    const QString &directory() const { return m_directory; }

private:
    QString m_directory;
};

} // namespace qs
