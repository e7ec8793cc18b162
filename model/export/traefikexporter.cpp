#include "model/export/traefikexporter.h"

#include "model/export/exportreport.h"
#include "model/export/gatewaywriter.h"

#include "model/export/limitshape.h"
#include "model/policy/limitconversion.h"
#include "model/policy/pathpattern.h"
#include "model/policy/ratesyntax.h"

#include <QRegularExpression>

#include <yaml-cpp/yaml.h>

#include <algorithm>

namespace qs {

namespace {

struct RouterOut {
    qsizetype index = 0;
    QString name;
    PathPattern pattern;
    QString rule;
    bool limited = true;
    qint64 average = 0, burst = 0;
    limiter::Micros period = 0;
    QString criterionKind; // ipStrategy | requestHeaderName | requestHost
    QString header;
};

class TraefikWriter final : public GatewayWriter {
public:
    using GatewayWriter::GatewayWriter;

private:
    // Router priorities are given in this order.
    void order() override { sortMostSpecificFirst(m_routers); }
    QByteArray write(const QString &) override { return yaml(); }

    void prepare(qsizetype i) override
    {
        const Route &r = m_policy.routes[i];
        RouterOut out;
        out.index = i;
        static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9_-]"));
        out.name = m_report.uniqueName(QStringLiteral("qs-"), r.id, unsafe, QLatin1Char('-'));
        const auto pattern = m_report.pathPattern(i);
        if (!pattern)
            return;
        out.pattern = *pattern;
        // The regex holds no backtick (parse() refuses them), so it cannot end the rule string.
        out.rule = QStringLiteral("PathRegexp(`%1`)").arg(out.pattern.toRegex());
        if (!r.methods.isEmpty()) {
            QStringList methods;
            for (const QString &m : r.methods)
                methods << QStringLiteral("Method(`%1`)").arg(m);
            out.rule += QStringLiteral(" && (%1)").arg(methods.join(QStringLiteral(" || ")));
        }

        const QList<KeySelector> keys = m_policy.keyOf(r);
        if (keys.size() != 1) {
            m_report.note(Diagnostic::Severity::Error, i, QStringLiteral(".key"),
                QStringLiteral("Traefik's sourceCriterion takes one source; a combined key cannot "
                               "be exported"));
            return;
        }
        switch (keys.first().kind) {
        case KeySelector::Kind::Ip:
            out.criterionKind = QStringLiteral("ipStrategy");
            break;
        case KeySelector::Kind::Header:
            out.criterionKind = QStringLiteral("requestHeaderName");
            out.header = keys.first().name;
            // Traefik keys the bucket by the header's value, empty when it is absent: every
            // such request shares one bucket, which is missing_key shared.
            if (const MissingKeyMode mode = m_policy.missingKeyOf(r);
                mode != MissingKeyMode::Shared)
                m_report.note(Diagnostic::Severity::Warning, i, QStringLiteral(".missing_key"),
                    QStringLiteral("Traefik counts every request without %1 in one shared "
                                   "bucket, not as missing_key: %2 says; set missing_key: "
                                   "shared to design what Traefik does")
                        .arg(ExportReport::commentSafe(out.header), missingKeyModeName(mode)));
            break;
        case KeySelector::Kind::Global:
            out.criterionKind = QStringLiteral("requestHost");
            m_report.note(Diagnostic::Severity::Warning, i, QStringLiteral(".key"),
                QStringLiteral("Traefik has no global source; exported per requested host "
                               "(requestHost), so each host name gets its own quota"));
            break;
        case KeySelector::Kind::Query:
            m_report.note(Diagnostic::Severity::Error, i, QStringLiteral(".key"),
                QStringLiteral("Traefik cannot count by query parameter (ipStrategy, "
                               "requestHeaderName or requestHost only)"));
            return;
        }

        if (r.effectiveMode() == RouteMode::Shadow) {
            out.limited = false;
            m_report.note(Diagnostic::Severity::Warning, i, QStringLiteral(".mode"),
                QStringLiteral("Traefik has no dry-run: the shadow route is exported with its "
                               "router but without the rateLimit middleware"));
        }
        const auto config = m_report.algorithmConfig(i);
        if (!config)
            return;
        mapLimit(out, *config);
        if (m_policy.defaults.effectiveStatus() != Defaults::kDefaultStatus)
            m_report.note(Diagnostic::Severity::Warning, i, QString(),
                QStringLiteral("Traefik always answers 429; status %1 is not exported")
                    .arg(*m_policy.defaults.status));
        noteCostNotExported(i);
        m_routers.push_back(out);
    }

    void mapLimit(RouterOut &out, const limiter::AlgorithmConfig &config)
    {
        const LimitShape shape = limitShape(config);
        out.average = shape.count;
        out.period = shape.period;
        out.burst = shape.burst;
        if (shape.shaping)
            m_report.note(Diagnostic::Severity::Warning, out.index, QStringLiteral(".limit.mode"),
                QStringLiteral("Traefik does not shape: requests beyond the rate are rejected at "
                               "once instead of delayed (up to %1 would have waited)")
                    .arg(shape.burst - 1));
        if (shape.windowed)
            m_report.note(Diagnostic::Severity::Warning, out.index,
                QStringLiteral(".limit.algorithm"),
                QStringLiteral("%1 %2/%3 exported as a token bucket (average %2 per %3, "
                               "burst %2): %2 at once, then one every %4 s; no window resets")
                    .arg(QString::fromLatin1(
                        limiter::algorithmName(limiter::algorithmOf(config)).data()))
                    .arg(shape.count)
                    .arg(formatDuration(shape.period))
                    .arg(double(shape.period) / double(shape.count) / 1e6, 0, 'g', 3));
    }

    QByteArray yaml() const
    {
        YAML::Emitter out;
        out << YAML::Comment(
            QStringLiteral("Generated by Quota Studio (Traefik v3 dynamic configuration)")
                .toStdString());
        out << YAML::BeginMap << YAML::Key << "http" << YAML::Value << YAML::BeginMap;
        out << YAML::Key << "routers" << YAML::Value << YAML::BeginMap;
        int priority = 1000 + int(m_routers.size());
        for (const RouterOut &r : m_routers) {
            out << YAML::Key << r.name.toStdString() << YAML::Value << YAML::BeginMap;
            out << YAML::Key << "rule" << YAML::Value << YAML::DoubleQuoted << r.rule.toStdString();
            out << YAML::Key << "priority" << YAML::Value << priority--; // most specific first
            out << YAML::Key << "service" << YAML::Value << "qs-backend";
            if (r.limited)
                out << YAML::Key << "middlewares" << YAML::Value << YAML::Flow << YAML::BeginSeq
                    << (r.name + QStringLiteral("-ratelimit")).toStdString() << YAML::EndSeq;
            out << YAML::EndMap;
        }
        out << YAML::EndMap;
        out << YAML::Key << "middlewares" << YAML::Value << YAML::BeginMap;
        for (const RouterOut &r : m_routers) {
            if (!r.limited)
                continue;
            out << YAML::Key << (r.name + QStringLiteral("-ratelimit")).toStdString() << YAML::Value
                << YAML::BeginMap;
            out << YAML::Key << "rateLimit" << YAML::Value << YAML::BeginMap;
            out << YAML::Key << "average" << YAML::Value << r.average;
            out << YAML::Key << "period" << YAML::Value << formatDuration(r.period).toStdString();
            out << YAML::Key << "burst" << YAML::Value << r.burst;
            out << YAML::Key << "sourceCriterion" << YAML::Value << YAML::BeginMap;
            if (r.criterionKind == QLatin1String("ipStrategy"))
                out << YAML::Key << "ipStrategy" << YAML::Value << YAML::BeginMap << YAML::Key
                    << "depth" << YAML::Value << 0 << YAML::EndMap;
            else if (r.criterionKind == QLatin1String("requestHeaderName"))
                out << YAML::Key << "requestHeaderName" << YAML::Value << r.header.toStdString();
            else
                out << YAML::Key << "requestHost" << YAML::Value << true;
            out << YAML::EndMap << YAML::EndMap << YAML::EndMap;
        }
        out << YAML::EndMap;
        out << YAML::Key << "services" << YAML::Value << YAML::BeginMap << YAML::Key << "qs-backend"
            << YAML::Value << YAML::BeginMap << YAML::Key << "loadBalancer" << YAML::Value
            << YAML::BeginMap << YAML::Key << "servers" << YAML::Value << YAML::BeginSeq
            << YAML::BeginMap << YAML::Key << "url" << YAML::Value << "http://127.0.0.1:8081"
            << YAML::EndMap << YAML::EndSeq << YAML::EndMap << YAML::EndMap << YAML::EndMap;
        out << YAML::EndMap << YAML::EndMap;
        return QByteArray(out.c_str()) + '\n';
    }

    std::vector<RouterOut> m_routers;
};

} // namespace

ExportResult TraefikExporter::exportPolicy(const Policy &policy) const
{
    return TraefikWriter(policy, *this).run();
}

} // namespace qs
