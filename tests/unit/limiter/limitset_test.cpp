// Several limits on one request: admitted only if every enforced limit admits, nothing taken
// from any limit when one denies, the longest wait named, shadow limits reported and never
// denying. Known traces, then random traces against the rule computed the obvious way (copies of
// every state, restored on a denial).
#include "limiter/algorithms/limitset.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace qs::limiter;

namespace {

constexpr Micros T0 = 1'700'000'040LL * kMicrosPerSecond;

struct Set {
    std::vector<AlgorithmConfig> configs;
    std::vector<AlgorithmState> states;
    std::vector<bool> shadow;
    std::vector<std::int64_t> costs;

    void add(AlgorithmConfig c, bool isShadow = false, std::int64_t cost = 1)
    {
        states.push_back(freshState(c));
        configs.push_back(std::move(c));
        shadow.push_back(isShadow);
        costs.push_back(cost);
    }
    SetDecision send(Micros now, std::vector<Decision> *each = nullptr)
    {
        std::vector<LimitRef> refs;
        for (std::size_t i = 0; i < configs.size(); ++i)
            refs.push_back({&configs[i], &states[i], costs[i], shadow[i]});
        std::vector<Decision> out(configs.size());
        const SetDecision d = decideAll(refs, now, out);
        if (each)
            *each = out;
        return d;
    }
};

// The same state as far as any later decision can tell: a sliding log may already have dropped
// entries that expired (the give-back does not put them back), which nothing reads again.
bool sameAt(
    const AlgorithmConfig &config, const AlgorithmState &a, const AlgorithmState &b, Micros now)
{
    const auto *x = std::get_if<SlidingWindowLogState>(&a);
    const auto *y = std::get_if<SlidingWindowLogState>(&b);
    if (!x || !y)
        return a == b;
    const Micros window = std::get<SlidingWindowLogConfig>(config).window;
    const auto live = [&](const SlidingWindowLogState &s) {
        std::vector<Micros> out;
        for (std::size_t i = s.head; i < s.stamps.size(); ++i)
            if (s.stamps[i] > now - window)
                out.push_back(s.stamps[i]);
        return out;
    };
    return live(*x) == live(*y);
}

const AlgorithmConfig kBurst = TokenBucketConfig{2, Rate{1, kMicrosPerSecond}};
const AlgorithmConfig kDaily = FixedWindowConfig{{3, kMicrosPerDay}};

} // namespace

TEST(LimitSet, ADeniedRequestTakesFromNoLimit)
{
    Set s;
    s.add(kBurst);
    s.add(kDaily);
    EXPECT_TRUE(s.send(T0).allowed);
    EXPECT_TRUE(s.send(T0).allowed);
    const AlgorithmState daily = s.states[1];
    const SetDecision third = s.send(T0);
    EXPECT_FALSE(third.allowed);
    EXPECT_EQ(third.deciding, 0); // the burst denied
    EXPECT_EQ(third.decision.retryAfter, kMicrosPerSecond);
    EXPECT_EQ(s.states[1], daily) << "the daily quota kept the denied request";

    EXPECT_TRUE(s.send(T0 + kMicrosPerSecond).allowed); // daily: 3 of 3
    const AlgorithmState burst = s.states[0];
    const SetDecision fifth = s.send(T0 + 2 * kMicrosPerSecond);
    EXPECT_FALSE(fifth.allowed);
    EXPECT_EQ(fifth.deciding, 1); // now the daily quota denies
    // The burst had a token, and keeps it: only time has passed in its state.
    std::vector<Decision> each;
    Set copy = s;
    copy.configs.pop_back();
    copy.states.pop_back();
    copy.shadow.pop_back();
    copy.costs.pop_back();
    EXPECT_TRUE(copy.send(T0 + 2 * kMicrosPerSecond, &each).allowed);
    EXPECT_EQ(each[0].remaining, 0) << "one token left before, none after this request";
    EXPECT_EQ(s.states[0], burst);
}

TEST(LimitSet, TheLongestWaitIsTheRequestsRetryAfterAndNamesTheLimit)
{
    Set s;
    s.add(TokenBucketConfig{1, Rate{1, kMicrosPerSecond}}); // back in 1 s
    s.add(TokenBucketConfig{1, Rate{1, kMicrosPerMinute}}); // back in 60 s
    s.add(TokenBucketConfig{1, Rate{1, 10 * kMicrosPerSecond}}); // back in 10 s
    EXPECT_TRUE(s.send(T0).allowed);
    const SetDecision d = s.send(T0);
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(d.denials, 3);
    EXPECT_EQ(d.deciding, 1);
    EXPECT_EQ(d.decision.retryAfter, kMicrosPerMinute);
}

TEST(LimitSet, AnAdmittedRequestCarriesTheLimitNearestToDenying)
{
    Set s;
    s.add(TokenBucketConfig{10, Rate{1, kMicrosPerSecond}});
    s.add(FixedWindowConfig{{3, kMicrosPerMinute}});
    const SetDecision d = s.send(T0);
    EXPECT_TRUE(d.allowed);
    EXPECT_EQ(d.deciding, 1);
    EXPECT_EQ(d.decision.remaining, 2);
    EXPECT_EQ(d.decision.limit, 3);
}

TEST(LimitSet, AShadowLimitIsReportedAndNeverDenies)
{
    Set s;
    s.add(kBurst);
    s.add(FixedWindowConfig{{1, kMicrosPerDay}}, true);
    std::vector<Decision> each;
    EXPECT_TRUE(s.send(T0, &each).allowed);
    EXPECT_TRUE(each[1].allowed);
    const SetDecision second = s.send(T0, &each);
    EXPECT_TRUE(second.allowed) << "the candidate would deny, and does not";
    EXPECT_EQ(second.shadowDenials, 1);
    EXPECT_FALSE(each[1].allowed);
    EXPECT_EQ(second.deciding, 0);
}

TEST(LimitSet, AShadowLimitGivesBackWhatADeniedRequestTook)
{
    Set s;
    s.add(TokenBucketConfig{1, Rate{1, kMicrosPerMinute}});
    s.add(SlidingWindowLogConfig{{5, kMicrosPerMinute}}, true);
    EXPECT_TRUE(s.send(T0).allowed);
    const AlgorithmState log = s.states[1];
    EXPECT_FALSE(s.send(T0 + 1).allowed);
    EXPECT_EQ(s.states[1], log);
    EXPECT_EQ(std::get<SlidingWindowLogState>(s.states[1]).size(), 1u);
}

TEST(LimitSet, RandomTracesFollowTheRuleOnEveryAlgorithm)
{
    std::mt19937_64 rng(42);
    const auto config = [&](int which) -> AlgorithmConfig {
        std::uniform_int_distribution<int> small(1, 6);
        const Rate rate{small(rng), Micros(small(rng)) * kMicrosPerSecond};
        const WindowLimit window{small(rng), Micros(small(rng)) * kMicrosPerSecond};
        switch (which) {
        case 0:
            return TokenBucketConfig{small(rng), rate};
        case 1:
            return LeakyBucketConfig{rate, small(rng) - 1, LeakMode::Police};
        case 2:
            return FixedWindowConfig{window};
        case 3:
            return SlidingWindowLogConfig{window};
        case 4:
            return SlidingWindowCounterConfig{window};
        default:
            return GcraConfig{rate, small(rng)};
        }
    };
    int denied = 0, admitted = 0, shadowDenials = 0;
    for (int trace = 0; trace < 300; ++trace) {
        Set s;
        const int count = std::uniform_int_distribution<int>(1, 4)(rng);
        for (int l = 0; l < count; ++l)
            s.add(config(int(rng() % 6)), rng() % 4 == 0, std::int64_t(1 + rng() % 2));
        Set reference = s;
        Micros now = T0;
        for (int step = 0; step < 60; ++step) {
            now += Micros(rng() % 700'000);
            std::vector<Decision> each;
            const SetDecision got = s.send(now, &each);
            // The rule, the obvious way: every limit decides on its state; on a denial by an
            // enforced limit, every state is as before.
            const std::vector<AlgorithmState> saved = reference.states;
            bool allowed = true;
            for (std::size_t i = 0; i < reference.configs.size(); ++i) {
                const Decision d
                    = decide(reference.configs[i], reference.states[i], now, reference.costs[i]);
                ASSERT_EQ(d.allowed, each[i].allowed) << "trace " << trace << " step " << step;
                ASSERT_EQ(d.retryAfter, each[i].retryAfter);
                if (!reference.shadow[i] && !d.allowed)
                    allowed = false;
                shadowDenials += reference.shadow[i] && !d.allowed;
            }
            if (!allowed)
                reference.states = saved;
            ASSERT_EQ(got.allowed, allowed) << "trace " << trace << " step " << step;
            for (std::size_t i = 0; i < s.states.size(); ++i)
                ASSERT_TRUE(sameAt(s.configs[i], s.states[i], reference.states[i], now))
                    << "trace " << trace << " step " << step << " limit " << i;
            (allowed ? admitted : denied)++;
        }
    }
    // The traces exercise both outcomes and the shadow path, or they prove nothing.
    EXPECT_GT(admitted, 1000);
    EXPECT_GT(denied, 1000);
    EXPECT_GT(shadowDenials, 100);
}

TEST(LimitSet, MoreLimitsThanARouteHoldsAreRefusedNotOverrun)
{
    Set s;
    for (std::size_t i = 0; i <= kMaxLimitsPerRequest; ++i)
        s.add(kBurst);
    const AlgorithmState before = s.states[0];
    const SetDecision d = s.send(T0);
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(d.decision.reason, Reason::InvalidRule);
    EXPECT_EQ(s.states[0], before) << "nothing decided";
}
