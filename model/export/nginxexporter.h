#pragma once
// NGINX `limit_req`: a leaky bucket in milli-requests (a GCRA in effect). Exact for token
// bucket, GCRA and leaky bucket (police = nodelay, shape = delayed); windows are approximated
// with a warning that says what changes. Writes:
//   qs-limits-http.conf    maps and limit_req_zone lines, to include in http {}
//   qs-limits-server.conf  one regex location per route, to include in a server {}; they
//                          proxy to `upstream qs_backend`, which the operator defines
//   nginx.conf             a complete configuration (both of the above, a loopback upstream
//                          that answers 200) for `nginx -t` and for demos
#include "model/export/exporter.h"

namespace qs {

class NginxExporter final : public Exporter {
public:
    QString id() const override { return QStringLiteral("nginx"); }
    QString displayName() const override { return QStringLiteral("NGINX"); }
    QStringList suggestedFileNames() const override;
    bool writesSeveralLimits() const override { return true; }
    // limit_req is a GCRA (a delaying leaky bucket without nodelay), at NGINX's rounded rate.
    std::optional<EnforcedLimit> enforcedLimit(
        const limiter::AlgorithmConfig &designed) const override;

protected:
    ExportResult write(const Policy &policy) const override;
};

} // namespace qs
