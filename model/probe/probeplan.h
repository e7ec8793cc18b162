#pragma once
// What a probe sends: the route's request (a method and a path the policy resolves to that
// route), one identity per simulated client carried the way the route keys requests (a header
// value, a query parameter), the traffic's arrival times, and the caps that bound the run.
//
// Safety: a probe talks to loopback, or to the one host the operator names explicitly
// (`allowedHost`); it never follows a redirect and never scans.
#include "model/base/expected.h"
#include "model/policy/policy.h"
#include "model/simulation/traffic.h"

#include <QString>
#include <QUrl>

#include <vector>

namespace qs {

struct ProbeSettings {
    QString routeId;
    QUrl url; // the gateway: scheme, host, port; a path other than "/" is used as is
    QString allowedHost; // a non-loopback host the operator explicitly allows
    TrafficSpec traffic;
    std::uint64_t seed = 1;
    limiter::Micros duration = 10 * limiter::kMicrosPerSecond;
    std::uint32_t clients = 0; // 0: the traffic spec's
    qint64 maxRequests = 10'000;
    limiter::Micros requestTimeout = 5 * limiter::kMicrosPerSecond;
    // After the traffic, wait the last Retry-After (up to this long) and retry once.
    limiter::Micros retryCheckLimit = 30 * limiter::kMicrosPerSecond;
    QString gateway; // exporter id whose enforced limit is also predicted ("nginx"); empty: none
};

// Hard caps that no setting can exceed.
inline constexpr qint64 kProbeMaxRequests = 1'000'000;
inline constexpr limiter::Micros kProbeMaxDuration = 3600 * limiter::kMicrosPerSecond;

struct PlannedRequest {
    limiter::Micros at = 0; // since the start of the run
    std::uint32_t client = 0;
    bool keyless = false; // sent without the key's header or query part (traffic's keyless=)
};

struct ProbePlan {
    QString routeId;
    qsizetype routeIndex = 0;
    QString method;
    QUrl url; // with the path (and, for query keys, the parameter added per client)
    QStringList identityHeaders; // the key's header parts: each carries the client's identity
    QStringList identityQueries; // the key's query parts, likewise
    QString runTag; // makes this run's identities fresh keys at the gateway
    std::vector<PlannedRequest> requests;
    std::uint32_t clients = 1;
    limiter::Micros alignStartTo = 0; // spike traffic: start on a multiple of the window
    QStringList warnings; // e.g. "the route keys by ip: every client is one key"

    // The identity value of a client (sent in the header or query parameter).
    QString identity(std::uint32_t client) const;
    // The URL and headers of a planned request.
    QUrl urlFor(const PlannedRequest &request) const;
    QList<QPair<QString, QString>> headersFor(const PlannedRequest &request) const;
};

// Checks the settings against the policy and builds the plan, or says what is wrong (a usage
// error: unknown route, a host that is not loopback nor allowed, caps out of range, …).
Expected<ProbePlan> makeProbePlan(const Policy &policy, const ProbeSettings &settings);

// A request path the policy resolves to route `index` (the pattern with `*` and `{name}`
// filled in), or empty when none of the candidates tried resolves there.
QString samplePathFor(const Policy &policy, qsizetype index);

} // namespace qs
