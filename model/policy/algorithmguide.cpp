#include "model/policy/algorithmguide.h"

#include <QCoreApplication>

namespace qs {

namespace {
QString tr(const char *text)
{
    return QCoreApplication::translate("AlgorithmGuide", text);
}
} // namespace

AlgorithmGuide algorithmGuide(limiter::Algorithm algorithm)
{
    using limiter::Algorithm;
    switch (algorithm) {
    case Algorithm::TokenBucket:
        return {tr("Token bucket"),
            tr("Over any interval d, admits at most capacity + refill × d."),
            tr("A full bucket lets `capacity` requests through at once; afterwards one per "
               "refill interval. Idle clients save up to capacity, never more."),
            tr("Engine: 47 bytes per key. Redis: one string, ~120 bytes."),
            tr("The default for APIs: generous to bursty but honest clients, strict on "
               "sustained abuse. NGINX, Envoy and Traefik express it exactly.")};
    case Algorithm::LeakyBucket:
        return {tr("Leaky bucket"),
            tr("Requests leave at most one per 1/rate; at most `queue` wait."),
            tr("Police mode rejects what does not fit in the queue; shape mode admits it with "
               "a delay until its departure time, so the upstream sees a smooth stream."),
            tr("Engine: one timestamp per key. Redis: one string, ~72 bytes."),
            tr("Protecting an upstream that cannot take bursts (payments, legacy systems); "
               "shape mode when delaying beats rejecting.")};
    case Algorithm::FixedWindow:
        return {tr("Fixed window"),
            tr("At most `limit` per window, windows aligned to the Unix epoch."),
            tr("A client can send `limit` just before a boundary and `limit` just after: up "
               "to 2 × limit within moments. Counters reset all at once."),
            tr("Engine: 47 bytes per key. Redis: one string, ~104 bytes."),
            tr("Quotas people read on an invoice (1000 per hour, per day), where the boundary "
               "spike does not hurt. Kong and Envoy's rate limit service count this way.")};
    case Algorithm::SlidingWindowLog:
        return {tr("Sliding window log"),
            tr("At most `limit` in ANY window of the given length: exact."),
            tr("No boundary spike; a burst of `limit` is possible, then each slot frees "
               "exactly one window after it was used."),
            tr("One entry per admitted request: ~118 bytes each in Redis (118 KB per key at "
               "1000/window)."),
            tr("Small limits that must be exact (logins, password resets). Avoid for large "
               "limits: memory grows with the limit.")};
    case Algorithm::SlidingWindowCounter:
        return {tr("Sliding window counter"),
            tr("Estimate = current + previous × (1 − elapsed fraction) must stay ≤ limit."),
            tr("Smooths the fixed window's boundary spike at the cost of two counters; "
               "assumes the previous window's requests were spread evenly."),
            tr("Engine: 47 bytes per key. Redis: one string, ~104 bytes."),
            tr("Large per-window quotas where the log would be too big and the fixed window "
               "too spiky. HAProxy's http_req_rate works this way.")};
    case Algorithm::Gcra:
        return {tr("GCRA"),
            tr("Over any interval d, admits at most burst + rate × d (a token bucket's "
               "guarantee, kept as one timestamp)."),
            tr("Up to `burst` at once, then one per 1/rate; answers exactly when the next "
               "request will fit (Retry-After)."),
            tr("Engine: 35 bytes per key. Redis: one string, ~72 bytes (the smallest)."),
            tr("Token-bucket behaviour with the least state and the cheapest Redis script; "
               "great for very many keys.")};
    }
    return {};
}

} // namespace qs
