#pragma once
#include "model/diagnostic.h"
#include "model/policy.h"

#include <QByteArray>
#include <QString>

namespace qs {

struct PolicyReadResult {
    Policy policy; // as much as could be read, even when there are errors
    Diagnostics diagnostics; // empty when the file is clean
};

// Reads a policy from YAML (JSON is YAML too). `fileName` only labels the diagnostics.
PolicyReadResult readPolicy(const QByteArray &text, const QString &fileName);
PolicyReadResult readPolicyFile(const QString &path);

} // namespace qs
