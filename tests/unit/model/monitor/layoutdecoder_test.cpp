// The monitor's decoders, fed the exact replies Redis gives for keys written the way each system
// writes them. Expected figures come from each project's own formula (../shared/REDIS-LAYOUTS.md
// and the sources named in docs/monitoring.md), computed here by hand — not from the decoder's
// code path — and Quota Studio's own keys are checked against the engine deciding the same trace.
#include "limiter/redis/keylayout.h"
#include "limiter/redis/packeddoubles.h"
#include "model/policy/limitconversion.h"
#include "tests/unit/model/monitor/monitortestutil.h"

#include <cmath>

using namespace qs;
using namespace qs::test;
using limiter::Micros;

namespace {

constexpr qint64 kNow = 1'760'000'000'123'456; // µs, a Redis TIME

const QByteArray kPolicy = R"(quota_studio: 1
name: t
redis:
  layouts:
    - { route: tutorial, key: "rate_limit:{key}", fields: { updated_at: last_updated }, time_unit: s }
    - { route: tutorial-ms, preset: tutorial-hash, key: "bucket:{key}", fields: { tokens: t, updated_at: ts } }
    - { route: pylimits, preset: python-limits }
    - { route: pymoving, preset: python-limits }
    - { route: kong, preset: kong }
    - { route: envoy, preset: envoy-ratelimit, key: "apis_remote_address_{key}" }
    - { route: goredis, preset: redis_rate }
    - { route: spring, preset: spring-cloud-gateway }
    - { route: express, preset: express-rate-limit }
    - { route: seed, key: "seed:{key}", time_unit: s }
    - { route: seed-continuous, key: "cont:{key}", time_unit: s, refill: continuous }
    - { route: seed-per-unit, key: "unit:{key}", time_unit: s, refill: per_unit }
routes:
  - { id: own-tb, match: { path: /a }, limit: { algorithm: token_bucket, capacity: 10, refill: 2/s } }
  - { id: own-lb, match: { path: /b }, limit: { algorithm: leaky_bucket, rate: 5/s, queue: 20 } }
  - { id: own-fw, match: { path: /c }, limit: { algorithm: fixed_window, limit: 7, window: 10s } }
  - { id: own-month, match: { path: /cm }, limit: { algorithm: fixed_window, limit: 7, calendar: month, time_zone: Europe/Berlin } }
  - { id: own-swl, match: { path: /d }, limit: { algorithm: sliding_window_log, limit: 4, window: 2s } }
  - { id: own-swc, match: { path: /e }, limit: { algorithm: sliding_window_counter, limit: 9, window: 1m } }
  - { id: own-gcra, match: { path: /f }, limit: { algorithm: gcra, rate: 10/s, burst: 20 } }
  - { id: tutorial, match: { path: /g }, limit: { algorithm: token_bucket, capacity: 10, refill: 1/s } }
  - { id: tutorial-ms, match: { path: /h }, limit: { algorithm: token_bucket, capacity: 100, refill: 10/s } }
  - { id: pylimits, match: { path: /i }, limit: { algorithm: fixed_window, limit: 1, window: 1s } }
  - { id: pymoving, match: { path: /j }, limit: { algorithm: sliding_window_log, limit: 1, window: 1s } }
  - { id: kong, match: { path: /k }, limit: { algorithm: fixed_window, limit: 5, window: 1m } }
  - { id: envoy, match: { path: /l }, limit: { algorithm: fixed_window, limit: 10, window: 1m } }
  - { id: goredis, match: { path: /m }, limit: { algorithm: gcra, rate: 10/s, burst: 10 } }
  - { id: spring, match: { path: /n }, limit: { algorithm: token_bucket, capacity: 20, refill: 10/s } }
  - { id: express, match: { path: /o }, limit: { algorithm: fixed_window, limit: 100, window: 15m } }
  - { id: seed, match: { path: /p }, limit: { algorithm: token_bucket, capacity: 10, refill: 2/s } }
  - { id: seed-continuous, match: { path: /q }, limit: { algorithm: token_bucket, capacity: 10, refill: 2/s } }
  - { id: seed-per-unit, match: { path: /r }, limit: { algorithm: token_bucket, capacity: 10, refill: 2/s } }
)";

const Policy &policy()
{
    static const Policy p = policyOf(kPolicy);
    return p;
}

KeyQuota decode(
    const QString &route, const QByteArray &key, const QList<RespValue> &replies, qint64 now = kNow)
{
    auto d = decoderOf(policy(), route);
    EXPECT_TRUE(d->accepts(key)) << key.toStdString();
    return d->decode(key, replies, now);
}

QByteArray packed(std::initializer_list<double> values)
{
    const std::vector<double> v(values);
    return QByteArray::fromStdString(limiter::packDoubles(v));
}

} // namespace

// Quota Studio's own keys: the engine decides a trace on its own state; the same state packed
// as the scripts pack it must decode to the engine's peek at every algorithm.
TEST(LayoutDecoder, OwnKeysReadAsTheEngineDecides)
{
    for (const QString id :
        {"own-tb", "own-lb", "own-fw", "own-month", "own-swc", "own-gcra", "own-swl"}) {
        SCOPED_TRACE(id.toStdString());
        const Route &route = *policy().route(id);
        const auto config = *toAlgorithmConfig(route.limit());
        limiter::AlgorithmState state = limiter::freshState(config);
        Micros t = kNow - 3'000'000;
        for (int i = 0; i < 12; ++i, t += 97'000)
            limiter::decide(config, state, t, 1);
        const limiter::Quota expected = limiter::peek(config, state, kNow);
        QList<RespValue> replies;
        std::visit(
            [&](const auto &s) {
                using S = std::decay_t<decltype(s)>;
                if constexpr (std::is_same_v<S, limiter::TokenBucketState>)
                    replies << bulk(packed({s.tokens, double(s.updatedAt)}));
                else if constexpr (std::is_same_v<S, limiter::LeakyBucketState>)
                    replies << bulk(packed({double(s.nextFree)}));
                else if constexpr (std::is_same_v<S, limiter::GcraState>)
                    replies << bulk(packed({double(s.tat)}));
                else if constexpr (std::is_same_v<S, limiter::FixedWindowState>)
                    replies << bulk(packed({double(s.windowStart), double(s.count)}));
                else if constexpr (std::is_same_v<S, limiter::SlidingWindowCounterState>)
                    replies << bulk(
                        packed({double(s.windowStart), double(s.current), double(s.previous)}));
                else {
                    QList<RespValue> pairs;
                    for (size_t k = s.head; k < s.stamps.size(); ++k)
                        pairs << bulk(
                            QByteArray::number(s.stamps[k]) + ":" + QByteArray::number(int(k)))
                              << bulk(QByteArray::number(s.stamps[k]));
                    replies << array(pairs);
                }
            },
            state);
        const KeyQuota q = decode(id, "qs:" + id.toUtf8() + ":203.0.113.7", replies);
        ASSERT_EQ(q.status, KeyQuota::Status::Read) << q.why.toStdString();
        EXPECT_EQ(q.limit, expected.limit);
        EXPECT_EQ(q.remaining, std::max<qint64>(0, expected.remaining));
        EXPECT_EQ(q.resetAfterMs, (expected.resetAfter + 999) / 1000);
        EXPECT_EQ(q.throttled, expected.remaining < 1);
        EXPECT_EQ(q.ttlMs, KeyQuota::kTtlNotRead) << "one command per key: no PTTL";
        if (id == QLatin1String("own-month")) { // 2025-11-01 00:00 in Berlin: 10-31 23:00 UTC
            EXPECT_EQ(q.resetAfterMs, (1'761'951'600'000'000 - kNow + 999) / 1000);
        }
    }
}

TEST(LayoutDecoder, OwnKeysAreTheRoutesAndNotItsMetrics)
{
    auto d = decoderOf(policy(), QStringLiteral("own-tb"));
    EXPECT_EQ(d->scanPattern(), "qs:own-tb:*");
    EXPECT_EQ(d->scanGroupPattern(), "qs:*") << "one SCAN walks the keyspace for every route";
    EXPECT_TRUE(d->accepts("qs:own-tb:2001:db8::1"));
    EXPECT_FALSE(d->accepts("qs:own-tb:~metrics:1760000000"));
    EXPECT_FALSE(d->accepts("qs:own-tb:"));
    EXPECT_FALSE(d->accepts("qs:own-tbx:1"));
    // What the backend writes, built by the shared layout: read; its metrics: not.
    const std::string route = limiter::keylayout::routePrefix("qs", "own-tb");
    EXPECT_TRUE(d->accepts(QByteArray::fromStdString(limiter::keylayout::stateKey(route, "c"))));
    EXPECT_FALSE(
        d->accepts(QByteArray::fromStdString(limiter::keylayout::metricsKey(route, 1760000000))));
    EXPECT_EQ(d->reads("qs:own-tb:k"), (QList<Command>{{"GET", "qs:own-tb:k"}}))
        << "one command per key: the state says when it resets";
}

// A bad key says what is wrong with it, in words; the scripts' corruption rules apply.
TEST(LayoutDecoder, UnreadableKeysSayWhy)
{
    const auto why = [](const QString &route, const RespValue &value) {
        const KeyQuota q = decode(route, "qs:" + route.toUtf8() + ":x", {value, integer(-1)});
        EXPECT_EQ(q.status, KeyQuota::Status::Unreadable);
        return q.why.toStdString();
    };
    EXPECT_EQ(why("own-tb", bulk("abc")), "3 bytes, expected a 16-byte token bucket");
    EXPECT_EQ(why("own-fw", bulk(packed({double(kNow), 2.5}))),
        "a value out of range in the fixed window (negative, NaN, fractional or beyond 4e15)");
    EXPECT_EQ(why("own-gcra", bulk(packed({std::nan("")}))),
        "a value out of range in the schedule (negative, NaN, fractional or beyond 4e15)");
    RespValue wrongType
        = RespValue::error("WRONGTYPE Operation against a key holding the wrong kind of value");
    EXPECT_EQ(why("own-tb", wrongType), "expected a string, found a key of another Redis type");
    EXPECT_EQ(why("own-swl", bulk("x")), "expected a sorted set, found 'x'");
    // Gone is not unreadable: a key that expired between SCAN and GET is simply dropped.
    EXPECT_EQ(decode("own-tb", "qs:own-tb:x", {nil(), integer(-2)}).status, KeyQuota::Status::Gone);
}

// tutorial-hash: tokens now = min(cap, tokens + (now - ts) * rate).
TEST(LayoutDecoder, TutorialHashInSecondsAndMilliseconds)
{
    // 3 tokens 2.5 s ago at 1/s: 5.5 now, 5 whole; full (10) after 4.5 s more.
    const double ts = double(kNow - 2'500'000) / 1e6;
    KeyQuota q = decode("tutorial", "rate_limit:alice",
        {array({bulk("3"), bulk(QByteArray::number(ts, 'f', 6))}), integer(3'600'000)});
    ASSERT_EQ(q.status, KeyQuota::Status::Read) << q.why.toStdString();
    EXPECT_EQ(q.limit, 10);
    EXPECT_EQ(q.remaining, 5);
    EXPECT_EQ(q.resetAfterMs, 4500);
    EXPECT_FALSE(q.throttled);
    // Field names and unit of another copy: t and ts in ms, told by magnitude. 0.25 tokens 10 ms
    // ago at 10/s: 0.35, so the next request is refused.
    q = decode("tutorial-ms", "bucket:bob",
        {array({bulk("0.25"), bulk(QByteArray::number((kNow - 10'000) / 1000))}), integer(-1)});
    ASSERT_EQ(q.status, KeyQuota::Status::Read) << q.why.toStdString();
    EXPECT_EQ(q.remaining, 0);
    EXPECT_TRUE(q.throttled);
    EXPECT_EQ(decoderOf(policy(), "tutorial-ms")->reads("bucket:bob").first(),
        (Command{"HMGET", "bucket:bob", "t", "ts"}));
    // A hash with one of the two fields is unreadable, and says which.
    q = decode("tutorial", "rate_limit:carol", {array({bulk("3"), nil()}), integer(-1)});
    EXPECT_EQ(q.status, KeyQuota::Status::Unreadable);
    EXPECT_EQ(q.why.toStdString(), "field 'last_updated' is nothing (nil), not a time");
}

// python-limits: the limit is in the key; fixed window: remaining = max(0, amount - v),
// reset = TTL; moving window: count of entries >= now - expiry, reset = newest + expiry.
TEST(LayoutDecoder, PythonLimitsFixedAndMovingWindows)
{
    KeyQuota q = decode(
        "pylimits", "LIMITER/203.0.113.7/app.home/10/2/minute", {bulk("4"), integer(75'000)});
    ASSERT_EQ(q.status, KeyQuota::Status::Read) << q.why.toStdString();
    EXPECT_EQ(q.limit, 10);
    EXPECT_EQ(q.remaining, 6);
    EXPECT_EQ(q.resetAfterMs, 75'000);
    q = decode("pylimits", "LIMITER/k/3/1/second", {bulk("5"), integer(400)}); // over: counted on
    EXPECT_EQ(q.remaining, 0);
    EXPECT_TRUE(q.throttled);
    // Moving window, newest first: 3 of 4 entries are within the last 10 s.
    const auto secondsAgo
        = [](double s) { return bulk(QByteArray::number((double(kNow) / 1e6) - s, 'f', 6)); };
    q = decode("pymoving", "LIMITER/k/5/10/second",
        {array({secondsAgo(1.5), secondsAgo(4), secondsAgo(9), secondsAgo(12)}), integer(9000)});
    ASSERT_EQ(q.status, KeyQuota::Status::Read) << q.why.toStdString();
    EXPECT_EQ(q.limit, 5);
    EXPECT_EQ(q.remaining, 2);
    EXPECT_EQ(q.resetAfterMs, 8500);
    EXPECT_FALSE(decoderOf(policy(), "pylimits")->accepts("LIMITER/k/ten/1/minute"));
}

// kong: remaining = max(0, limit - v), reset = period start + period length; past periods gone.
TEST(LayoutDecoder, KongReadsThePeriodFromTheKeyNotTheTtl)
{
    const qint64 minuteStartMs = (kNow / 1000) / 60'000 * 60'000;
    const QByteArray key = "ratelimit:" + QByteArray(36, 'a') + ":" + QByteArray(36, '0')
        + ":2001:db8::7:" + QByteArray::number(minuteStartMs) + ":minute";
    KeyQuota q = decode("kong", key, {bulk("3")});
    ASSERT_EQ(q.status, KeyQuota::Status::Read) << q.why.toStdString();
    EXPECT_EQ(q.limit, 5);
    EXPECT_EQ(q.remaining, 2);
    EXPECT_EQ(q.resetAfterMs, ((minuteStartMs + 60'000) * 1000 - kNow + 999) / 1000);
    const QByteArray old = "ratelimit:" + QByteArray(36, 'a') + ":" + QByteArray(36, '0')
        + ":ip:" + QByteArray::number(minuteStartMs - 60'000) + ":minute";
    EXPECT_EQ(decode("kong", old, {bulk("9")}).status, KeyQuota::Status::Gone);
}

// Kong's months and years follow the UTC calendar (kong/tools/timestamp.lua), not 30 and 365
// days: October 2025's counter still holds on the 31st and resets on November 1st; 2024's
// (a leap year) still holds on December 31st.
TEST(LayoutDecoder, KongMonthsAndYearsEndWhereTheCalendarSays)
{
    const QByteArray prefix
        = "ratelimit:" + QByteArray(36, 'a') + ":" + QByteArray(36, '0') + ":ip:";
    const qint64 october = 1'759'276'800'000; // 2025-10-01 00:00 UTC, ms
    const qint64 november = 1'761'955'200'000;
    const qint64 october31Noon = (november - 12 * 3'600'000) * 1000; // µs
    KeyQuota q = decode(
        "kong", prefix + QByteArray::number(october) + ":month", {bulk("3")}, october31Noon);
    ASSERT_EQ(q.status, KeyQuota::Status::Read) << q.why.toStdString();
    EXPECT_EQ(q.remaining, 2);
    EXPECT_EQ(q.resetAfterMs, 12 * 3'600'000);
    EXPECT_EQ(decode("kong", prefix + QByteArray::number(october) + ":month", {bulk("3")},
                  november * 1000)
                  .status,
        KeyQuota::Status::Gone);
    const qint64 year2024 = 1'704'067'200'000; // 2024-01-01 00:00 UTC
    const qint64 year2025 = 1'735'689'600'000;
    q = decode("kong", prefix + QByteArray::number(year2024) + ":year", {bulk("4")},
        (year2025 - 3'600'000) * 1000);
    ASSERT_EQ(q.status, KeyQuota::Status::Read) << q.why.toStdString();
    EXPECT_EQ(q.resetAfterMs, 3'600'000);
    EXPECT_FALSE(decoderOf(policy(), "kong")->accepts(prefix + "1000:week"));
}

// envoy-ratelimit: epoch-aligned windows named by their start second.
TEST(LayoutDecoder, EnvoyRatelimitWindowInTheKey)
{
    const qint64 start = kNow / 1'000'000 / 60 * 60;
    const KeyQuota q = decode("envoy", "apis_remote_address_10.1.2.3_" + QByteArray::number(start),
        {bulk("10"), integer(200'000)});
    ASSERT_EQ(q.status, KeyQuota::Status::Read) << q.why.toStdString();
    EXPECT_EQ(q.remaining, 0);
    EXPECT_TRUE(q.throttled);
    EXPECT_EQ(q.resetAfterMs, ((start + 60) * 1'000'000 - kNow + 999) / 1000);
}

// redis_rate: tat' = v (s since 2017); remaining = clamp(floor(burst - (tat' - now')/T), 0, burst).
TEST(LayoutDecoder, RedisRateGcraSince2017)
{
    const double nowPrime = double(kNow) / 1e6 - 1483228800.0;
    const double tat = nowPrime + 0.35; // T = 0.1 s: 3.5 intervals of backlog
    const KeyQuota q
        = decode("goredis", "rate:user:42", {bulk(QByteArray::number(tat, 'f', 6)), integer(1000)});
    ASSERT_EQ(q.status, KeyQuota::Status::Read) << q.why.toStdString();
    EXPECT_EQ(q.limit, 10);
    EXPECT_EQ(q.remaining, qint64(std::floor(10 - 3.5)));
    EXPECT_EQ(q.resetAfterMs, 350);
}

// spring-cloud-gateway: tokens now = min(burst, tokens + (now - ts) * rate), ts in seconds.
TEST(LayoutDecoder, SpringCloudGatewayTwoKeys)
{
    const QByteArray tokens = "request_rate_limiter.{route1.alice}.tokens";
    auto d = decoderOf(policy(), "spring");
    EXPECT_EQ(d->scanPattern(), "request_rate_limiter.*.tokens");
    EXPECT_EQ(d->reads(tokens).first(),
        (Command{"MGET", tokens, "request_rate_limiter.{route1.alice}.timestamp"}));
    // The script's clock is whole seconds: 1 s after the last update (and 0.12 s into the next
    // second) it grants 2 + 1 * 10 tokens, not 2 + 1.12 * 10.
    const qint64 ts = kNow / 1'000'000 - 1;
    const KeyQuota q = decode(
        "spring", tokens, {array({bulk("2"), bulk(QByteArray::number(ts))}), integer(4000)});
    ASSERT_EQ(q.status, KeyQuota::Status::Read) << q.why.toStdString();
    EXPECT_EQ(q.remaining, 12);
    // Full (20) when 8 more have arrived: at ts + 2 s, a whole second.
    EXPECT_EQ(q.resetAfterMs, ((ts + 2) * 1'000'000 - kNow + 999) / 1000);
}

// The seed's script: `now = int(time.time())`, tokens = min(cap, tokens + (now - last) * rate).
// It refills by whole seconds: 0.7 s into a second it grants what the bucket held at its start.
TEST(LayoutDecoder, TutorialHashRefillsByWholeSecondsAsTheScriptDoes)
{
    const qint64 second = kNow / 1'000'000;
    const qint64 now = second * 1'000'000 + 700'000;
    const auto hash = [](const char *tokens, qint64 updated) {
        return QList<RespValue>{
            array({bulk(tokens), bulk(QByteArray::number(updated))}), integer(3'600'000)};
    };
    // Emptied in this second: refused until the next one, whatever a continuous refill says
    // (1.4 tokens by now at 2/s).
    KeyQuota q = decode("seed", "seed:a", hash("0", second), now);
    ASSERT_EQ(q.status, KeyQuota::Status::Read) << q.why.toStdString();
    EXPECT_EQ(q.remaining, 0);
    EXPECT_TRUE(q.throttled);
    EXPECT_EQ(q.resetAfterMs, 4300); // 10 tokens at 2/s: full at second + 5
    // 3 tokens two seconds ago: 3 + 2 * 2 = 7 (continuous: 8.4). Full once 1.5 s of refill
    // have passed since this second began: at the second after next (9, then 10).
    q = decode("seed", "seed:b", hash("3", second - 2), now);
    EXPECT_EQ(q.remaining, 7);
    EXPECT_EQ(q.resetAfterMs, 1300);
    // `refill: continuous` says otherwise for a deployment whose clock is fractional.
    q = decode("seed-continuous", "cont:b", hash("3", second - 2), now);
    EXPECT_EQ(q.remaining, 8);
    EXPECT_EQ(q.resetAfterMs, 800);
    // Unset, a fractional stored time means a fractional clock; `per_unit` floors anyway.
    const QList<RespValue> fractional{
        array({bulk("3"), bulk(QByteArray::number(double(now) / 1e6 - 2.2, 'f', 6))}), integer(-1)};
    EXPECT_EQ(decode("seed", "seed:c", fractional, now).remaining, 7); // 3 + 2.2 * 2
    EXPECT_EQ(decode("seed-per-unit", "unit:c", fractional, now).remaining, 6); // 3 + 1.5 * 2
}

// Values no deployment writes: NaN or infinite tokens, a last update in the future.
TEST(LayoutDecoder, NonFiniteTokensAndFutureClocksAreUnreadable)
{
    const qint64 second = kNow / 1'000'000;
    for (const char *bad : {"nan", "inf", "-inf", "NaN"}) {
        SCOPED_TRACE(bad);
        const KeyQuota q = decode(
            "seed", "seed:a", {array({bulk(bad), bulk(QByteArray::number(second))}), integer(-1)});
        EXPECT_EQ(q.status, KeyQuota::Status::Unreadable);
        EXPECT_EQ(decode("seed", "seed:a", {array({bulk("3"), bulk(bad)}), integer(-1)}).status,
            KeyQuota::Status::Unreadable);
        EXPECT_EQ(decode("spring", "request_rate_limiter.{x}.tokens",
                      {array({bulk(bad), bulk(QByteArray::number(second))}), integer(-1)})
                      .status,
            KeyQuota::Status::Unreadable);
    }
    // A clock 8.2e9 s ahead is not a deployment's; two seconds ahead is a host's skew.
    KeyQuota q = decode("seed", "seed:a",
        {array({bulk("0"), bulk(QByteArray::number(second + 8'200'000'000))}), integer(-1)});
    EXPECT_EQ(q.status, KeyQuota::Status::Unreadable);
    EXPECT_TRUE(q.why.contains("ahead of the server's clock")) << q.why.toStdString();
    q = decode(
        "seed", "seed:a", {array({bulk("0"), bulk(QByteArray::number(second + 2))}), integer(-1)});
    EXPECT_EQ(q.status, KeyQuota::Status::Read);
    EXPECT_TRUE(q.throttled);
}

// express-rate-limit: remaining = max(0, limit - v), reset = PTTL.
TEST(LayoutDecoder, ExpressRateLimitCounterWithPttl)
{
    const KeyQuota q
        = decode("express", "rl:2001:db8:abcd:1200::/56", {bulk("42"), integer(61'000)});
    ASSERT_EQ(q.status, KeyQuota::Status::Read) << q.why.toStdString();
    EXPECT_EQ(q.limit, 100);
    EXPECT_EQ(q.remaining, 58);
    EXPECT_EQ(q.resetAfterMs, 61'000);
    const KeyQuota noTtl = decode("express", "rl:x", {bulk("1"), integer(-1)});
    EXPECT_EQ(noTtl.status, KeyQuota::Status::Unreadable);
}

TEST(LayoutDecoder, KeyTemplatesEscapeGlobCharacters)
{
    const Policy p = policyOf(R"(quota_studio: 1
name: t
redis: { layouts: [ { route: r, preset: express-rate-limit, key: "rl[*]?:{key}" } ] }
routes:
  - { id: r, match: { path: /a }, limit: { algorithm: fixed_window, limit: 1, window: 1s } }
)");
    auto d = decoderOf(p, "r");
    EXPECT_EQ(d->scanPattern(), "rl\\[\\*\\]\\?:*");
    EXPECT_TRUE(d->accepts("rl[*]?:x"));
    EXPECT_FALSE(d->accepts("rlx*]?:x"));
}
