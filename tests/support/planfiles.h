#pragma once
// A policy with plans and its map file, written side by side into a test's folder and read as
// an operator's would be (readPolicyFile reads the map beside the policy).
#include "model/policy/policyreader.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

namespace qs::test {

inline QString writeTestFile(const QTemporaryDir &dir, const QString &name, const QByteArray &text)
{
    QFile file(dir.filePath(name));
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        return {};
    return file.fileName();
}

// `policy` as policy.yaml beside `map` as plans.map, read.
inline PolicyReadResult readPolicyWithMap(
    const QTemporaryDir &dir, const QByteArray &policy, const QByteArray &map)
{
    writeTestFile(dir, QStringLiteral("plans.map"), map);
    return readPolicyFile(writeTestFile(dir, QStringLiteral("policy.yaml"), policy));
}

} // namespace qs::test
