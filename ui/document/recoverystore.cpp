#include "ui/document/recoverystore.h"

#include "model/policy/policywriter.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

namespace qs {

RecoveryStore::RecoveryStore(QString directory) : m_directory(std::move(directory))
{
    if (m_directory.isEmpty())
        m_directory = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
            + QStringLiteral("/recovery");
}

Expected<void> RecoveryStore::write(
    const QString &id, const Policy &policy, const QString &originalPath) const
{
    if (!QDir().mkpath(m_directory))
        return QObject::tr("cannot create %1").arg(m_directory);
    const QDir dir(m_directory);
    // The origin first: a copy without its origin would come back as an untitled policy.
    QSaveFile origin(dir.filePath(id + QStringLiteral(".origin")));
    const QByteArray path
        = QByteArray::number(QCoreApplication::applicationPid()) + '\n' + originalPath.toUtf8();
    if (!origin.open(QIODevice::WriteOnly) || origin.write(path) != path.size() || !origin.commit())
        return origin.errorString();
    return savePolicyFile(policy, dir.filePath(id + QStringLiteral(".yaml")));
}

void RecoveryStore::remove(const QString &id) const
{
    const QDir dir(m_directory);
    QFile::remove(dir.filePath(id + QStringLiteral(".yaml")));
    QFile::remove(dir.filePath(id + QStringLiteral(".origin")));
}

bool RecoveryStore::Entry::ownerAlive() const
{
    // Linux: /proc/<pid> exists while the process runs. A recycled pid only delays the offer.
    return ownerPid > 0 && ownerPid != QCoreApplication::applicationPid()
        && QFileInfo::exists(QStringLiteral("/proc/%1").arg(ownerPid));
}

QList<RecoveryStore::Entry> RecoveryStore::entries() const
{
    QList<Entry> out;
    const QDir dir(m_directory);
    for (const QFileInfo &copy :
        dir.entryInfoList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Time)) {
        Entry e;
        e.id = copy.completeBaseName();
        e.copyPath = copy.absoluteFilePath();
        e.written = copy.lastModified();
        QFile origin(dir.filePath(e.id + QStringLiteral(".origin")));
        if (origin.open(QIODevice::ReadOnly)) {
            e.ownerPid = origin.readLine().trimmed().toLongLong();
            e.originalPath = QString::fromUtf8(origin.readAll());
        }
        out.append(e);
    }
    return out;
}

} // namespace qs
