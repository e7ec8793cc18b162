#pragma once
// One interface for every gateway target (as Tiled's file-format plugins share one): an
// exporter turns a policy into files plus diagnostics that say, per route, where the target
// cannot express the design exactly. Exporters register in exporterregistry.cpp.
#include "model/policy/diagnostic.h"
#include "model/policy/policy.h"

#include "model/export/gatewaylimit.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace qs {

struct ExportedFile {
    QString name; // suggested file name, e.g. "nginx.conf"
    QByteArray content;
};

struct ExportResult {
    std::vector<ExportedFile> files;
    Diagnostics diagnostics; // warnings for approximations; errors for what cannot be exported
};

// What a gateway enforces for a designed limit. Where a target only approximates a design, the
// probe predicts the running gateway with this too, and so tells a documented approximation
// from a real defect (docs/probe.md).
struct EnforcedLimit {
    GatewayLimit config;
    bool countsRequests = false; // the gateway counts requests, whatever the route's cost
    // How coarse the gateway's clock is as the probe sees it: a decision can read a time this
    // much before the request was sent.
    limiter::Micros clockGrain = limiter::kMicrosPerMilli;
    QString description; // "NGINX limit_req rate=50r/s burst=24 nodelay (…)"
};

class Exporter {
public:
    virtual ~Exporter() = default;
    virtual QString id() const = 0; // "nginx"
    virtual QString displayName() const = 0; // "NGINX"
    virtual QStringList suggestedFileNames() const = 0;
    // The files for `policy`. A route's only limit may carry its own key, missing_key, cost or
    // mode (`limits:` with one item): they are the route's for the target, which is what
    // write() then reads.
    ExportResult exportPolicy(const Policy &policy) const;
    // Unset when the target's behaviour is not modelled (the probe then compares with the
    // design alone).
    virtual std::optional<EnforcedLimit> enforcedLimit(const limiter::AlgorithmConfig &) const
    {
        return std::nullopt;
    }
    // Whether write() exports routes with several limits; until it does, ExportReport refuses
    // such routes with an error that says so.
    virtual bool writesSeveralLimits() const { return false; }

protected:
    virtual ExportResult write(const Policy &policy) const = 0;
};

// A route's only limit's own key, missing_key, cost and mode, set on the route instead.
Policy withSingleLimitsOnTheirRoutes(const Policy &policy);

const std::vector<const Exporter *> &exporters();
const Exporter *exporterById(const QString &id);

} // namespace qs
