#include "model/export/envoyexporter.h"
#include "model/export/exporter.h"
#include "model/export/haproxyexporter.h"
#include "model/export/kongexporter.h"
#include "model/export/nginxexporter.h"
#include "model/export/redisbundleexporter.h"
#include "model/export/traefikexporter.h"

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

const Exporter *exporterById(const QString &id)
{
    for (const Exporter *e : exporters())
        if (e->id() == id)
            return e;
    return nullptr;
}

} // namespace qs
