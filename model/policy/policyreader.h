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

// Reads a policy from YAML or JSON (JSON is read by the same YAML parser, so its errors carry
// line and column too) and validates it. `fileName` labels the diagnostics.
PolicyReadResult readPolicy(const QByteArray &text, const QString &fileName);
PolicyReadResult readPolicyFile(const QString &path);

} // namespace qs
