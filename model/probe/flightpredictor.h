#pragma once
// The design's decisions for requests whose decision time is known only within bounds: a
// gateway decides a request somewhere between (one tick of its millisecond clock before) the
// send and the response. The algorithms only gain quota with time, so per key it keeps three
// histories, each following what the gateway actually decided:
//   nominal  every request decided at its send (the prediction reported),
//   early    every request decided as early as its flight allows (the most quota left later),
//   late     every request decided as late as its flight allows (the least quota left later).
// An observed admission is consistent when the early history admits at the end of the flight;
// an observed denial when the late history denies at its start. A constant delay shifts a whole
// trace and changes no decision; only the spread between early and late matters, and it stays
// within one flight because each request resets it to its own bounds.
#include "limiter/algorithm.h"

#include <QString>

#include <map>

namespace qs {

struct Flight {
    limiter::Micros sent = 0, earliest = 0, latest = 0;
};

class FlightPredictor {
public:
    FlightPredictor(limiter::AlgorithmConfig config, std::int64_t cost);

    struct Outcome {
        limiter::Decision atSend; // the nominal history's decision at the send
        bool consistent = false; // the observed decision is possible within the flight
    };
    // Decides one request and moves the histories on as the gateway decided. When the observed
    // decision is not possible within the flight, all histories follow the design instead.
    Outcome decide(const QString &key, const Flight &flight, bool observedAllowed);

    // The nominal state of a key (fresh when unseen).
    limiter::AlgorithmState stateOf(const QString &key) const;
    const limiter::AlgorithmConfig &config() const { return m_config; }
    std::int64_t cost() const { return m_cost; }

private:
    struct Histories {
        limiter::AlgorithmState nominal, early, late;
    };
    // The time nearest `from` in [from, to] (either direction) at which deciding on `state`
    // gives `allowed`, and the state after it; false when even `to` does not.
    bool nearestAgreeing(const limiter::AlgorithmState &state, limiter::Micros from,
        limiter::Micros to, bool allowed, limiter::AlgorithmState &out) const;

    limiter::AlgorithmConfig m_config;
    std::int64_t m_cost = 1;
    std::map<QString, Histories> m_keys;
};

} // namespace qs
