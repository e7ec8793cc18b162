#pragma once
// What a probe sends: the route's request (a method and a path the policy resolves to that
// route), one identity per simulated client carried the way the route keys requests (a header
// value, a query parameter), the traffic's arrival times, and the caps that bound the run.
//
// Safety: a probe talks to loopback, or to the one host the operator names explicitly
// (`allowedHost`); it never follows a redirect and never scans.
#include "model/base/expected.h"
#include "model/policy/policy.h"
#include "model/simulation/planassignment.h"
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
    std::optional<KeySelector> planPart; // plans: the header or query part that says the plan
    QString runTag; // makes this run's identities fresh keys at the gateway
    std::vector<PlannedRequest> requests;
    std::uint32_t clients = 1;
    limiter::Micros alignStartTo = 0; // spike traffic: start on a multiple of the window
    QStringList warnings; // e.g. "the route keys by ip: every client is one key"

    // Plans (a route whose numbers differ by plan): each client is on a plan drawn as the
    // simulator draws it (traffic `plans=`, else the default plan), and its requests say so as
    // the policy finds plans: the plan's name in `from`'s header or query parameter, or, for a
    // map, a value the map gives that plan in the map's key part (a client on the default plan
    // keeps its fresh identity, which no map lists).
    PlanAssignment plans; // empty: the route's numbers are the same for every plan
    std::vector<QStringList> planMapValues; // per plan: its values in the map file

    // The identity value of a client (sent in the header or query parameter).
    QString identity(std::uint32_t client) const;
    // The client's plan; empty when the route has none.
    QString planOf(std::uint32_t client) const;
    // What the client sends in the header or query part `part`: its identity, or its plan's
    // name or map value where `part` is where the policy finds plans.
    QString valueOf(std::uint32_t client, const KeySelector &part) const;
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
