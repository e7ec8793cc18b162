#include "model/monitor/scancost.h"

#include <algorithm>
#include <cmath>

namespace qs {

CommandCost commandCost(const QByteArray &info, const QList<QByteArray> &commands)
{
    CommandCost total;
    for (const QByteArray &line : info.split('\n')) {
        const qsizetype colon = line.indexOf(':');
        if (!line.startsWith("cmdstat_") || colon < 0 || !commands.contains(line.mid(8, colon - 8)))
            continue;
        for (const QByteArray &field : line.mid(colon + 1).trimmed().split(',')) {
            if (field.startsWith("calls="))
                total.calls += field.mid(6).toLongLong();
            else if (field.startsWith("usec="))
                total.usec += field.mid(5).toLongLong();
        }
    }
    return total;
}

ScanCost::Sample ScanCost::Sample::minus(const Sample &o) const
{
    return {{scans.calls - o.scans.calls, scans.usec - o.scans.usec},
        {reads.calls - o.reads.calls, reads.usec - o.reads.usec},
        {info.calls - o.info.calls, info.usec - o.info.usec}};
}

bool ScanCost::due(qint64 serverNowUs) const
{
    return !m_infoRefused && serverNowUs - m_measuredAtUs >= kEveryUs;
}

ScanCost::Sent ScanCost::beginMeasuring(qint64 serverNowUs)
{
    m_measuredAtUs = serverNowUs;
    const Sent scans = m_sent;
    m_sent = {};
    return scans;
}

void ScanCost::infoAnswered(const QByteArray &commandstats, const Sent &scans)
{
    static const QList<QByteArray> reads
        = {"get", "mget", "hmget", "pttl", "lrange", "zrange", "hgetall"};
    const Sample now{commandCost(commandstats, {"scan"}), commandCost(commandstats, reads),
        commandCost(commandstats, {"info"})};
    const bool first = !m_sample;
    const Sample since = first ? now : now.minus(*m_sample);
    m_sample = now;
    if (since.reads.calls < 100 || since.reads.usec <= 0)
        return;
    const double read = double(since.reads.usec) / double(since.reads.calls);
    if (since.info.calls >= 1)
        m_infoCost = std::clamp<qint64>(
            qint64(std::llround(double(since.info.usec) / double(since.info.calls) / read)), 1,
            10'000);
    // Per bucket, from the SCANs this monitor sent since the last sample (their COUNTs are
    // known; other clients' SCANs are rare and count alike).
    if (!first && since.scans.calls >= 3 && scans.calls > 0 && scans.buckets > 0)
        m_bucketCost = std::clamp(double(since.scans.usec) / double(since.scans.calls) / read
                / (double(scans.buckets) / double(scans.calls)),
            0.01, 20.0);
}

int ScanCost::count(qint64 budgetPerSecond, int configuredCount) const
{
    if (budgetPerSecond == 0)
        return configuredCount;
    const double fits = double(budgetPerSecond) / 2 / m_bucketCost;
    return int(std::clamp<double>(fits, 10, configuredCount));
}

qint64 ScanCost::bucketsWalked(int count) const
{
    return m_dbSize >= 0 ? std::max<qint64>(1, std::min<qint64>(count, m_dbSize)) : count;
}

qint64 ScanCost::cost(int count) const
{
    return std::max<qint64>(1, qint64(std::ceil(m_bucketCost * double(bucketsWalked(count)))));
}

void ScanCost::sent(int count)
{
    ++m_sent.calls;
    m_sent.buckets += bucketsWalked(count);
}

} // namespace qs
