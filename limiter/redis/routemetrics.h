#pragma once
// Per-route admitted/denied counts per second, counted where the decisions come back and added
// to Redis once a second (HINCRBY <prefix>:<route>:~metrics:<epoch s> a n / d n, EXPIRE 120).
// A request on a plan (a route whose numbers differ by plan) also counts in the fields of its
// plan, `a:<plan>` and `d:<plan>`, in the same hash: a and d stay the route's totals.
// The scripts used to count inside Redis, touching a second key they did not declare: wrong on
// a cluster (the key is in another slot) and costly in server CPU on one node (docs/benchmarks.md,
// "Redis scripts").
// Several backends (one per thread) each add their own counts; HINCRBY sums them.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace qs::limiter {

class RouteMetrics {
public:
    struct PlanCount {
        std::string plan;
        std::int64_t allowed = 0;
        std::int64_t denied = 0;
    };
    struct Count {
        std::string key; // the hash: "<keyPrefix>:~metrics:<second>"
        std::int64_t allowed = 0;
        std::int64_t denied = 0;
        std::vector<PlanCount> plans; // the plans' shares of them, where requests had one
    };

    // `plan`: the request's, empty when the route's numbers do not differ by plan.
    void count(
        std::string_view keyPrefix, std::int64_t second, bool allowed, std::string_view plan = {});
    // True when a second before `second` has counts not yet taken.
    bool due(std::int64_t second) const { return m_oldest < second; }
    // The counts of the seconds before `second`, taken out (all of them by default).
    std::vector<Count> take(std::int64_t before = std::numeric_limits<std::int64_t>::max());

private:
    struct Entry {
        std::string keyPrefix;
        std::int64_t second = 0;
        std::int64_t allowed = 0;
        std::int64_t denied = 0;
        std::vector<PlanCount> plans;
    };
    std::vector<Entry> m_entries; // a handful: the routes counted in the last second or two
    std::int64_t m_oldest = std::numeric_limits<std::int64_t>::max();
};

} // namespace qs::limiter
