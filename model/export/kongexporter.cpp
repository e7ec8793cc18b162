#include "model/export/kongexporter.h"

#include "model/export/exportreport.h"
#include "model/export/gatewaywriter.h"
#include "model/export/limitshape.h"
#include "model/policy/keyselectorsyntax.h"
#include "model/policy/limitconversion.h"
#include "model/policy/pathpattern.h"
#include "model/policy/ratesyntax.h"

#include <QRegularExpression>

#include <yaml-cpp/yaml.h>

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
    UnitRate unitRate;
    bool limited = true;
};

class KongWriter final : public GatewayWriter {
public:
    KongWriter(const Policy &policy, const Exporter &exporter) : GatewayWriter(policy, exporter)
    {
        m_report.reserve(QStringLiteral("qs-unlimited"));
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
        if (!mapKey(out, m_policy.keyOf(r)))
            return;
        const auto config = m_report.algorithmConfig(i);
        if (!config)
            return;
        if (!mapLimit(out, *config))
            return;
        if (r.effectiveMode() == RouteMode::Shadow) {
            out.limited = false;
            m_report.note(Diagnostic::Severity::Warning, i, QStringLiteral(".mode"),
                QStringLiteral("Kong's rate-limiting has no dry-run: the shadow route is "
                               "exported without the plugin"));
        }
        noteCostNotExported(i);
        m_routes.push_back(out);
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

    bool mapLimit(KongRoute &out, const limiter::AlgorithmConfig &config)
    {
        const LimitShape shape = limitShape(config);
        const auto unit = toUnitRate(shape.count, shape.period);
        if (!unit) {
            m_report.note(Diagnostic::Severity::Error, out.index, QStringLiteral(".limit"),
                QStringLiteral("%1 per %2 is less than one a day, below what Kong's "
                               "rate-limiting counts; use a higher rate")
                    .arg(shape.count)
                    .arg(formatDuration(shape.period)));
            return false;
        }
        out.unitRate = *unit;
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
        m_report.note(Diagnostic::Severity::Warning, out.index, QStringLiteral(".limit"),
            QStringLiteral("exported as %1 (%2)").arg(what, designed));
        return true;
    }

    void emitPlugin(YAML::Emitter &out, const KongRoute &r) const
    {
        out << YAML::Key << "plugins" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
        out << YAML::Key << "name" << YAML::Value << "rate-limiting";
        out << YAML::Key << "config" << YAML::Value << YAML::BeginMap;
        out << YAML::Key << r.unitRate.unit.toStdString() << YAML::Value << r.unitRate.perUnit;
        out << YAML::Key << "limit_by" << YAML::Value << r.limitBy.toStdString();
        if (!r.header.isEmpty())
            out << YAML::Key << "header_name" << YAML::Value << r.header.toStdString();
        // Counters in each Kong node's memory; switch to `redis` for one quota per cluster.
        out << YAML::Key << "policy" << YAML::Value << "local";
        out << YAML::Key << "fault_tolerant" << YAML::Value
            << (m_policy.defaults.effectiveOnStoreError() == limiter::StoreErrorPolicy::Allow);
        out << YAML::Key << "error_code" << YAML::Value << m_policy.defaults.effectiveStatus();
        out << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
    }

    static void emitService(YAML::Emitter &out, const QString &name)
    {
        out << YAML::Key << "name" << YAML::Value << name.toStdString();
        out << YAML::Key << "url" << YAML::Value << "http://127.0.0.1:8081";
    }

    QByteArray yaml() const
    {
        YAML::Emitter out;
        out << YAML::Comment("Generated by Quota Studio: Kong declarative configuration");
        out << YAML::BeginMap;
        out << YAML::Key << "_format_version" << YAML::Value << YAML::DoubleQuoted << "3.0";
        out << YAML::Key << "services" << YAML::Value << YAML::BeginSeq;
        int priority = 1000 + int(m_routes.size());
        for (const KongRoute &r : m_routes) {
            out << YAML::BeginMap;
            emitService(out, r.name);
            out << YAML::Key << "routes" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
            out << YAML::Key << "name" << YAML::Value << r.name.toStdString();
            // Kong 3 reads a path starting with `~` as a regex anchored at the start.
            out << YAML::Key << "paths" << YAML::Value << YAML::BeginSeq << YAML::DoubleQuoted
                << (QLatin1Char('~') + r.pattern.toRegex().mid(1)).toStdString() << YAML::EndSeq;
            if (!r.methods.isEmpty()) {
                out << YAML::Key << "methods" << YAML::Value << YAML::Flow << YAML::BeginSeq;
                for (const QString &m : r.methods)
                    out << m.toStdString();
                out << YAML::EndSeq;
            }
            out << YAML::Key << "regex_priority" << YAML::Value << priority--;
            out << YAML::Key << "strip_path" << YAML::Value << false; // default true
            if (r.limited)
                emitPlugin(out, r);
            out << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
        }
        // Paths no route claims pass unlimited, as they would without Quota Studio.
        out << YAML::BeginMap;
        emitService(out, QStringLiteral("qs-unlimited"));
        out << YAML::Key << "routes" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key
            << "name" << YAML::Value << "qs-unlimited" << YAML::Key << "paths" << YAML::Value
            << YAML::Flow << YAML::BeginSeq << "/" << YAML::EndSeq << YAML::Key << "strip_path"
            << YAML::Value << false << YAML::EndMap << YAML::EndSeq;
        out << YAML::EndMap;
        out << YAML::EndSeq << YAML::EndMap;
        return QByteArray(out.c_str()) + '\n';
    }

    std::vector<KongRoute> m_routes;
};

} // namespace

ExportResult KongExporter::exportPolicy(const Policy &policy) const
{
    return KongWriter(policy, *this).run();
}

} // namespace qs
