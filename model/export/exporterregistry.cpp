#include "model/export/envoyexporter.h"
#include "model/export/exporter.h"
#include "model/export/haproxyexporter.h"
#include "model/export/kongexporter.h"
#include "model/export/nginxexporter.h"
#include "model/export/redisbundleexporter.h"
#include "model/export/traefikexporter.h"

#include <utility>

namespace qs {

// Adding a gateway: one file pair and one line here.
const std::vector<const Exporter *> &exporters()
{
    static const NginxExporter nginx;
    static const EnvoyExporter envoy;
    static const KongExporter kong;
    static const TraefikExporter traefik;
    static const HaproxyExporter haproxy;
    static const RedisBundleExporter redisBundle;
    static const std::vector<const Exporter *> all{
        &nginx, &envoy, &kong, &traefik, &haproxy, &redisBundle};
    return all;
}

Policy withSingleLimitsOnTheirRoutes(const Policy &policy)
{
    Policy out = policy;
    for (Route &route : out.routes) {
        if (route.hasSeveralLimits())
            continue;
        RouteLimit &only = route.limits.first();
        if (only.key)
            route.key = std::exchange(only.key, std::nullopt);
        if (only.missingKey)
            route.missingKey = std::exchange(only.missingKey, std::nullopt);
        if (only.cost)
            route.cost = std::exchange(only.cost, std::nullopt);
        if (only.mode)
            route.mode = std::exchange(only.mode, std::nullopt);
    }
    return out;
}

ExportResult Exporter::exportPolicy(const Policy &policy) const
{
    return write(withSingleLimitsOnTheirRoutes(policy));
}

const Exporter *exporterById(const QString &id)
{
    for (const Exporter *e : exporters())
        if (e->id() == id)
            return e;
    return nullptr;
}

} // namespace qs
