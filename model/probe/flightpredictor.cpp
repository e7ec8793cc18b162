#include "model/probe/flightpredictor.h"

#include <cstdlib>

namespace qs {

FlightPredictor::FlightPredictor(limiter::AlgorithmConfig config, std::int64_t cost)
    : m_config(std::move(config)), m_cost(cost)
{
}

limiter::AlgorithmState FlightPredictor::stateOf(const QString &key) const
{
    const auto it = m_keys.find(key);
    return it == m_keys.end() ? limiter::freshState(m_config) : it->second.nominal;
}

bool FlightPredictor::nearestAgreeing(const limiter::AlgorithmState &state, limiter::Micros from,
    limiter::Micros to, bool allowed, limiter::AlgorithmState &out) const
{
    limiter::AlgorithmState s = state;
    if (limiter::decide(m_config, s, from, m_cost).allowed == allowed) {
        out = std::move(s);
        return true;
    }
    s = state;
    if (limiter::decide(m_config, s, to, m_cost).allowed != allowed)
        return false;
    // Monotone in time: bisect down to the microsecond.
    limiter::Micros differs = from, agrees = to;
    limiter::AlgorithmState best = std::move(s);
    while (std::abs(agrees - differs) > 1) {
        const limiter::Micros mid = differs + (agrees - differs) / 2;
        limiter::AlgorithmState probe = state;
        if (limiter::decide(m_config, probe, mid, m_cost).allowed == allowed) {
            agrees = mid;
            best = std::move(probe);
        } else {
            differs = mid;
        }
    }
    out = std::move(best);
    return true;
}

FlightPredictor::Outcome FlightPredictor::decide(
    const QString &key, const Flight &flight, bool observedAllowed)
{
    const limiter::AlgorithmState fresh = limiter::freshState(m_config);
    Histories &h = m_keys.try_emplace(key, Histories{fresh, fresh, fresh}).first->second;
    Outcome outcome;
    limiter::AlgorithmState nominal = h.nominal;
    outcome.atSend = limiter::decide(m_config, nominal, flight.sent, m_cost);

    // Admitted: the early history must admit by the end of the flight. Denied: the late
    // history must deny from its start.
    limiter::AlgorithmState early, late;
    const bool consistent = observedAllowed
        ? nearestAgreeing(h.early, flight.earliest, flight.latest, true, early)
        : nearestAgreeing(h.late, flight.latest, flight.earliest, false, late);
    if (!consistent) {
        h = Histories{nominal, nominal, nominal};
        return outcome;
    }
    outcome.consistent = true;
    // The other bound: as late (admitted) or as early (denied) as the flight allows. Where that
    // history cannot give the observed decision at all, the next strictest (or most lenient)
    // one that can takes its place, so that the bound stays as wide as the evidence allows.
    if (observedAllowed) {
        if (!nearestAgreeing(h.late, flight.latest, flight.earliest, true, late)
            && !nearestAgreeing(h.nominal, flight.latest, flight.earliest, true, late))
            nearestAgreeing(h.early, flight.latest, flight.earliest, true, late);
    } else if (!nearestAgreeing(h.early, flight.earliest, flight.latest, false, early)
        && !nearestAgreeing(h.nominal, flight.earliest, flight.latest, false, early)) {
        nearestAgreeing(h.late, flight.earliest, flight.latest, false, early);
    }
    if (outcome.atSend.allowed != observedAllowed
        && !nearestAgreeing(h.nominal, flight.sent,
            observedAllowed ? flight.latest : flight.earliest, observedAllowed, nominal))
        nominal = observedAllowed ? early : late;
    h = Histories{std::move(nominal), std::move(early), std::move(late)};
    return outcome;
}

} // namespace qs
