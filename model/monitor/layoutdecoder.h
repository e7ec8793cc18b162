#pragma once
// How the monitor reads one route's keys: which keys belong to it (a SCAN MATCH glob, then an
// exact check), which read commands one key takes, and how their replies become a KeyQuota.
// One implementation per layout — Quota Studio's own and each preset of model/policy/
// layoutpreset.h — all behind this interface, as Tiled's file formats share one. Decoders never
// carry an algorithm's arithmetic: they turn what they read into the limiter's state types and
// ask the limiter's own peek().
#include "limiter/algorithms/algorithm.h"
#include "model/base/expected.h"
#include "model/monitor/keyquota.h"
#include "model/monitor/respvalue.h"
#include "model/policy/policy.h"

#include <QByteArray>
#include <QList>

#include <memory>

namespace qs {

using Command = QList<QByteArray>;

class LayoutDecoder {
public:
    virtual ~LayoutDecoder() = default;

    // The SCAN MATCH glob of this route's keys.
    virtual QByteArray scanPattern() const = 0;
    // The glob one SCAN shares with other routes' layouts (Quota Studio's own keys: the prefix),
    // so that the keyspace is walked once for all of them; accepts() sorts the keys out.
    virtual QByteArray scanGroupPattern() const { return scanPattern(); }
    // Whether a key SCAN returned really is one of this route's (a glob cannot say everything).
    virtual bool accepts(const QByteArray &key) const = 0;
    // The read-only commands one key takes, sent together in a pipeline.
    virtual QList<Command> reads(const QByteArray &key) const = 0;
    // Their replies, in order, decoded at the server's time `nowUs` (µs since the Unix epoch).
    virtual KeyQuota decode(
        const QByteArray &key, const QList<RespValue> &replies, qint64 nowUs) const = 0;
};

// The decoder of a route: its layout's preset when `redis.layouts` names the route, Quota
// Studio's own keys otherwise. A text when the route cannot be monitored (its limit is invalid).
// `limitIndex`: which limit of a route with several, or of a route whose numbers differ by plan
// (Quota Studio's keys of that limit); `plan`: which plan of a limit whose numbers differ by
// plan (its keys and numbers).
Expected<std::unique_ptr<LayoutDecoder>> makeLayoutDecoder(const Policy &policy, const Route &route,
    qsizetype limitIndex = -1, const QString &plan = QString());

// Shared by the decoders: the limiter's peek() on a state, as a KeyQuota. `cost` decides
// "throttled": a request of that cost would be refused now.
KeyQuota quotaFromState(const limiter::AlgorithmConfig &config,
    const limiter::AlgorithmState &state, qint64 nowUs, qint64 cost, qint64 ttlMs);

// Reply helpers: a number from a bulk string or integer reply (nullopt otherwise), and the text
// saying what a reply is when it is not what a decoder expected.
std::optional<double> replyNumber(const RespValue &reply);
QString replyKind(const RespValue &reply);

} // namespace qs
