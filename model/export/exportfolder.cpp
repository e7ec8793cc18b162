#include "model/export/exportfolder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStringList>

namespace qs {

namespace {

// A file some target writes (by name), or a bundle's script: what an export leaves behind.
bool looksExported(const QString &name)
{
    static const QStringList ours = [] {
        QStringList names;
        for (const Exporter *e : exporters())
            names << e->suggestedFileNames();
        return names;
    }();
    return ours.contains(name) || name.endsWith(QLatin1String(".lua"));
}

} // namespace

int ExportPlan::count(PlannedFile::Change change) const
{
    return int(std::count_if(
        files.begin(), files.end(), [&](const PlannedFile &f) { return f.change == change; }));
}

QString ExportPlan::summary() const
{
    return QStringLiteral("%1 new, %2 changed, %3 unchanged, %4 stale")
        .arg(count(PlannedFile::Change::New))
        .arg(count(PlannedFile::Change::Changed))
        .arg(count(PlannedFile::Change::Unchanged))
        .arg(count(PlannedFile::Change::Stale));
}

QString exportFolder(const QString &dir, const QString &target, std::size_t targetCount)
{
    return targetCount > 1 ? QDir(dir).filePath(target) : dir;
}

ExportPlan planExport(const QString &dir, const std::vector<TargetFiles> &targets)
{
    ExportPlan plan;
    for (const TargetFiles &t : targets)
        plan.files.append(planTargetExport(dir, t, targets.size()).files);
    return plan;
}

ExportPlan planTargetExport(const QString &dir, const TargetFiles &target, std::size_t targetCount)
{
    ExportPlan plan;
    const QString folder = exportFolder(dir, target.target, targetCount);
    QStringList written;
    for (const ExportedFile &f : target.files) {
        PlannedFile p;
        p.path = QDir(folder).filePath(f.name);
        p.content = f.content;
        QFile existing(p.path);
        if (existing.open(QIODevice::ReadOnly))
            p.change = existing.readAll() == f.content ? PlannedFile::Change::Unchanged
                                                       : PlannedFile::Change::Changed;
        plan.files.append(p);
        written << f.name;
    }
    for (const QString &name : QDir(folder).entryList(QDir::Files, QDir::Name))
        if (looksExported(name) && !written.contains(name))
            plan.files.append({QDir(folder).filePath(name), PlannedFile::Change::Stale, {}});
    return plan;
}

Expected<void> writeExport(const ExportPlan &plan, bool prune)
{
    for (const PlannedFile &f : plan.files) {
        if (f.change == PlannedFile::Change::Stale) {
            if (prune && !QFile::remove(f.path))
                return QStringLiteral("cannot remove %1").arg(f.path);
            continue;
        }
        if (f.change == PlannedFile::Change::Unchanged)
            continue;
        if (!QDir().mkpath(QFileInfo(f.path).absolutePath()))
            return QStringLiteral("cannot create %1").arg(QFileInfo(f.path).absolutePath());
        QSaveFile file(f.path);
        if (!file.open(QIODevice::WriteOnly) || file.write(f.content) != f.content.size()
            || !file.commit())
            return QStringLiteral("cannot write %1: %2").arg(f.path, file.errorString());
    }
    return {};
}

} // namespace qs
