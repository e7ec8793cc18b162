#include "model/export/kongexporter.h"

#include "model/export/exportreport.h"
#include "model/export/gatewaywriter.h"
#include "model/export/limitshape.h"
#include "model/policy/keyselectorsyntax.h"
#include "model/policy/limitconversion.h"
#include "model/policy/pathpattern.h"
#include "model/policy/ratesyntax.h"

#include <QRegularExpression>

#include "model/base/yamlemitter.h"

#include <algorithm>

namespace qs {

namespace {

struct KongRoute {
    qsizetype index = 0;
    QString name; // [A-Za-z0-9_.~-]
    PathPattern pattern;
    QStringList methods;
    QString limitBy; // ip | header | service
    QString header;
    std::vector<UnitRate> units; // one per limit: the plugin's second, minute, hour, day fields
};

class KongWriter final : public GatewayWriter {
public:
    KongWriter(const Policy &policy, const Exporter &exporter) : GatewayWriter(policy, exporter)
    {
        m_report.reserve(QStringLiteral("qs-unlimited"));
        // Kong's counters start at 00:00 UTC, on the 1st and on January 1st
        // (kong.tools.timestamp.get_timestamps); it has no week (GATEWAY-LIMITS.md).
        m_report.setNativeCalendarUnits({limiter::CalendarUnit::Day, limiter::CalendarUnit::Month,
            limiter::CalendarUnit::Year});
    }

private:
    // regex_priority follows this order.
    void order() override { sortMostSpecificFirst(m_routes); }
    QByteArray write(const QString &) override { return yaml(); }

    void prepare(qsizetype i) override
    {
        const Route &r = m_policy.routes[i];
        KongRoute out;
        out.index = i;
        // Kong names: letters, digits and . - _ ~ only.
        static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9_.~-]"));
        out.name = m_report.uniqueName(QStringLiteral("qs-"), r.id, unsafe, QLatin1Char('-'));
        const auto pattern = m_report.pathPattern(i);
        if (!pattern)
            return;
        out.pattern = *pattern;
        out.methods = r.methods;
        // One rate-limiting plugin per route in Kong OSS, with one limit_by: the route's limits
        // become its period fields (GATEWAY-LIMITS.md, Kong).
        std::optional<QList<KeySelector>> key;
        for (qsizetype l = 0; l < r.limits.size(); ++l) {
            const RouteLimit &limit = r.limits[l];
            // A shadow limit is not exported (no dry-run), but checked as if it were: what Kong
            // could not express is said before the limit is ever enforced.
            const bool shadow = r.modeOf(limit) == RouteMode::Shadow;
            KongRoute scratch = out;
            KongRoute &into = shadow ? scratch : out;
            const QList<KeySelector> keys = m_policy.keyOf(r, limit);
            if (shadow || !key) {
                if (!mapKey(into, keys))
                    return;
                if (!shadow)
                    key = keys;
            } else if (keys != *key) {
                m_report.note(Diagnostic::Severity::Error, i, QStringLiteral(".limits"),
                    QStringLiteral("Kong OSS runs one rate-limiting plugin per route, with one "
                                   "limit_by: limit '%1' counts by %2 and the others by %3; give "
                                   "the route's limits one key for this target")
                        .arg(ExportReport::commentSafe(limit.name), formatKeySelectorList(keys),
                            formatKeySelectorList(*key)));
                return;
            }
            const auto config = r.hasSeveralLimits() ? m_report.algorithmConfig(i, l)
                                                     : m_report.algorithmConfig(i);
            if (!config || !mapLimit(into, l, *config))
                return;
            if (shadow)
                m_report.note(Diagnostic::Severity::Warning, i,
                    r.hasSeveralLimits()
                        ? QLatin1Char('.') + r.limitPath(l) + QStringLiteral(".mode")
                        : QStringLiteral(".mode"),
                    r.hasSeveralLimits()
                        ? QStringLiteral("Kong's rate-limiting has no dry-run: shadow limit '%1' "
                                         "is not exported")
                              .arg(ExportReport::commentSafe(limit.name))
                        : QStringLiteral("Kong's rate-limiting has no dry-run: the shadow route "
                                         "is exported without the plugin"));
            noteCostNotExported(i, l);
        }
        if (!checkPeriods(out))
            return;
        m_routes.push_back(out);
    }

    // One number per period field, and a longer period never below a shorter one: Kong's schema
    // refuses the configuration otherwise (validate_periods_order).
    bool checkPeriods(KongRoute &out)
    {
        std::sort(out.units.begin(), out.units.end(),
            [](const UnitRate &a, const UnitRate &b) { return a.unitMicros < b.unitMicros; });
        for (std::size_t k = 1; k < out.units.size(); ++k) {
            const UnitRate &shorter = out.units[k - 1], &longer = out.units[k];
            QString problem;
            if (shorter.unit == longer.unit)
                problem = QStringLiteral("two limits become Kong's `%1` (%2 and %3): the plugin "
                                         "holds one number per period")
                              .arg(longer.unit)
                              .arg(shorter.perUnit)
                              .arg(longer.perUnit);
            else if (longer.perUnit < shorter.perUnit)
                problem = QStringLiteral("Kong refuses %1 per %2 beside %3 per %4: a longer "
                                         "period may not have a lower limit than a shorter one")
                              .arg(longer.perUnit)
                              .arg(longer.unit)
                              .arg(shorter.perUnit)
                              .arg(shorter.unit);
            if (!problem.isEmpty()) {
                m_report.note(
                    Diagnostic::Severity::Error, out.index, QStringLiteral(".limits"), problem);
                return false;
            }
        }
        return true;
    }

    // Kong's rate-limiting keys a request without the header by the client address (its
    // handler falls back to the forwarded IP): exactly missing_key ip, nothing else.
    void noteMissingKey(const KongRoute &out)
    {
        const MissingKeyMode mode = m_policy.missingKeyOf(m_policy.routes[out.index]);
        if (mode == MissingKeyMode::Ip)
            return;
        m_report.note(Diagnostic::Severity::Warning, out.index, QStringLiteral(".missing_key"),
            QStringLiteral("Kong counts a request without %1 under the client address, not as "
                           "missing_key: %2 says; set missing_key: ip to design what Kong does")
                .arg(ExportReport::commentSafe(out.header), missingKeyModeName(mode)));
    }

    bool mapKey(KongRoute &out, const QList<KeySelector> &keys)
    {
        if (keys.size() != 1) {
            m_report.note(Diagnostic::Severity::Error, out.index, QStringLiteral(".key"),
                QStringLiteral("Kong's limit_by takes one source; a combined key (%1 parts) "
                               "cannot be exported")
                    .arg(keys.size()));
            return false;
        }
        const KeySelector &k = keys.first();
        switch (k.kind) {
        case KeySelector::Kind::Ip:
            out.limitBy = QStringLiteral("ip");
            return true;
        case KeySelector::Kind::Header:
            if (!isValidHeaderName(k.name)) {
                m_report.note(Diagnostic::Severity::Error, out.index, QStringLiteral(".key"),
                    QStringLiteral("'%1' is not a valid HTTP header name")
                        .arg(ExportReport::commentSafe(k.name)));
                return false;
            }
            out.limitBy = QStringLiteral("header");
            out.header = k.name;
            noteMissingKey(out);
            return true;
        case KeySelector::Kind::Global:
            // Every route has a service of its own, so "per service" is "per route".
            out.limitBy = QStringLiteral("service");
            return true;
        case KeySelector::Kind::Query:
            break;
        }
        m_report.note(Diagnostic::Severity::Error, out.index, QStringLiteral(".key"),
            QStringLiteral("Kong's rate-limiting cannot count by query parameter (ip, header, "
                           "consumer, credential, service or path only)"));
        return false;
    }

    // A calendar day, month or year quota as Kong's own field of that name. Kong's Reset header
    // counts a month as 30 days (its maintainers' choice), the counter follows the calendar.
    static std::optional<UnitRate> calendarUnitRate(const limiter::AlgorithmConfig &config)
    {
        const auto *fixed = std::get_if<limiter::FixedWindowConfig>(&config);
        const limiter::CalendarWindows *zoned
            = fixed && fixed->calendar ? fixed->calendar->zoned() : nullptr;
        if (!zoned || zoned->unit() == limiter::CalendarUnit::Week)
            return std::nullopt;
        return UnitRate{QString::fromLatin1(limiter::calendarUnitName(zoned->unit()).data()),
            limiter::nominalLength(zoned->unit()), fixed->limit, true, true};
    }

    bool mapLimit(KongRoute &out, qsizetype l, const limiter::AlgorithmConfig &config)
    {
        const QString at = QLatin1Char('.') + m_policy.routes[out.index].limitPath(l);
        if (const auto unit = calendarUnitRate(config)) {
            out.units.push_back(*unit); // the zone, when not UTC: ExportReport warned
            return true;
        }
        const LimitShape shape = limitShape(config);
        const auto unit = toUnitRate(shape.count, shape.period);
        if (!unit) {
            m_report.note(Diagnostic::Severity::Error, out.index, at,
                QStringLiteral("%1 per %2 is less than one a day, below what Kong's "
                               "rate-limiting counts; use a higher rate")
                    .arg(shape.count)
                    .arg(formatDuration(shape.period)));
            return false;
        }
        out.units.push_back(*unit);
        const auto algorithm = limiter::algorithmOf(config);
        if (algorithm == limiter::Algorithm::FixedWindow && unit->sameWindow)
            return true; // Kong's windows are aligned to the clock, as ours are to the epoch
        QString what = QStringLiteral("%1 per %2 in fixed windows aligned to the clock")
                           .arg(unit->perUnit)
                           .arg(unit->unit);
        if (!unit->exactRate)
            what += QStringLiteral(", rounded down from %1 per %2")
                        .arg(double(shape.count) * double(unit->unitMicros) / double(shape.period),
                            0, 'g', 6)
                        .arg(unit->unit);
        QString designed;
        if (shape.windowed)
            designed = QStringLiteral("%1 %2 per %3: up to %4 may pass around a window boundary")
                           .arg(QString::fromLatin1(limiter::algorithmName(algorithm).data()))
                           .arg(shape.count)
                           .arg(formatDuration(shape.period))
                           .arg(2 * unit->perUnit);
        else
            designed = QStringLiteral("%1 at once and %2 per %3 designed; %4 may pass at once "
                                      "and up to %5 around a window boundary%6")
                           .arg(shape.burst)
                           .arg(shape.count)
                           .arg(formatDuration(shape.period))
                           .arg(unit->perUnit)
                           .arg(2 * unit->perUnit)
                           .arg(shape.shaping ? QStringLiteral("; nothing is delayed, Kong "
                                                               "rejects instead of shaping")
                                              : QString());
        m_report.note(Diagnostic::Severity::Warning, out.index, at,
            QStringLiteral("exported as %1 (%2)").arg(what, designed));
        return true;
    }

    void emitPlugin(yaml::Emitter &out, const KongRoute &r) const
    {
        out << yaml::Key << "plugins" << yaml::Value << yaml::BeginSeq << yaml::BeginMap;
        out << yaml::Key << "name" << yaml::Value << "rate-limiting";
        out << yaml::Key << "config" << yaml::Value << yaml::BeginMap;
        for (const UnitRate &unit : r.units)
            out << yaml::Key << unit.unit.toStdString() << yaml::Value << unit.perUnit;
        out << yaml::Key << "limit_by" << yaml::Value << r.limitBy.toStdString();
        if (!r.header.isEmpty())
            out << yaml::Key << "header_name" << yaml::Value << r.header.toStdString();
        // Counters in each Kong node's memory; switch to `redis` for one quota per cluster.
        out << yaml::Key << "policy" << yaml::Value << "local";
        out << yaml::Key << "fault_tolerant" << yaml::Value
            << (m_policy.defaults.effectiveOnStoreError() == limiter::StoreErrorPolicy::Allow);
        out << yaml::Key << "error_code" << yaml::Value << m_policy.defaults.effectiveStatus();
        out << yaml::EndMap << yaml::EndMap << yaml::EndSeq;
    }

    static void emitService(yaml::Emitter &out, const QString &name)
    {
        out << yaml::Key << "name" << yaml::Value << name.toStdString();
        out << yaml::Key << "url" << yaml::Value << "http://127.0.0.1:8081";
    }

    QByteArray yaml() const
    {
        yaml::Emitter out;
        out.reserve(qsizetype(1024 + m_routes.size() * 512)); // about 460 bytes a route
        out << yaml::Comment("Generated by Quota Studio: Kong declarative configuration");
        out << yaml::BeginMap;
        out << yaml::Key << "_format_version" << yaml::Value << yaml::DoubleQuoted << "3.0";
        out << yaml::Key << "services" << yaml::Value << yaml::BeginSeq;
        int priority = 1000 + int(m_routes.size());
        for (const KongRoute &r : m_routes) {
            out << yaml::BeginMap;
            emitService(out, r.name);
            out << yaml::Key << "routes" << yaml::Value << yaml::BeginSeq << yaml::BeginMap;
            out << yaml::Key << "name" << yaml::Value << r.name.toStdString();
            // Kong 3 reads a path starting with `~` as a regex anchored at the start.
            out << yaml::Key << "paths" << yaml::Value << yaml::BeginSeq << yaml::DoubleQuoted
                << (QLatin1Char('~') + r.pattern.toRegex().mid(1)).toStdString() << yaml::EndSeq;
            if (!r.methods.isEmpty()) {
                out << yaml::Key << "methods" << yaml::Value << yaml::Flow << yaml::BeginSeq;
                for (const QString &m : r.methods)
                    out << m.toStdString();
                out << yaml::EndSeq;
            }
            out << yaml::Key << "regex_priority" << yaml::Value << priority--;
            out << yaml::Key << "strip_path" << yaml::Value << false; // default true
            if (!r.units.empty())
                emitPlugin(out, r);
            out << yaml::EndMap << yaml::EndSeq << yaml::EndMap;
        }
        // Paths no route claims pass unlimited, as they would without Quota Studio.
        out << yaml::BeginMap;
        emitService(out, QStringLiteral("qs-unlimited"));
        out << yaml::Key << "routes" << yaml::Value << yaml::BeginSeq << yaml::BeginMap << yaml::Key
            << "name" << yaml::Value << "qs-unlimited" << yaml::Key << "paths" << yaml::Value
            << yaml::Flow << yaml::BeginSeq << "/" << yaml::EndSeq << yaml::Key << "strip_path"
            << yaml::Value << false << yaml::EndMap << yaml::EndSeq;
        out << yaml::EndMap;
        out << yaml::EndSeq << yaml::EndMap;
        return out.takeDocument();
    }

    std::vector<KongRoute> m_routes;
};

} // namespace

ExportResult KongExporter::write(const Policy &policy) const
{
    return KongWriter(policy, *this).run();
}

} // namespace qs
