#include "model/probe/probecomparison.h"

#include "model/policy/limitconversion.h"
#include "model/policy/requestkey.h"

#include <QUrlQuery>

namespace qs {

namespace {

// NGINX and HAProxy read a millisecond clock: a decision can sit up to 1 ms before the send.
constexpr limiter::Micros kGatewayClockGrain = 1000;

} // namespace

QString verdictName(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Agree:
        return QStringLiteral("agree");
    case Verdict::Explained:
        return QStringLiteral("explained");
    case Verdict::Unexplained:
        return QStringLiteral("unexplained");
    case Verdict::NoResponse:
        break;
    }
    return QStringLiteral("no_response");
}

ProbeComparator::ProbeComparator(
    const Policy &policy, const ProbePlan &plan, std::optional<EnforcedLimit> gateway)
    : m_policy(policy), m_plan(plan),
      m_design(*toAlgorithmConfig(policy.routes[plan.routeIndex].limit()),
          policy.routes[plan.routeIndex].effectiveCost()),
      m_gateway(std::move(gateway))
{
    const Route &route = policy.routes[plan.routeIndex];
    m_key = policy.keyOf(route);
    m_missing = policy.missingKeyOf(route);
    m_shadow = route.effectiveMode() == RouteMode::Shadow;
    m_denyStatus = policy.defaults.effectiveStatus();
    if (m_gateway)
        m_gatewayPredictor.emplace(
            m_gateway->config, m_gateway->countsRequests ? 1 : route.effectiveCost());
}

// The key exactly as the policy builds it from what the probe sent.
RequestKey ProbeComparator::keyOf(const ProbeSample &sample) const
{
    const PlannedRequest request{sample.offset, sample.client, sample.keyless};
    RequestFacts facts;
    facts.clientAddress = QStringLiteral("127.0.0.1");
    facts.headers = m_plan.headersFor(request);
    const QUrl url = m_plan.urlFor(request);
    facts.target = url.path(QUrl::FullyEncoded)
        + (url.hasQuery() ? QLatin1Char('?') + url.query(QUrl::FullyEncoded) : QString());
    return requestKey(m_key, m_missing, facts);
}

const ComparedRequest &ProbeComparator::add(const ProbeSample &sample)
{
    ComparedRequest r;
    r.sample = sample;
    if (sample.status == 0) {
        r.verdict = Verdict::NoResponse;
        return m_requests.emplace_back(std::move(r));
    }
    r.observedAllowed = sample.status != m_denyStatus;
    const Flight flight{sample.sentAt, sample.sentAt - kGatewayClockGrain,
        sample.sentAt + std::max<limiter::Micros>(0, sample.elapsed) + kGatewayClockGrain};
    const RequestKey requestKey = keyOf(sample);
    const QString &key = requestKey.key;
    const bool counted = requestKey.outcome == RequestKey::Outcome::Counted;
    bool designAgrees = false;
    std::optional<bool> gatewayAgrees;
    if (!counted) {
        // missing_key deny or allow: decided without any state.
        r.predictedAllowed = requestKey.outcome == RequestKey::Outcome::Unlimited;
        designAgrees = r.predictedAllowed == r.observedAllowed;
        if (m_gatewayPredictor) {
            r.gatewayPredicted = r.predictedAllowed;
            gatewayAgrees = designAgrees;
        }
    } else if (m_shadow) {
        // A shadow route counts but never rejects.
        m_design.decide(key, flight, true);
        r.predictedAllowed = designAgrees = r.observedAllowed;
    } else {
        const FlightPredictor::Snapshot before = m_design.save(key);
        const FlightPredictor::Outcome design = m_design.decide(key, flight, r.observedAllowed);
        r.predicted = design.atSend;
        designAgrees = design.consistent || tryReordered(key, flight, r);
        std::vector<Trail> &trail = m_trails[key];
        if (r.reordered)
            trail.clear(); // settled: the snapshots before the others no longer hold
        trail.push_back(Trail{m_requests.size(), flight, before});
        if (trail.size() > kReorderDepth)
            trail.erase(trail.begin());
        r.withinTiming = designAgrees && !r.reordered && design.atSend.allowed != r.observedAllowed;
        // Within the flight the design gives what the gateway did; outside it, its own answer.
        r.predictedAllowed = designAgrees ? r.observedAllowed : design.atSend.allowed;
        if (m_gatewayPredictor) {
            Flight gatewayFlight = flight;
            gatewayFlight.earliest = sample.sentAt - m_gateway->clockGrain;
            gatewayFlight.latest = flight.latest - kGatewayClockGrain + m_gateway->clockGrain;
            const FlightPredictor::Outcome g
                = m_gatewayPredictor->decide(key, gatewayFlight, r.observedAllowed);
            r.gatewayPredicted = g.consistent ? r.observedAllowed : g.atSend.allowed;
            gatewayAgrees = g.consistent;
        }
    }
    if (designAgrees)
        r.verdict = Verdict::Agree;
    else if (gatewayAgrees.value_or(false))
        r.verdict = Verdict::Explained;
    else
        r.verdict = Verdict::Unexplained;
    if (r.verdict == Verdict::Agree && counted && !r.reordered)
        checkHeaders(r, key, flight.latest);
    return m_requests.emplace_back(std::move(r));
}

// Earlier requests of the key were still in flight when this one left: the gateway may have
// decided this one before them. Moved before the last 1, 2 … kReorderDepth of them (all still in
// flight), does every decision fit? Then they all agree.
bool ProbeComparator::tryReordered(const QString &key, const Flight &flight, ComparedRequest &r)
{
    const auto found = m_trails.find(key);
    if (found == m_trails.end())
        return false;
    const std::vector<Trail> &trail = found->second;
    const FlightPredictor::Snapshot asSent = m_design.save(key);
    for (std::size_t depth = 1; depth <= trail.size(); ++depth) {
        const std::size_t first = trail.size() - depth;
        if (trail[first].flight.latest < flight.earliest
            || m_requests[trail[first].index].verdict == Verdict::NoResponse)
            break; // answered before this one left: it cannot have come later
        m_design.restore(key, trail[first].before);
        bool fits = m_design.decide(key, flight, r.observedAllowed).consistent;
        for (std::size_t i = first; fits && i < trail.size(); ++i) {
            const ComparedRequest &earlier = m_requests[trail[i].index];
            fits = earlier.verdict != Verdict::NoResponse
                && m_design.decide(key, trail[i].flight, earlier.observedAllowed).consistent;
        }
        if (!fits)
            continue;
        r.reordered = true;
        for (std::size_t i = first; i < trail.size(); ++i) {
            ComparedRequest &earlier = m_requests[trail[i].index];
            earlier.reordered = true;
            earlier.verdict = Verdict::Agree;
            earlier.withinTiming = false;
            earlier.predictedAllowed = earlier.observedAllowed;
        }
        return true;
    }
    m_design.restore(key, asSent);
    return false;
}

std::optional<Divergence> ProbeComparator::firstDivergence() const
{
    for (const ComparedRequest &r : m_requests)
        if (r.verdict == Verdict::Explained || r.verdict == Verdict::Unexplained)
            return divergenceOf(r);
    return std::nullopt;
}

std::optional<Divergence> ProbeComparator::firstUnexplained() const
{
    for (const ComparedRequest &r : m_requests)
        if (r.verdict == Verdict::Unexplained)
            return divergenceOf(r);
    return std::nullopt;
}

Divergence ProbeComparator::divergenceOf(const ComparedRequest &r) const
{
    Divergence d;
    d.request = r.sample.number;
    d.offset = r.sample.offset;
    d.predictedAllowed = r.predictedAllowed;
    d.observedAllowed = r.observedAllowed;
    d.status = r.sample.status;
    d.headers = r.sample.headers.raw.trimmed();
    d.explained = r.verdict == Verdict::Explained;
    const QString design = describeLimit(m_policy.routes[m_plan.routeIndex].limit());
    if (d.explained) {
        d.explanation = QStringLiteral("the gateway enforces %1, the export's documented "
                                       "approximation of %2; that limit predicts this decision")
                            .arg(m_gateway->description, design);
    } else if (r.observedAllowed) {
        d.explanation = QStringLiteral(
            "the gateway admitted a request that %1 denies: its limit is looser than designed, "
            "or does not apply to this method, path or key")
                            .arg(design);
    } else {
        d.explanation = QStringLiteral(
            "the gateway denied a request that %1 admits: a stricter limit, traffic on the same "
            "key before the probe, or another limit counting this request")
                            .arg(design);
    }
    return d;
}

void ProbeComparator::noteIssue(const QString &kind, const QString &example)
{
    for (HeaderIssue &i : m_issues)
        if (i.kind == kind) {
            ++i.count;
            return;
        }
    m_issues.push_back({kind, 1, example});
}

void ProbeComparator::checkHeaders(
    const ComparedRequest &r, const QString &key, limiter::Micros upper)
{
    const ObservedHeaders &h = r.sample.headers;
    const QString at = QStringLiteral("request %1").arg(r.sample.number);
    for (const QString &p : h.problems)
        noteIssue(QStringLiteral("unreadable_header"), at + QStringLiteral(": ") + p);
    if (!r.observedAllowed && !m_shadow) {
        if (!h.retryAfterS) {
            noteIssue(QStringLiteral("retry_after_missing"),
                at + QStringLiteral(": status %1 without Retry-After").arg(r.sample.status));
        } else {
            // Honest: a client that waits as told is admitted (the design says so).
            GatewayState s = m_design.stateOf(key);
            const limiter::Decision retry = decide(m_design.limit(), s,
                upper + *h.retryAfterS * limiter::kMicrosPerSecond, m_design.cost());
            if (!retry.allowed)
                noteIssue(QStringLiteral("retry_after_too_short"),
                    at
                        + QStringLiteral(": Retry-After %1 s, but the design still denies then "
                                         "(it says %2 s)")
                              .arg(*h.retryAfterS)
                              .arg(limiter::secondsCeil(r.predicted.retryAfter)));
        }
    }
    if (h.remaining && r.observedAllowed && r.predicted.reason == limiter::Reason::None) {
        // One either way: the gateway may count the request before or after it reports.
        const qint64 predicted = r.predicted.remaining;
        if (std::abs(*h.remaining - predicted) > 1)
            noteIssue(QStringLiteral("remaining_disagrees"),
                at
                    + QStringLiteral(": remaining %1, the design says %2")
                          .arg(*h.remaining)
                          .arg(predicted));
    }
    const std::optional<qint64> limit = h.limit ? h.limit : h.policyQuota;
    if (limit && r.predicted.limit > 0 && *limit != r.predicted.limit)
        noteIssue(QStringLiteral("limit_disagrees"),
            at
                + QStringLiteral(": limit %1, the design says %2")
                      .arg(*limit)
                      .arg(r.predicted.limit));
}

std::vector<HeaderIssue> ProbeComparator::headerIssues() const
{
    return m_issues;
}

const ComparedRequest *ProbeComparator::lastDenialWithRetryAfter() const
{
    for (auto it = m_requests.rbegin(); it != m_requests.rend(); ++it)
        if (it->verdict != Verdict::NoResponse && !it->observedAllowed
            && it->sample.headers.retryAfterS)
            return &*it;
    return nullptr;
}

} // namespace qs
