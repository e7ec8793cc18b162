#pragma once
// The rate-limit headers of one HTTP response, parsed: Retry-After (seconds or an HTTP date),
// the IETF draft's RateLimit / RateLimit-Policy (both the structured form `name;r=3;t=5` of
// draft 08+ and the older `limit=10, remaining=3, reset=5`), and X-RateLimit-*. What a header
// held but could not be read as is kept as a problem, not silently dropped.
#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <optional>

namespace qs {

struct ObservedHeaders {
    std::optional<qint64> retryAfterS;
    std::optional<qint64> limit, remaining, resetS; // RateLimit or X-RateLimit-*
    std::optional<qint64> policyQuota, policyWindowS; // RateLimit-Policy q= and w=
    QStringList problems; // "RateLimit: no r= parameter in '…'"
    QString raw; // the rate-limit headers as received, one "Name: value" per line
};

using RawHeaders = QList<QPair<QByteArray, QByteArray>>;

// `nowEpochS` turns an HTTP-date Retry-After into seconds.
ObservedHeaders parseRateLimitHeaders(const RawHeaders &headers, qint64 nowEpochS);

} // namespace qs
