#pragma once
// Writes a policy as YAML or JSON. Fields come out in the order the file had them (new fields
// after, in the reference order of docs/policy-format.md); values keep the text they were read
// with, comments are not kept: the workbench saves through policytextpatch.h, which edits the
// file's own text, and writes whole only new files and what that cannot edit.
#include "model/base/expected.h"
#include "model/policy/policy.h"

#include <QByteArray>
#include <QString>

namespace qs {

enum class PolicyFormat { Yaml, Json };

QByteArray writePolicy(const Policy &policy, PolicyFormat format);

// PolicyFormat::Json for *.json, Yaml otherwise.
PolicyFormat formatForPath(const QString &path);

// Atomic (QSaveFile): either the whole new file or the old one, never half; else what went
// wrong.
Expected<void> savePolicyFile(const Policy &policy, const QString &path);
Expected<void> saveTextFile(const QByteArray &bytes, const QString &path);

} // namespace qs
