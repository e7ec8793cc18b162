#include "model/simulation/traffic.h"

#include "model/policy/ratesyntax.h"

#include <QDateTime>
#include <QFile>
#include <QHash>
#include <QRegularExpression>
#include <QTextStream>
#include <QTimeZone>

#include <algorithm>
#include <cmath>

namespace qs {

using limiter::Micros;

namespace {

// splitmix64: tiny, fast and plenty random for traffic; the same seed gives the same stream.
class Random {
public:
    explicit Random(std::uint64_t seed) : m_state(seed * 0x9e3779b97f4a7c15ULL + 1) { }
    std::uint64_t next()
    {
        std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    double unit() { return double(next() >> 11) * (1.0 / 9007199254740992.0); } // [0, 1)
    std::uint32_t below(std::uint32_t n)
    {
        __extension__ typedef unsigned __int128 U128;
        return std::uint32_t((U128(next()) * n) >> 64);
    }
    double exponential(double mean) { return -std::log(1.0 - unit()) * mean; }

private:
    std::uint64_t m_state;
};

const std::vector<RequestLine> kNoLines;
const std::vector<ReplayProblem> kNoProblems;

// Evenly spaced: arrival k at k·period/count, exact in integers (no drift over an hour).
class SteadySource final : public TrafficSource {
public:
    SteadySource(limiter::Rate rate, std::uint32_t clients) : m_rate(rate), m_clients(clients) { }
    std::size_t next(std::vector<Arrival> &out, std::size_t max, Micros until) override
    {
        std::size_t n = 0;
        for (; n < max; ++n) {
            const Micros at = Micros(__int128(m_k) * m_rate.period / m_rate.count);
            if (at > until)
                break;
            out.push_back({at, std::uint32_t(m_k % m_clients), 0});
            ++m_k;
        }
        return n;
    }
    std::uint32_t clients() const override { return m_clients; }

private:
    limiter::Rate m_rate;
    std::uint32_t m_clients;
    std::uint64_t m_k = 0;
};

// Random clients from a popularity table (uniform or Zipf) with exponential gaps.
class PoissonSource final : public TrafficSource {
public:
    PoissonSource(limiter::Rate rate, std::uint32_t clients, double zipf, std::uint64_t seed)
        : m_mean(double(rate.period) / double(rate.count)), m_clients(clients), m_random(seed)
    {
        if (zipf > 0) {
            m_cumulative.reserve(clients);
            double sum = 0;
            for (std::uint32_t i = 1; i <= clients; ++i)
                m_cumulative.push_back(sum += 1.0 / std::pow(double(i), zipf));
        }
    }
    std::size_t next(std::vector<Arrival> &out, std::size_t max, Micros until) override
    {
        std::size_t n = 0;
        for (; n < max; ++n) {
            const Micros at = Micros(m_t);
            if (at > until)
                break;
            out.push_back({at, pick(), 0});
            m_t += m_random.exponential(m_mean);
        }
        return n;
    }
    std::uint32_t clients() const override { return m_clients; }

private:
    std::uint32_t pick()
    {
        if (m_cumulative.empty())
            return m_clients == 1 ? 0 : m_random.below(m_clients);
        const double u = m_random.unit() * m_cumulative.back();
        return std::uint32_t(
            std::upper_bound(m_cumulative.begin(), m_cumulative.end(), u) - m_cumulative.begin());
    }
    double m_mean;
    std::uint32_t m_clients;
    Random m_random;
    std::vector<double> m_cumulative;
    double m_t = 0;
};

// Steady at `rate` during `on`, silent during `off`.
class BurstSource final : public TrafficSource {
public:
    BurstSource(limiter::Rate rate, Micros on, Micros off, std::uint32_t clients)
        : m_rate(rate), m_steady(rate, clients), m_on(on), m_off(off), m_clients(clients)
    {
    }
    std::size_t next(std::vector<Arrival> &out, std::size_t max, Micros until) override
    {
        std::size_t total = 0;
        while (total < max && m_cycleStart <= until) {
            const Micros onEnd = m_cycleStart + m_on - 1;
            const std::size_t before = out.size();
            total += m_steady.next(out, max - total, std::min(until, onEnd) - m_cycleStart);
            for (std::size_t i = before; i < out.size(); ++i)
                out[i].at += m_cycleStart;
            if (total >= max || onEnd > until)
                break;
            m_cycleStart += m_on + m_off; // this burst is over: start the next one afresh
            m_steady = SteadySource(m_rate, m_clients);
        }
        return total;
    }
    std::uint32_t clients() const override { return m_clients; }

private:
    limiter::Rate m_rate;
    SteadySource m_steady;
    Micros m_on, m_off;
    std::uint32_t m_clients;
    Micros m_cycleStart = 0;
};

// `count` requests gap/2 before every window edge and `count` gap/2 after it.
class SpikeSource final : public TrafficSource {
public:
    SpikeSource(qint64 count, Micros window, Micros gap, std::uint32_t clients)
        : m_count(count), m_window(window), m_gap(gap), m_clients(clients)
    {
    }
    std::size_t next(std::vector<Arrival> &out, std::size_t max, Micros until) override
    {
        std::size_t n = 0;
        while (n < max) {
            const Micros edge = m_window * m_edge;
            const Micros at = m_side == 0 ? edge - m_gap / 2 : edge + m_gap / 2;
            if (at > until)
                break;
            if (at >= 0) {
                out.push_back({at, std::uint32_t(m_i % m_clients), 0});
                ++n;
            }
            if (++m_i == m_count) {
                m_i = 0;
                if (++m_side == 2) {
                    m_side = 0;
                    ++m_edge;
                }
            }
        }
        return n;
    }
    std::uint32_t clients() const override { return m_clients; }

private:
    qint64 m_count;
    Micros m_window, m_gap;
    std::uint32_t m_clients;
    qint64 m_edge = 1, m_i = 0;
    int m_side = 0;
};

// Rate rising linearly from r0 to r1 over the duration: arrival k where the integral reaches k.
class RampSource final : public TrafficSource {
public:
    RampSource(limiter::Rate from, limiter::Rate to, Micros duration, std::uint32_t clients)
        : m_r0(double(from.count) / double(from.period)),
          m_a((double(to.count) / double(to.period) - m_r0) / (2.0 * double(duration))),
          m_clients(clients)
    {
    }
    std::size_t next(std::vector<Arrival> &out, std::size_t max, Micros until) override
    {
        std::size_t n = 0;
        for (; n < max; ++n) {
            const double k = double(m_k);
            const double t = std::abs(m_a) < 1e-30
                ? k / m_r0
                : (-m_r0 + std::sqrt(m_r0 * m_r0 + 4.0 * m_a * k)) / (2.0 * m_a);
            const Micros at = Micros(t);
            if (!(t >= 0) || at > until)
                break;
            out.push_back({at, std::uint32_t(m_k % m_clients), 0});
            ++m_k;
        }
        return n;
    }
    std::uint32_t clients() const override { return m_clients; }

private:
    double m_r0, m_a; // per µs, per µs²/2
    std::uint32_t m_clients;
    std::uint64_t m_k = 0;
};

// An access log read at construction: combined log format or CSV.
class ReplaySource final : public TrafficSource {
public:
    // The log read whole, or why it cannot be replayed.
    static Expected<std::unique_ptr<TrafficSource>> read(const QString &file)
    {
        auto source = std::unique_ptr<ReplaySource>(new ReplaySource);
        if (Expected<void> loaded = source->load(file); !loaded)
            return loaded.error();
        return std::unique_ptr<TrafficSource>(std::move(source));
    }

    std::size_t next(std::vector<Arrival> &out, std::size_t max, Micros until) override
    {
        std::size_t n = 0;
        for (; n < max && m_next < m_arrivals.size() && m_arrivals[m_next].at <= until; ++n)
            out.push_back(m_arrivals[m_next++]);
        return n;
    }
    std::uint32_t clients() const override
    {
        return std::max<std::uint32_t>(1, std::uint32_t(m_names.size()));
    }
    const std::vector<RequestLine> &requestLines() const override { return m_lines; }
    QString clientName(std::uint32_t client) const override
    {
        return m_names.value(qsizetype(client));
    }
    qint64 skippedLines() const override { return m_skipped; }
    const std::vector<ReplayProblem> &problems() const override { return m_problems; }

private:
    void problem(qint64 line, const QString &message)
    {
        ++m_skipped;
        if (m_problems.size() < 5)
            m_problems.push_back({line, message});
    }

    std::uint32_t clientId(const QString &name)
    {
        const auto it = m_clientIds.find(name);
        if (it != m_clientIds.end())
            return *it;
        m_names.append(name);
        return *m_clientIds.insert(name, std::uint32_t(m_names.size() - 1));
    }

    std::uint32_t lineId(const QString &method, const QString &target)
    {
        const QString key = method + QLatin1Char(' ') + target;
        const auto it = m_lineIds.find(key);
        if (it != m_lineIds.end())
            return *it;
        m_lines.push_back({method, target});
        return *m_lineIds.insert(key, std::uint32_t(m_lines.size() - 1));
    }

    // "10/Oct/2000:13:55:36 -0700" (month names are English: Qt parses with the C locale).
    static std::optional<Micros> combinedTime(const QString &text)
    {
        const QString stamp = text.section(QLatin1Char(' '), 0, 0);
        const QString zone = text.section(QLatin1Char(' '), 1, 1);
        const QDateTime local
            = QDateTime::fromString(stamp, QStringLiteral("dd/MMM/yyyy:HH:mm:ss"));
        if (!local.isValid())
            return std::nullopt;
        Micros at
            = Micros(QDateTime(local.date(), local.time(), Qt::UTC).toMSecsSinceEpoch()) * 1000;
        if (zone.size() == 5 && (zone[0] == QLatin1Char('+') || zone[0] == QLatin1Char('-'))) {
            const int sign = zone[0] == QLatin1Char('-') ? -1 : 1;
            at -= sign * (zone.mid(1, 2).toInt() * 60 + zone.mid(3, 2).toInt())
                * limiter::kMicrosPerMinute;
        }
        return at;
    }

    static std::optional<Micros> csvTime(const QString &text)
    {
        bool ok = false;
        const double seconds = text.toDouble(&ok);
        if (ok)
            return Micros(std::llround(seconds * 1e6));
        const QDateTime t = QDateTime::fromString(text, Qt::ISODateWithMs);
        if (t.isValid())
            return Micros(t.toMSecsSinceEpoch()) * 1000;
        return std::nullopt;
    }

    ReplaySource() = default;

    Expected<void> load(const QString &path)
    {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
            return QStringLiteral("cannot open %1: %2").arg(path, file.errorString());
        static const QRegularExpression combined(
            QStringLiteral(R"re(^(\S+) \S+ \S+ \[([^\]]+)\] "(\S+) (\S+)(?: [^"]*)?" \d{3} )re"));
        std::vector<std::pair<Micros, Arrival>> rows;
        QTextStream in(&file);
        qint64 number = 0;
        while (!in.atEnd()) {
            const QString line = in.readLine();
            ++number;
            if (line.trimmed().isEmpty())
                continue;
            if (const auto m = combined.match(line); m.hasMatch()) {
                const auto at = combinedTime(m.captured(2));
                if (!at) {
                    problem(number, QStringLiteral("unreadable time '%1'").arg(m.captured(2)));
                    continue;
                }
                rows.push_back(
                    {*at, {0, clientId(m.captured(1)), lineId(m.captured(3), m.captured(4))}});
                continue;
            }
            const QStringList cells = line.split(QLatin1Char(','));
            if (cells.size() == 4) {
                if (number == 1 && cells[0].trimmed() == QLatin1String("timestamp"))
                    continue; // header
                const auto at = csvTime(cells[0].trimmed());
                if (!at) {
                    problem(number,
                        QStringLiteral("unreadable timestamp '%1' (use epoch seconds or ISO 8601)")
                            .arg(cells[0]));
                    continue;
                }
                if (!cells[2].trimmed().startsWith(QLatin1Char('/'))) {
                    problem(
                        number, QStringLiteral("path '%1' does not start with '/'").arg(cells[2]));
                    continue;
                }
                rows.push_back({*at,
                    {0, clientId(cells[3].trimmed()),
                        lineId(cells[1].trimmed().toUpper(), cells[2].trimmed())}});
                continue;
            }
            problem(number,
                QStringLiteral("neither combined log format nor CSV timestamp,method,path,client"));
        }
        // Logs are written in completion order: sort by time, keeping file order within a time.
        std::stable_sort(rows.begin(), rows.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });
        if (rows.empty())
            return QStringLiteral("%1 has no readable request lines").arg(path);
        const Micros first = rows.front().first;
        for (auto &[at, arrival] : rows) {
            arrival.at = at - first;
            m_arrivals.push_back(arrival);
        }
        return {};
    }

    std::vector<Arrival> m_arrivals;
    std::size_t m_next = 0;
    std::vector<RequestLine> m_lines;
    QHash<QString, std::uint32_t> m_lineIds, m_clientIds;
    QStringList m_names;
    qint64 m_skipped = 0;
    std::vector<ReplayProblem> m_problems;
};

} // namespace

const std::vector<RequestLine> &TrafficSource::requestLines() const
{
    return kNoLines;
}

QString TrafficSource::clientName(std::uint32_t client) const
{
    return QStringLiteral("client-%1").arg(client);
}

const std::vector<ReplayProblem> &TrafficSource::problems() const
{
    return kNoProblems;
}

} // namespace qs

namespace qs {

Expected<TrafficSpec> parseTrafficSpec(const QString &text)
{
    const QString help = QStringLiteral(
        "use steady:RATE, poisson:RATE, bursts:RATE,on=DUR,off=DUR, spike:N,window=DUR, "
        "ramp:RATE..RATE, zipf:RATE,clients=N or replay:FILE (each with optional ,clients=N "
        "and ,keyless=SHARE and ,plans=free:70/pro:30)");
    TrafficSpec spec;
    spec.text = text;
    const qsizetype colon = text.indexOf(QLatin1Char(':'));
    if (colon <= 0)
        return QStringLiteral("traffic '%1' has no kind: %2").arg(text, help);
    const QString kind = text.left(colon).trimmed().toLower();
    const QString rest = text.mid(colon + 1);
    if (kind == QLatin1String("replay")) {
        spec.kind = TrafficSpec::Kind::Replay;
        spec.file = rest.trimmed();
        if (spec.file.isEmpty())
            return QStringLiteral("replay needs a file: replay:access.log");
        return spec;
    }
    const QStringList parts = rest.split(QLatin1Char(','));
    const QString first = parts.value(0).trimmed();
    auto rateOf = [](const QString &t) -> Expected<limiter::Rate> { return parseRate(t); };
    if (kind == QLatin1String("steady"))
        spec.kind = TrafficSpec::Kind::Steady;
    else if (kind == QLatin1String("poisson"))
        spec.kind = TrafficSpec::Kind::Poisson;
    else if (kind == QLatin1String("bursts"))
        spec.kind = TrafficSpec::Kind::Bursts;
    else if (kind == QLatin1String("spike"))
        spec.kind = TrafficSpec::Kind::Spike;
    else if (kind == QLatin1String("ramp"))
        spec.kind = TrafficSpec::Kind::Ramp;
    else if (kind == QLatin1String("zipf"))
        spec.kind = TrafficSpec::Kind::Zipf;
    else
        return QStringLiteral("unknown traffic kind '%1': %2").arg(kind, help);

    if (spec.kind == TrafficSpec::Kind::Spike) {
        bool ok = false;
        spec.count = first.toLongLong(&ok);
        if (!ok || spec.count <= 0 || spec.count > 100'000'000)
            return QStringLiteral("spike needs a request count first: spike:100,window=1m");
    } else if (spec.kind == TrafficSpec::Kind::Ramp) {
        const QStringList ends = first.split(QStringLiteral(".."));
        if (ends.size() != 2)
            return QStringLiteral("ramp needs two rates: ramp:10/s..1000/s");
        const auto a = rateOf(ends[0].trimmed());
        const auto b = rateOf(ends[1].trimmed());
        if (!a)
            return QStringLiteral("ramp: ") + a.error();
        if (!b)
            return QStringLiteral("ramp: ") + b.error();
        spec.rate = *a;
        spec.rateTo = *b;
    } else {
        const auto r = rateOf(first);
        if (!r)
            return kind + QStringLiteral(": ") + r.error();
        spec.rate = *r;
    }
    for (qsizetype i = 1; i < parts.size(); ++i) {
        const QString option = parts[i].trimmed();
        const QString name = option.section(QLatin1Char('='), 0, 0).trimmed();
        const QString value = option.section(QLatin1Char('='), 1).trimmed();
        auto duration = [&](Micros *into) -> std::optional<QString> {
            const auto d = parseDuration(value);
            if (!d)
                return name + QStringLiteral(": ") + d.error();
            *into = *d;
            return std::nullopt;
        };
        std::optional<QString> problem;
        if (name == QLatin1String("clients")) {
            bool ok = false;
            const qint64 n = value.toLongLong(&ok);
            if (!ok || n < 1 || n > 10'000'000)
                problem = QStringLiteral("clients must be a number from 1 to 10000000");
            spec.clients = std::uint32_t(n);
        } else if (name == QLatin1String("on") && spec.kind == TrafficSpec::Kind::Bursts) {
            problem = duration(&spec.on);
        } else if (name == QLatin1String("off") && spec.kind == TrafficSpec::Kind::Bursts) {
            problem = duration(&spec.off);
        } else if (name == QLatin1String("window") && spec.kind == TrafficSpec::Kind::Spike) {
            problem = duration(&spec.window);
        } else if (name == QLatin1String("gap") && spec.kind == TrafficSpec::Kind::Spike) {
            problem = duration(&spec.gap);
        } else if (name == QLatin1String("keyless")) {
            bool ok = false;
            spec.keyless = value.toDouble(&ok);
            if (!ok || spec.keyless < 0 || spec.keyless > 1)
                problem = QStringLiteral("keyless must be a share from 0 to 1 (0.1: one request "
                                         "in ten lacks its key header or query parameter)");
        } else if (name == QLatin1String("plans")) {
            // free:70/pro:25/enterprise:5 — weights; the plans' names are the policy's to check.
            for (const QString &item : value.split(QLatin1Char('/'))) {
                const qsizetype at = item.indexOf(QLatin1Char(':'));
                bool ok = false;
                const double weight = at > 0 ? item.mid(at + 1).toDouble(&ok) : 0;
                if (at <= 0 || !ok || weight < 0 || !std::isfinite(weight)) {
                    problem = QStringLiteral("plans is a list of plan:weight, e.g. "
                                             "plans=free:70/pro:25/enterprise:5, not '%1'")
                                  .arg(item);
                    break;
                }
                spec.plans.append({item.left(at).trimmed(), weight});
            }
            double total = 0;
            for (const auto &[plan, weight] : spec.plans)
                total += weight;
            if (!problem && total <= 0)
                problem = QStringLiteral("plans needs a weight above 0");
        } else if (name == QLatin1String("s") && spec.kind == TrafficSpec::Kind::Zipf) {
            bool ok = false;
            spec.zipfExponent = value.toDouble(&ok);
            if (!ok || spec.zipfExponent <= 0 || spec.zipfExponent > 5)
                problem = QStringLiteral("s must be a number above 0 (1.1 is typical)");
        } else {
            problem = QStringLiteral("'%1' is not an option of %2").arg(name, kind);
        }
        if (problem)
            return QStringLiteral("traffic '%1': %2").arg(text, *problem);
    }
    if (spec.kind == TrafficSpec::Kind::Bursts && (spec.on <= 0 || spec.off <= 0))
        return QStringLiteral("bursts needs on= and off=: bursts:500/s,on=2s,off=8s");
    if (spec.kind == TrafficSpec::Kind::Spike && spec.window <= 0)
        return QStringLiteral("spike needs the window: spike:100,window=1m");
    if (spec.kind == TrafficSpec::Kind::Spike && spec.gap >= spec.window)
        return QStringLiteral("spike's gap must be shorter than its window");
    if (spec.kind == TrafficSpec::Kind::Zipf && spec.clients < 2)
        return QStringLiteral("zipf needs clients=N (2 or more): zipf:1000/s,clients=100000");
    return spec;
}

Expected<std::unique_ptr<TrafficSource>> makeTrafficSource(
    const TrafficSpec &spec, std::uint64_t seed, Micros duration)
{
    switch (spec.kind) {
    case TrafficSpec::Kind::Steady:
        return std::make_unique<SteadySource>(spec.rate, spec.clients);
    case TrafficSpec::Kind::Poisson:
        return std::make_unique<PoissonSource>(spec.rate, spec.clients, 0.0, seed);
    case TrafficSpec::Kind::Zipf:
        return std::make_unique<PoissonSource>(spec.rate, spec.clients, spec.zipfExponent, seed);
    case TrafficSpec::Kind::Bursts:
        return std::make_unique<BurstSource>(spec.rate, spec.on, spec.off, spec.clients);
    case TrafficSpec::Kind::Spike:
        return std::make_unique<SpikeSource>(spec.count, spec.window, spec.gap, spec.clients);
    case TrafficSpec::Kind::Ramp:
        return std::make_unique<RampSource>(spec.rate, spec.rateTo, duration, spec.clients);
    case TrafficSpec::Kind::Replay:
        return ReplaySource::read(spec.file);
    }
    return QStringLiteral("unknown kind of traffic");
}

} // namespace qs
