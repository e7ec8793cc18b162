#include "model/envoyexporter.h"
#include "model/exporter.h"
#include "model/haproxyexporter.h"
#include "model/kongexporter.h"
#include "model/nginxexporter.h"
#include "model/redisbundleexporter.h"
#include "model/traefikexporter.h"

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
