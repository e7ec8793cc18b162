#pragma once
// The design's decisions for requests whose decision time is known only within bounds: a
// gateway decides a request somewhere between (one tick of its clock before) the send and the
// response. Per key the predictor keeps
//   the nominal history: every request decided at its send (the prediction reported), and
//   the possible histories: the states the key can be in, given what the gateway actually
//   decided, when each request was decided at some moment of its flight.
// An observed decision is consistent when one possible history gives it somewhere in the
// flight. Each request is tried at both ends of its flight and where the decision flips in
// between (found by bisection), and at kInteriorMoments moments between those two: for the
// engine's algorithms, which only gain quota with time, the earliest and latest histories bound
// every other, but two later requests can rule out one end each and leave only a history in
// between. HAProxy's two-period counter is not monotone that way either. The nominal history is
// always in the set (at ties, where the decision flips exactly at the send, it can be the only
// one that fits). Equal states are merged and the set is thinned to kMaxHistories evenly,
// keeping the always-earliest and always-latest chains at its two ends.
// A constant delay shifts a whole trace and changes no decision; only the flight's spread
// matters.
#include "model/export/gatewaylimit.h"

#include <QString>

#include <map>
#include <optional>
#include <vector>

namespace qs {

struct Flight {
    limiter::Micros sent = 0, earliest = 0, latest = 0;
};

class FlightPredictor {
public:
    static constexpr std::size_t kMaxHistories = 16;
    static constexpr int kInteriorMoments = 6;

    FlightPredictor(GatewayLimit limit, std::int64_t cost);

    struct Outcome {
        limiter::Decision atSend; // the nominal history's decision at the send
        bool consistent = false; // the observed decision is possible within the flight
    };
    // How far beyond its flight a decision is looked for when none inside it gives the
    // gateway's (see decide()).
    static constexpr limiter::Micros kResyncReach = limiter::kMicrosPerSecond;

    // Decides one request and moves the histories on as the gateway decided. When the observed
    // decision is not possible within the flight, the key goes on from the nearest moment
    // outside it (up to kResyncReach) that gives the gateway's decision: a gateway whose clock
    // lagged (NGINX reads the time once per pass of its event loop, so a worker that lost the
    // CPU decides the next requests on a clock from before they were sent) then costs one
    // divergence instead of shifting every decision after it by one request. Only when no such
    // moment exists does every history follow the design.
    Outcome decide(const QString &key, const Flight &flight, bool observedAllowed);

    // A key's histories, to try another order of two requests and go back if it fits worse.
    struct Snapshot;
    Snapshot save(const QString &key) const;
    void restore(const QString &key, const Snapshot &snapshot);

    // The nominal state of a key (fresh when unseen).
    GatewayState stateOf(const QString &key) const;
    const GatewayLimit &limit() const { return m_limit; }
    std::int64_t cost() const { return m_cost; }

private:
    struct Histories {
        GatewayState nominal;
        std::vector<GatewayState> possible;
    };
    // The states after deciding `from` at the moments of the flight that give `allowed`: the
    // earliest and the latest such moment (one state when they coincide), none when no moment
    // does.
    void agreeingStates(const GatewayState &from, const Flight &flight, bool allowed,
        std::vector<GatewayState> &out) const;
    // The state after the gateway's decision at the nearest moment beyond the flight that gives
    // it, or none within kResyncReach.
    std::optional<GatewayState> resynced(
        const GatewayState &from, const Flight &flight, bool allowed) const;
    // The moment nearest `from` in [from, to] (either direction) at which deciding on `state`
    // gives `allowed`, and the state after it (the moment in `at`, when given); false when even
    // `to` does not.
    bool nearestAgreeing(const GatewayState &state, limiter::Micros from, limiter::Micros to,
        bool allowed, GatewayState &out, limiter::Micros *at = nullptr) const;
    static void thin(std::vector<GatewayState> &histories);

    GatewayLimit m_limit;
    std::int64_t m_cost = 1;
    std::map<QString, Histories> m_keys;

public:
    struct Snapshot {
        std::optional<Histories> histories; // unset: the key was unseen
    };
};

} // namespace qs
