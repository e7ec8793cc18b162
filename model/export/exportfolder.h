#pragma once
// Where an export's files go and what writing them would change there. One rule for quotactl
// and the workbench: one target writes into the chosen folder, several write one sub-folder
// per target. Before writing, a plan says which files are new, changed, unchanged, or stale
// (an earlier export's, not written by this one: deployed with the folder they would configure
// the gateway wrongly), so nothing is overwritten or left behind silently.
#include "model/base/expected.h"
#include "model/export/exporter.h"

#include <QList>
#include <QString>

#include <vector>

namespace qs {

struct TargetFiles {
    QString target; // exporter id
    std::vector<ExportedFile> files;
};

struct PlannedFile {
    enum class Change { New, Changed, Unchanged, Stale };
    QString path;
    Change change = Change::New;
    QByteArray content; // what will be written (implicitly shared); empty for stale files
};

struct ExportPlan {
    QList<PlannedFile> files;
    int count(PlannedFile::Change change) const;
    // "2 new, 1 changed, 3 unchanged, 1 stale"
    QString summary() const;
};

// dir for a single target, dir/<target> for several.
QString exportFolder(const QString &dir, const QString &target, std::size_t targetCount);

ExportPlan planExport(const QString &dir, const std::vector<TargetFiles> &targets);
// One target's part of that plan, when it is one of `targetCount`: a command that writes
// several targets plans and writes them one by one, holding one target's files at a time.
ExportPlan planTargetExport(const QString &dir, const TargetFiles &target, std::size_t targetCount);

// Writes the plan's new and changed files atomically and, with `prune`, removes its stale
// ones; else what went wrong.
Expected<void> writeExport(const ExportPlan &plan, bool prune);

} // namespace qs
