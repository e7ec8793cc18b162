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

// Three plans from X-Plan: free a GCRA of 5/s burst 2, pro 12/s burst 4, enterprise unlimited
// (NGINX's limit_req is exact for a GCRA). The probe's live tests, of the gateway and of the
// Probe tab, run it.
inline constexpr const char *kHeaderPlansPolicy = R"(quota_studio: 1
name: probe-plans
defaults: { key: header:X-Api-Key }
plans: { names: [free, pro, enterprise], from: header:X-Plan, default: free }
routes:
  - id: search
    match: { path: /search }
    limit:
      algorithm: gcra
      rate: 5/s
      burst: 2
      plans: { pro: { rate: 12/s, burst: 4 }, enterprise: unlimited }
)";

} // namespace qs::test
