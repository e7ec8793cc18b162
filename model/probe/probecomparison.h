#pragma once
// Request by request, what a gateway did against what the design predicts.
//
// The prediction decides each request on the embedded engine's manual clock at the time the
// request was sent. The gateway decided it a little later (somewhere in the request's flight)
// and on a clock of its own granularity, so a decision that the design gives somewhere in that
// interval also agrees ("within timing"; FlightPredictor says how). Requests of one key in
// flight at the same time may reach the limiter in any order: a request that fits only when
// decided before up to kReorderDepth such predecessors agrees, and so do they ("reordered"). Where
// the exported config only approximates the design (Exporter::enforcedLimit), a second predictor
// runs the gateway's own limit, and a divergence that it predicts is "explained" by the documented
// approximation. Everything else is unexplained: a defect in the export, the gateway or its setup.
#include "model/export/exporter.h"
#include "model/policy/requestkey.h"
#include "model/probe/flightpredictor.h"
#include "model/probe/observedheaders.h"
#include "model/probe/probeplan.h"

#include <map>
#include <optional>

namespace qs {

struct ProbeSample {
    qint64 number = 0; // 1-based, in send order
    std::uint32_t client = 0;
    bool keyless = false;
    limiter::Micros sentAt = 0; // wall clock, µs since the epoch
    limiter::Micros offset = 0; // since the start of the run
    limiter::Micros elapsed = -1; // until the response was complete; -1: none
    int status = 0; // 0: no response (error says why)
    QString error;
    ObservedHeaders headers;
};

enum class Verdict { Agree, Explained, Unexplained, NoResponse };
QString verdictName(Verdict verdict); // "agree", "explained", …

struct ComparedRequest {
    ProbeSample sample;
    bool observedAllowed = false;
    // The design's decision: the observed one where the design gives it within the request's
    // flight, else the design's at the send.
    bool predictedAllowed = false;
    std::optional<bool> gatewayPredicted; // the exported limit's model, where there is one
    bool withinTiming = false; // agreed only at another moment of the request's flight
    bool reordered = false; // agreed once swapped with the previous request of its key
    Verdict verdict = Verdict::Agree;
    limiter::Decision predicted; // the design's at the send (its headers' figures)
    // A route with several limits: the limit whose decision the design's answer at the send
    // carries (the denying one, or the one nearest to denying), and for a divergence the limit
    // it is about (empty: every limit admitted a request the gateway denied). A limit whose
    // numbers differ by plan is named with the plan: `burst@pro`.
    QString limit, divergentLimit;
    QString plan; // the request's plan, as the policy finds it from what was sent (plans only)
};

struct Divergence {
    qint64 request = 0;
    limiter::Micros offset = 0;
    bool predictedAllowed = false, observedAllowed = false;
    int status = 0;
    bool explained = false;
    QString headers; // the rate-limit headers seen on that response
    QString explanation;
    QString limit; // several limits: the one the divergence is about (empty: none of them)
};

struct HeaderIssue {
    QString kind; // "retry_after_missing", "retry_after_too_short", "remaining_disagrees", …
    qint64 count = 0;
    QString example; // the first occurrence, in words
};

class ProbeComparator {
public:
    // `gateway`: the exported config's model of a route's only limit. For a route with several,
    // each limit's model comes from the exporter `gatewayId` names (none when empty).
    ProbeComparator(const Policy &policy, const ProbePlan &plan,
        std::optional<EnforcedLimit> gateway, const QString &gatewayId = {});

    // Samples must come in send order.
    const ComparedRequest &add(const ProbeSample &sample);

    const std::vector<ComparedRequest> &requests() const { return m_requests; }
    std::vector<HeaderIssue> headerIssues() const;
    std::optional<Divergence> firstDivergence() const;
    std::optional<Divergence> firstUnexplained() const;
    const std::optional<EnforcedLimit> &gateway() const { return m_gateway; }
    // The route's limits by name when it has several or plans (empty for one): a limit whose
    // numbers differ by plan once per plan it limits, `name@plan`.
    QStringList limitNames() const;
    int denyStatus() const { return m_denyStatus; }
    // The last denial that carried a Retry-After, for the retry check.
    const ComparedRequest *lastDenialWithRetryAfter() const;

private:
    RequestFacts factsOf(const ProbeSample &sample) const;
    RequestKey keyOf(const ProbeSample &sample) const;
    void checkHeaders(const ComparedRequest &r, const QString &key, limiter::Micros upper);
    void noteIssue(const QString &kind, const QString &example);
    Divergence divergenceOf(const ComparedRequest &r) const;
    // The last requests of a key, for the reordering check.
    struct Trail {
        std::size_t index = 0; // into m_requests
        Flight flight;
        FlightPredictor::Snapshot before; // the design's histories before it
    };
    static constexpr std::size_t kReorderDepth = 3;
    bool tryReordered(const QString &key, const Flight &flight, ComparedRequest &r);

    // A route with several limits or plans (limitset.h's rule): a predictor per limit (per
    // limit and plan where its numbers differ by plan: each plan's keys are its own), each on
    // its own key. An admitted request must fit every enforced limit somewhere in its flight, and
    // each keeps what it took; a denied one must be deniable by one of them, and takes from none.
    struct LimitTrack {
        QString name; // `limit`, or `limit@plan`
        QString description; // its numbers, in words
        int plan = -1; // the plan (an index into the policy's) it counts for; -1: every plan
        QList<KeySelector> key;
        MissingKeyMode missing = MissingKeyMode::Shared;
        bool shadow = false;
        FlightPredictor design;
        std::optional<FlightPredictor> gateway; // the export's model of this limit
        bool gatewayCountsDenied = false; // HAProxy counts a request in every table it tracks
    };
    void addSeveral(const ProbeSample &sample, const Flight &flight, ComparedRequest &r);
    // One limit's part: its decision at the send, and whether the observed answer fits it.
    struct LimitPart {
        RequestKey key;
        limiter::Decision atSend;
        bool fits = true; // admitted: it admits within the flight; denied: it can deny then
    };
    LimitPart decideLimit(FlightPredictor &predictor, const RequestKey &key, const Flight &flight,
        bool observedAllowed, bool shadow, bool keepDenied);

    const Policy &m_policy;
    const ProbePlan &m_plan;
    QList<KeySelector> m_key;
    MissingKeyMode m_missing;
    bool m_shadow = false;
    int m_denyStatus = Defaults::kDefaultStatus;
    FlightPredictor m_design;
    std::optional<FlightPredictor> m_gatewayPredictor;
    std::optional<EnforcedLimit> m_gateway;
    std::vector<LimitTrack> m_limits; // several limits only
    std::vector<ComparedRequest> m_requests;
    std::vector<HeaderIssue> m_issues;
    std::map<QString, std::vector<Trail>> m_trails; // at most kReorderDepth per key
};

} // namespace qs
