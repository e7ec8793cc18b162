#pragma once
#include "model/policy/diagnostic.h"
#include "model/policy/policy.h"

#include <QByteArray>
#include <QString>

namespace qs {

struct PolicyReadResult {
    Policy policy; // as much as could be read, even when there are errors
    Diagnostics diagnostics; // errors and warnings, reading and validation together
};

inline constexpr int kNewestPolicyFormat = 1;

// What the reader accepts: far above any real deployment (100 000 routes are 13 MB of YAML and
// take seconds to lint), low enough that /dev/zero, a pipe that never ends or a mistaken
// multi-gigabyte file is an error with a reason, not an exhausted memory.
inline constexpr qint64 kMaxPolicyBytes = 32 * 1024 * 1024;
inline constexpr qsizetype kMaxRoutes = 100'000;

// Reads a policy from YAML or JSON (JSON is read by the same YAML parser, so its errors carry
// line and column too) and validates it. `fileName` labels the diagnostics. A plan map file
// (`plans: { from: { map: … } }`) is read only when `policyPath` says where the policy lives
// (the map's path is relative to it); without, the policy's map stays unread.
PolicyReadResult readPolicy(
    const QByteArray &text, const QString &fileName, const QString &policyPath = QString());
// Reads the file and (unless `withPlanMap` is false: the workbench reads it in the background)
// its plan map. `text`, when given, receives the bytes that were read (what a lossless save
// edits).
PolicyReadResult readPolicyFile(
    const QString &path, QByteArray *text = nullptr, bool withPlanMap = true);

} // namespace qs
