#pragma once
// What a SCAN costs Redis, in reads, from the server's own accounting. A SCAN walks COUNT
// buckets (the whole table when it is smaller) whatever MATCH keeps, each about a read's worth
// of CPU (957 µs for COUNT 1000 over 2M keys against 0.9 µs per read here: docs/benchmarks.md);
// counted as one command, it would let the budget hide most of what the monitor costs. Measured
// from INFO commandstats and DBSIZE at connection and again every 10 s as the keyspace changes;
// a server that refuses INFO (an ACL) keeps the estimate of a read per bucket.
#include <QByteArray>
#include <QList>
#include <QtGlobal>

#include <limits>
#include <optional>

namespace qs {

// Calls and CPU time (µs) the server counted for some commands (INFO commandstats).
struct CommandCost {
    qint64 calls = 0, usec = 0;
};

// Summed over `commands` (lower case, as INFO names them).
CommandCost commandCost(const QByteArray &info, const QList<QByteArray> &commands);

class ScanCost {
public:
    static constexpr qint64 kEveryUs = 10'000'000;

    // The SCANs sent since the last measurement, which the next one charges.
    struct Sent {
        qint64 calls = 0, buckets = 0;
    };

    // Measure again? (Not when the server refused INFO.) The caller then sends DBSIZE and
    // INFO commandstats, charging infoCost() + 1 reads.
    bool due(qint64 serverNowUs) const;
    Sent beginMeasuring(qint64 serverNowUs); // the SCANs this measurement covers
    void dbSizeAnswered(qint64 keys) { m_dbSize = keys; }
    void infoAnswered(const QByteArray &commandstats, const Sent &scans);
    void infoRefused() { m_infoRefused = true; }
    qint64 infoCost() const { return m_infoCost; }

    // The COUNT a SCAN goes out with: it must fit in half a second of the budget (0: none), or
    // it would never go out.
    int count(qint64 budgetPerSecond, int configuredCount) const;
    // What a SCAN of that COUNT counts for in the budget, in reads (at least 1).
    qint64 cost(int count) const;
    void sent(int count);

private:
    qint64 bucketsWalked(int count) const; // as far as DBSIZE tells

    struct Sample {
        CommandCost scans, reads, info;
        Sample minus(const Sample &o) const;
    };
    std::optional<Sample> m_sample;
    Sent m_sent;
    double m_bucketCost = 1.0; // reads' worth of CPU per bucket walked; until measured, one
    qint64 m_dbSize = -1; // -1: not known
    qint64 m_infoCost = 100;
    qint64 m_measuredAtUs = std::numeric_limits<qint64>::min() / 2;
    bool m_infoRefused = false;
};

} // namespace qs
