#include "model/probe/flightpredictor.h"

#include <algorithm>
#include <cstdlib>

namespace qs {

FlightPredictor::FlightPredictor(GatewayLimit limit, std::int64_t cost)
    : m_limit(std::move(limit)), m_cost(cost)
{
}

GatewayState FlightPredictor::stateOf(const QString &key) const
{
    const auto it = m_keys.find(key);
    return it == m_keys.end() ? freshState(m_limit) : it->second.nominal;
}

FlightPredictor::Snapshot FlightPredictor::save(const QString &key) const
{
    const auto it = m_keys.find(key);
    return it == m_keys.end() ? Snapshot{} : Snapshot{it->second};
}

void FlightPredictor::restore(const QString &key, const Snapshot &snapshot)
{
    if (snapshot.histories)
        m_keys.insert_or_assign(key, *snapshot.histories);
    else
        m_keys.erase(key);
}

bool FlightPredictor::nearestAgreeing(const GatewayState &state, limiter::Micros from,
    limiter::Micros to, bool allowed, GatewayState &out) const
{
    GatewayState s = state;
    if (qs::decide(m_limit, s, from, m_cost).allowed == allowed) {
        out = std::move(s);
        return true;
    }
    s = state;
    if (qs::decide(m_limit, s, to, m_cost).allowed != allowed)
        return false;
    // The decision flips somewhere in between: bisect down to the microsecond.
    limiter::Micros differs = from, agrees = to;
    GatewayState best = std::move(s);
    while (std::abs(agrees - differs) > 1) {
        const limiter::Micros mid = differs + (agrees - differs) / 2;
        GatewayState probe = state;
        if (qs::decide(m_limit, probe, mid, m_cost).allowed == allowed) {
            agrees = mid;
            best = std::move(probe);
        } else {
            differs = mid;
        }
    }
    out = std::move(best);
    return true;
}

void FlightPredictor::agreeingStates(const GatewayState &from, const Flight &flight, bool allowed,
    std::vector<GatewayState> &out) const
{
    GatewayState early, late;
    const bool fromStart = nearestAgreeing(from, flight.earliest, flight.latest, allowed, early);
    const bool fromEnd = nearestAgreeing(from, flight.latest, flight.earliest, allowed, late);
    for (GatewayState *s : {fromStart ? &early : nullptr, fromEnd ? &late : nullptr})
        if (s && std::find(out.begin(), out.end(), *s) == out.end())
            out.push_back(std::move(*s));
}

FlightPredictor::Outcome FlightPredictor::decide(
    const QString &key, const Flight &flight, bool observedAllowed)
{
    const GatewayState fresh = freshState(m_limit);
    Histories &h = m_keys.try_emplace(key, Histories{fresh, {fresh}}).first->second;
    Outcome outcome;
    GatewayState nominal = h.nominal;
    outcome.atSend = qs::decide(m_limit, nominal, flight.sent, m_cost);

    // The nominal history follows the gateway too: from the send if it agrees there, else from
    // the nearest moment of the flight that agrees. It is always one of the possible histories.
    bool nominalFits = outcome.atSend.allowed == observedAllowed;
    if (!nominalFits)
        nominalFits = nearestAgreeing(h.nominal, flight.sent,
            observedAllowed ? flight.latest : flight.earliest, observedAllowed, nominal);
    std::vector<GatewayState> possible;
    if (nominalFits)
        possible.push_back(nominal);
    for (const GatewayState &s : h.possible)
        agreeingStates(s, flight, observedAllowed, possible);
    if (possible.empty()) {
        h = Histories{nominal, {nominal}};
        return outcome;
    }
    outcome.consistent = true;
    // Heirs come in order, each history's earliest before its latest: the front holds the
    // every-request-earliest chain, the back the every-request-latest one. Keep both ends.
    if (possible.size() > kMaxHistories)
        possible.erase(possible.begin() + kMaxHistories / 2,
            possible.end() - std::ptrdiff_t(kMaxHistories / 2));
    if (!nominalFits)
        nominal = possible.front();
    h = Histories{std::move(nominal), std::move(possible)};
    return outcome;
}

} // namespace qs
