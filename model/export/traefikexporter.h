#pragma once
// Traefik v3 dynamic configuration (file provider): a rateLimit middleware per route (Go's
// x/time/rate token bucket: average per period, burst) and the routers that use them.
#include "model/export/exporter.h"

namespace qs {

class TraefikExporter final : public Exporter {
public:
    QString id() const override { return QStringLiteral("traefik"); }
    QString displayName() const override { return QStringLiteral("Traefik"); }
    bool writesSeveralLimits() const override { return true; }
    QStringList suggestedFileNames() const override
    {
        return {QStringLiteral("traefik-dynamic.yml")};
    }

protected:
    ExportResult write(const Policy &policy) const override;
};

} // namespace qs
