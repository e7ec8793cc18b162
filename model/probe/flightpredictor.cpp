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
    limiter::Micros to, bool allowed, GatewayState &out, limiter::Micros *at) const
{
    GatewayState s = state;
    if (qs::decide(m_limit, s, from, m_cost).allowed == allowed) {
        out = std::move(s);
        if (at)
            *at = from;
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
    if (at)
        *at = agrees;
    return true;
}

void FlightPredictor::agreeingStates(const GatewayState &from, const Flight &flight, bool allowed,
    std::vector<GatewayState> &out) const
{
    GatewayState early, late;
    limiter::Micros earliest = 0, latest = 0;
    const bool fromStart
        = nearestAgreeing(from, flight.earliest, flight.latest, allowed, early, &earliest);
    const bool fromEnd
        = nearestAgreeing(from, flight.latest, flight.earliest, allowed, late, &latest);
    const auto keep = [&out](GatewayState &&s) {
        if (std::find(out.begin(), out.end(), s) == out.end())
            out.push_back(std::move(s));
    };
    if (fromStart)
        keep(std::move(early));
    // Moments in between too: the two ends bound every other history, but a later request can
    // rule out both ends and fit one in between (seen with NGINX: its first decision on a key
    // came a few ms into a 7 ms flight, and the earliest and latest chains each failed a
    // different later request). Equal states merge, so a key in debt keeps one.
    if (fromStart && fromEnd)
        for (int i = 1; i <= kInteriorMoments; ++i) {
            GatewayState s = from;
            const limiter::Micros t = earliest + (latest - earliest) * i / (kInteriorMoments + 1);
            if (qs::decide(m_limit, s, t, m_cost).allowed == allowed)
                keep(std::move(s));
        }
    if (fromEnd)
        keep(std::move(late));
}

std::optional<GatewayState> FlightPredictor::resynced(
    const GatewayState &from, const Flight &flight, bool allowed) const
{
    GatewayState out;
    const bool found = allowed
        ? nearestAgreeing(from, flight.latest, flight.latest + kResyncReach, allowed, out)
        : nearestAgreeing(from, flight.earliest, flight.earliest - kResyncReach, allowed, out);
    return found ? std::optional<GatewayState>(std::move(out)) : std::nullopt;
}

// Keeps both ends and histories evenly spread between them.
void FlightPredictor::thin(std::vector<GatewayState> &histories)
{
    std::vector<GatewayState> kept;
    kept.reserve(kMaxHistories);
    for (std::size_t i = 0; i < kMaxHistories; ++i)
        kept.push_back(std::move(histories[i * (histories.size() - 1) / (kMaxHistories - 1)]));
    histories = std::move(kept);
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
        const GatewayState next = resynced(h.nominal, flight, observedAllowed).value_or(nominal);
        h = Histories{next, {next}};
        return outcome;
    }
    outcome.consistent = true;
    // Heirs come in order, each history's earliest before its latest, after the nominal
    // history when it fits: the back holds the every-request-latest chain, the front the
    // nominal one or else the every-request-earliest. Thinning keeps both ends.
    if (possible.size() > kMaxHistories)
        thin(possible);
    if (!nominalFits)
        nominal = possible.front();
    h = Histories{std::move(nominal), std::move(possible)};
    return outcome;
}

} // namespace qs
