#pragma once
// Envoy: `envoy.yaml`, a complete static bootstrap whose routes carry a local_ratelimit token
// bucket each (typed_per_filter_config, with filter_enabled and filter_enforced set: both
// default to 0% and the filter then does nothing), plus `ratelimit-config.yaml` for the
// envoyproxy/ratelimit service (domain, descriptors) that per-client quotas need; the routes
// already carry the matching rate_limits actions.
#include "model/export/exporter.h"

namespace qs {

class EnvoyExporter final : public Exporter {
public:
    QString id() const override { return QStringLiteral("envoy"); }
    QString displayName() const override { return QStringLiteral("Envoy"); }
    bool writesSeveralLimits() const override { return true; }
    QStringList suggestedFileNames() const override
    {
        return {QStringLiteral("envoy.yaml"), QStringLiteral("ratelimit-config.yaml")};
    }

protected:
    ExportResult write(const Policy &policy) const override;
};

} // namespace qs
