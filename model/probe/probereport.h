#pragma once
// The outcome of a probe: how far the gateway agreed with the design, where it first did not
// and why, what its rate-limit headers got wrong, and its latency. Rendered as text (quotactl),
// one JSON object (--json, the Probe tab's "Save report") and CSV (one row per request).
#include "model/probe/probecomparison.h"

#include <QByteArray>
#include <QJsonObject>

namespace qs {

struct RetryCheck {
    bool performed = false;
    qint64 request = 0; // the denial whose Retry-After was followed
    qint64 waitedS = 0;
    int status = 0; // of the retry; 0 no response
    bool admitted = false;
};

// A route with several limits: each limit's share of the run.
struct ProbeLimitFigures {
    QString name;
    qint64 predictedDenials = 0; // requests the design denied at their send because of it
    qint64 divergences = 0; // divergences about it (admitted where it denies)
};

// A route whose numbers differ by plan: each plan's share of the run (its requests as the
// policy places them from what was sent).
struct ProbePlanFigures {
    QString name;
    qint64 responses = 0, agreed = 0, observedAllowed = 0, predictedAllowed = 0;
    double agreement = 0; // of its responses, 0..1
};

struct ProbeReport {
    QString routeId, method, url, traffic;
    qint64 planned = 0, requests = 0, responses = 0, noResponse = 0;
    qint64 agreed = 0, withinTiming = 0, reordered = 0, explained = 0, unexplained = 0;
    qint64 observedAllowed = 0, predictedAllowed = 0;
    double agreement = 0, explainedShare = 0, unexplainedShare = 0; // of responses, 0..1
    std::optional<Divergence> firstDivergence, firstUnexplained;
    std::vector<HeaderIssue> headerIssues;
    RetryCheck retryCheck;
    double p50Ms = 0, p99Ms = 0;
    QString gatewayModel; // what the exported config enforces, when modelled
    QStringList warnings;
    QString unreachable; // set when the gateway never answered: why
    bool cancelled = false;
    std::vector<ProbeLimitFigures> limits; // several limits (or plans) only
    std::vector<ProbePlanFigures> plans; // plans only, in the policy's order
    qint64 deniedThoughEveryLimitAdmits = 0; // several limits: divergences about none
    std::vector<ComparedRequest> compared;
};

ProbeReport summarize(const ProbeComparator &comparator, const ProbePlan &plan,
    const QString &traffic, const RetryCheck &retry);

// Whether the unexplained divergence stays within `tolerance` (a share, 0.01 for 1%).
bool withinTolerance(const ProbeReport &report, double tolerance);

QJsonObject toJson(const ProbeReport &report);
QByteArray toCsv(const ProbeReport &report);
QString toText(const ProbeReport &report);

// Admissions per time bucket for charts: observed, predicted, and divergences.
struct AdmissionSeries {
    std::vector<double> t; // seconds since the start, bucket starts
    std::vector<double> observed, predicted, divergent; // per second
};
AdmissionSeries admissionSeries(const std::vector<ComparedRequest> &compared,
    limiter::Micros bucket = limiter::kMicrosPerSecond / 4);

} // namespace qs
