#pragma once
// The Redis script bundle: the Lua scripts Quota Studio's own Redis backend runs
// (limiter/redis/lua), a manifest that maps each route to its script, key and arguments, a README
// with short snippets that call them from Python, Node and Go, and quota_middleware.py, a ready
// Starlette/FastAPI middleware (resources/redis-bundle/) that applies the manifest. Exact for every
// algorithm: these are the scripts whose decisions the parity tests compare with the embedded
// engine.
#include "model/export/exporter.h"

namespace qs {

class RedisBundleExporter final : public Exporter {
public:
    QString id() const override { return QStringLiteral("redis-bundle"); }
    QString displayName() const override { return QStringLiteral("Redis script bundle"); }
    bool writesSeveralLimits() const override { return true; }
    QStringList suggestedFileNames() const override
    {
        return {QStringLiteral("manifest.json"), QStringLiteral("README.md"),
            QStringLiteral("quota_middleware.py"), QStringLiteral("<algorithm>.lua")};
    }

protected:
    ExportResult write(const Policy &policy) const override;
};

} // namespace qs
