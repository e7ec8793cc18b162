#pragma once
// A console reporter that also remembers each run's time per item, so main() can print the
// ratios the benchmarks exist for (ours vs the naive baseline, two threads vs one).
#include <benchmark/benchmark.h>

#include <map>
#include <string>

namespace qs::bench {

class RatioReporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run> &runs) override
    {
        ConsoleReporter::ReportRuns(runs);
        // With --benchmark_repetitions the median stands for the run; without, the one run.
        for (const Run &run : runs) {
            if (run.error_occurred)
                continue;
            const auto it = run.counters.find("items_per_second");
            if (it == run.counters.end())
                continue;
            if (run.run_type == Run::RT_Aggregate && run.aggregate_name == "median")
                m_itemsPerSecond[run.run_name.str()] = it->second.value;
            else if (run.run_type == Run::RT_Iteration && run.repetitions <= 1)
                m_itemsPerSecond[run.benchmark_name()] = it->second.value;
        }
    }

    // Items per second of a run by its full name, 0 when it did not run (filtered out).
    double rate(const std::string &name) const
    {
        const auto it = m_itemsPerSecond.find(name);
        return it == m_itemsPerSecond.end() ? 0.0 : it->second;
    }
    double nsPerItem(const std::string &name) const
    {
        const double r = rate(name);
        return r > 0 ? 1e9 / r : 0.0;
    }

private:
    std::map<std::string, double> m_itemsPerSecond;
};

} // namespace qs::bench
