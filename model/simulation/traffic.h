#pragma once
// Simulated traffic: seeded, deterministic streams of arrivals (time, client, request line).
//
// Spec syntax (quotactl simulate --traffic, docs/simulation.md):
//   steady:RATE[,clients=N]                      evenly spaced
//   poisson:RATE[,clients=N]                     random (exponential) gaps, same mean
//   bursts:RATE,on=DUR,off=DUR[,clients=N]       RATE while on, silence while off
//   spike:N,window=DUR[,gap=DUR][,clients=N]     N requests just before every window edge and N
//                                                just after (gap apart, default 2s): the fixed
//                                                window's boundary attack
//   ramp:RATE..RATE[,clients=N]                  rate rising linearly over the duration
//   zipf:RATE,clients=N[,s=EXP]                  Poisson arrivals, client popularity Zipf(s),
//                                                default s=1.1
//   replay:FILE                                  an access log: NGINX/Apache combined format or
//                                                CSV `timestamp,method,path,client`
// RATE is a policy rate (100/s, 5/250ms); clients default to 1 (one client's traffic).
// Every synthetic kind takes `,keyless=SHARE` (0..1): that share of requests lacks the route's
// header or query key part, and the route's missing_key decides what happens to them.
#include "limiter/algorithms/rate.h"
#include "model/base/expected.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace qs {

struct Arrival {
    limiter::Micros at = 0; // since the start of the simulation
    std::uint32_t client = 0;
    std::uint32_t request = 0; // index into TrafficSource::requestLines(); 0 for synthetic traffic
};

struct RequestLine {
    QString method;
    QString target;
};

struct ReplayProblem {
    qint64 line = 0;
    QString message;
};

class TrafficSource {
public:
    virtual ~TrafficSource() = default;
    // Appends up to `max` arrivals in time order, none later than `until`; returns how many.
    virtual std::size_t next(std::vector<Arrival> &out, std::size_t max, limiter::Micros until) = 0;
    virtual std::uint32_t clients() const = 0;
    // Distinct request lines (replay); synthetic traffic has none and goes to the chosen route.
    virtual const std::vector<RequestLine> &requestLines() const;
    // Client names for reports (replay: addresses); synthetic clients are "client-<n>".
    virtual QString clientName(std::uint32_t client) const;
    // Replay only: lines skipped as malformed and the first few problems.
    virtual qint64 skippedLines() const { return 0; }
    virtual const std::vector<ReplayProblem> &problems() const;
};

struct TrafficSpec {
    enum class Kind { Steady, Poisson, Bursts, Spike, Ramp, Zipf, Replay };
    Kind kind = Kind::Steady;
    limiter::Rate rate{1, limiter::kMicrosPerSecond};
    limiter::Rate rateTo{1, limiter::kMicrosPerSecond}; // ramp's end
    limiter::Micros on = 0, off = 0, window = 0, gap = 2 * limiter::kMicrosPerSecond;
    qint64 count = 0; // spike: requests on each side of the edge
    std::uint32_t clients = 1;
    double zipfExponent = 1.1;
    double keyless = 0; // share of requests without their key's header or query part
    // plans=free:70/pro:25/enterprise:5: the share of clients on each plan (weights, any scale);
    // empty: every client on the policy's default plan.
    QList<QPair<QString, double>> plans;
    QString file; // replay
    QString text; // as written
};

// The spec, or what is wrong with it.
Expected<TrafficSpec> parseTrafficSpec(const QString &text);

// A fresh source for the spec (the same seed gives the same arrivals), or why a replay file
// cannot be read.
Expected<std::unique_ptr<TrafficSource>> makeTrafficSource(
    const TrafficSpec &spec, std::uint64_t seed, limiter::Micros duration);

} // namespace qs
