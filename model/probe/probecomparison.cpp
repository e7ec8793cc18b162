#include "model/probe/probecomparison.h"

#include "limiter/algorithms/limitset.h"
#include "model/policy/limitconversion.h"
#include "model/policy/plans.h"
#include "model/policy/policykeys.h"
#include "model/policy/requestkey.h"

#include <QUrlQuery>

#include <algorithm>
#include <array>

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

ProbeComparator::ProbeComparator(const Policy &policy, const ProbePlan &plan,
    std::optional<EnforcedLimit> gateway, const QString &gatewayId)
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
    if (!keysLimitsByName(policy, route))
        return;
    const Exporter *exporter = gatewayId.isEmpty() ? nullptr : exporterById(gatewayId);
    const auto track = [&](const RouteLimit &l, const LimitSpec &spec, int plan) {
        const limiter::AlgorithmConfig config = *toAlgorithmConfig(spec);
        LimitTrack t{plan < 0 ? l.name : l.name + QLatin1Char('@') + policy.plans.names[plan],
            describeLimit(spec), plan, policy.keyOf(route, l), policy.missingKeyOf(route, l),
            route.modeOf(l) == RouteMode::Shadow, FlightPredictor(config, route.costOf(l)), {},
            false};
        if (const auto enforced = exporter ? exporter->enforcedLimit(config) : std::nullopt) {
            t.gateway.emplace(enforced->config, enforced->countsRequests ? 1 : route.costOf(l));
            t.gatewayCountsDenied = std::holds_alternative<HaproxyRateLimit>(enforced->config);
            if (!m_gateway) // the report names the first limit's model, and its clock's grain
                m_gateway = enforced;
        }
        m_limits.push_back(std::move(t));
    };
    for (const RouteLimit &l : route.limits) {
        if (!l.variesByPlan() || policy.plans.names.isEmpty()) {
            track(l, l.spec, -1);
            continue;
        }
        // A plan on which the limit is unlimited has no track: nothing counts there.
        for (int p = 0; p < policy.plans.names.size(); ++p)
            if (const auto spec = specForPlan(l, policy.plans.names[p]))
                track(l, *spec, p);
    }
}

QStringList ProbeComparator::limitNames() const
{
    QStringList names;
    for (const LimitTrack &t : m_limits)
        names << t.name;
    return names;
}

// What the probe sent, as a gateway sees it.
RequestFacts ProbeComparator::factsOf(const ProbeSample &sample) const
{
    const PlannedRequest request{sample.offset, sample.client, sample.keyless};
    RequestFacts facts;
    facts.clientAddress = QStringLiteral("127.0.0.1");
    facts.headers = m_plan.headersFor(request);
    const QUrl url = m_plan.urlFor(request);
    facts.target = url.path(QUrl::FullyEncoded)
        + (url.hasQuery() ? QLatin1Char('?') + url.query(QUrl::FullyEncoded) : QString());
    return facts;
}

// The key exactly as the policy builds it from what the probe sent.
RequestKey ProbeComparator::keyOf(const ProbeSample &sample) const
{
    return requestKey(m_key, m_missing, factsOf(sample));
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
    if (!m_limits.empty()) {
        addSeveral(sample, flight, r);
        return m_requests.emplace_back(std::move(r));
    }
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

ProbeComparator::LimitPart ProbeComparator::decideLimit(FlightPredictor &predictor,
    const RequestKey &key, const Flight &flight, bool observedAllowed, bool shadow, bool keepDenied)
{
    LimitPart part;
    part.key = key;
    if (key.outcome != RequestKey::Outcome::Counted) {
        // missing_key deny or allow: decided without any state.
        part.atSend.allowed = key.outcome == RequestKey::Outcome::Unlimited;
        part.fits = part.atSend.allowed == observedAllowed;
        return part;
    }
    const FlightPredictor::Snapshot before = predictor.save(key.key);
    if (shadow) {
        // Never denies; keeps what it took when the request is admitted.
        FlightPredictor::Outcome o = predictor.decide(key.key, flight, true);
        part.atSend = o.atSend;
        if (!o.consistent) {
            predictor.restore(key.key, before);
            predictor.decide(key.key, flight, false);
        }
        if (!observedAllowed && !keepDenied)
            predictor.restore(key.key, before);
        part.fits = !observedAllowed; // a shadow limit never explains a denial
        return part;
    }
    const FlightPredictor::Outcome o = predictor.decide(key.key, flight, observedAllowed);
    part.atSend = o.atSend;
    part.fits = o.consistent;
    // A denied request takes from no limit, unless the gateway counts it anyway (keepDenied:
    // HAProxy tracks every request in every table before any deny).
    if (!observedAllowed && !keepDenied)
        predictor.restore(key.key, before);
    return part;
}

void ProbeComparator::addSeveral(
    const ProbeSample &sample, const Flight &flight, ComparedRequest &r)
{
    const RequestFacts facts = factsOf(sample);
    const bool observed = r.observedAllowed;
    // The request's plan as the gateway finds it from what was sent: its limits are that plan's.
    const int plan = requestPlan(m_policy, facts);
    if (plan >= 0)
        r.plan = m_policy.plans.names[plan];
    const auto counts = [plan](const LimitTrack &t) { return t.plan < 0 || t.plan == plan; };

    // The design: every limit of the plan, on its own key.
    std::vector<limiter::Decision> atSend;
    std::array<bool, limiter::kMaxLimitsPerRequest> shadow{};
    std::array<std::size_t, limiter::kMaxLimitsPerRequest> trackOf{};
    bool designAgrees = observed; // admitted: every enforced limit must fit; denied: one must
    QString about; // the limit a divergence is about
    for (std::size_t i = 0; i < m_limits.size(); ++i) {
        LimitTrack &t = m_limits[i];
        if (!counts(t))
            continue;
        trackOf[atSend.size()] = i;
        const LimitPart part = decideLimit(
            t.design, requestKey(t.key, t.missing, facts), flight, observed, t.shadow, false);
        shadow[atSend.size()] = t.shadow;
        atSend.push_back(part.atSend);
        if (t.shadow)
            continue;
        if (observed && !part.fits) {
            designAgrees = false;
            if (about.isEmpty())
                about = t.name;
        }
        if (!observed && part.fits)
            designAgrees = true;
    }
    const limiter::SetDecision set
        = limiter::combine(atSend, std::span<const bool>(shadow.data(), atSend.size()));
    r.predicted = set.decision;
    if (set.deciding >= 0)
        r.limit = m_limits[trackOf[std::size_t(set.deciding)]].name;
    r.withinTiming = designAgrees && set.allowed != observed;
    r.predictedAllowed = designAgrees ? observed : set.allowed;
    if (!designAgrees)
        r.divergentLimit = about;

    // The export's model of each limit, where there is one for all of them.
    bool gatewayAgrees = observed;
    bool modelled = true;
    for (LimitTrack &t : m_limits) {
        if (!counts(t))
            continue;
        if (!t.gateway) {
            modelled = false;
            continue;
        }
        Flight gatewayFlight = flight;
        gatewayFlight.earliest = sample.sentAt - m_gateway->clockGrain;
        gatewayFlight.latest = flight.latest - kGatewayClockGrain + m_gateway->clockGrain;
        const LimitPart part = decideLimit(*t.gateway, requestKey(t.key, t.missing, facts),
            gatewayFlight, observed, t.shadow, t.gatewayCountsDenied);
        if (t.shadow)
            continue;
        if (observed && !part.fits)
            gatewayAgrees = false;
        if (!observed && part.fits)
            gatewayAgrees = true;
    }
    if (designAgrees)
        r.verdict = Verdict::Agree;
    else if (modelled && gatewayAgrees)
        r.verdict = Verdict::Explained;
    else
        r.verdict = Verdict::Unexplained;
    if (modelled)
        r.gatewayPredicted = gatewayAgrees ? observed : !observed;
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
    const Route &route = m_policy.routes[m_plan.routeIndex];
    d.limit = r.divergentLimit;
    if (!m_limits.empty()) {
        const auto track = std::find_if(m_limits.begin(), m_limits.end(),
            [&](const LimitTrack &t) { return t.name == r.divergentLimit; });
        if (d.explained)
            d.explanation = QStringLiteral("the gateway's limits as exported (%1) predict this "
                                           "decision: the exports' documented approximations")
                                .arg(m_gateway->description);
        else if (r.observedAllowed)
            d.explanation = QStringLiteral(
                "the gateway admitted a request that limit '%1' (%2) denies: that limit is looser "
                "than designed, or does not apply to this method, path or key")
                                .arg(r.divergentLimit,
                                    track != m_limits.end() ? track->description : QString());
        else
            d.explanation = QStringLiteral(
                "the gateway denied a request that every limit of the route admits: a stricter "
                "limit, traffic on the same keys before the probe, or a gateway that counts "
                "denied requests");
        return d;
    }
    const QString design = describeLimit(route.limit());
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
