#pragma once
// HAProxy: a stick table per route storing http_req_rate(period), a two-period weighted
// counter: the sliding window counter, except that denied requests count too. Writes one
// complete haproxy.cfg (global, defaults, a frontend with the rules, one stick-table backend
// per route, and a stand-in backend answering 200 for `haproxy -c` and demos).
#include "model/export/exporter.h"

namespace qs {

class HaproxyExporter final : public Exporter {
public:
    QString id() const override { return QStringLiteral("haproxy"); }
    QString displayName() const override { return QStringLiteral("HAProxy"); }
    bool writesSeveralLimits() const override { return true; }
    QStringList suggestedFileNames() const override { return {QStringLiteral("haproxy.cfg")}; }
    // http_req_rate(P) gt L, as HAProxy counts it (model/export/gatewaylimit.h).
    std::optional<EnforcedLimit> enforcedLimit(
        const limiter::AlgorithmConfig &designed) const override;

protected:
    ExportResult write(const Policy &policy) const override;
};

} // namespace qs
