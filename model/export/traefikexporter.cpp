#include "model/export/traefikexporter.h"

#include "model/export/exportreport.h"
#include "model/export/gatewaywriter.h"

#include "model/export/limitshape.h"
#include "model/policy/limitconversion.h"
#include "model/policy/pathpattern.h"
#include "model/policy/plans.h"
#include "model/policy/ratesyntax.h"

#include <QRegularExpression>

#include "model/base/yamlemitter.h"

#include <algorithm>

namespace qs {

namespace {

// One rateLimit middleware: a limit of a route.
struct MiddlewareOut {
    QString name;
    qint64 average = 0, burst = 0;
    limiter::Micros period = 0;
    QString criterionKind; // ipStrategy | requestHeaderName | requestHost
    QString header;
};

struct RouterOut {
    qsizetype index = 0;
    QString name;
    PathPattern pattern;
    QString rule;
    QString plan; // a plan's router: the route's rule and the plan's header; empty: the route's
    // Chained in this order; empty: the router is exported without a limit (shadow).
    std::vector<MiddlewareOut> middlewares;
};

class TraefikWriter final : public GatewayWriter {
public:
    TraefikWriter(const Policy &policy, const Exporter &exporter) : GatewayWriter(policy, exporter)
    {
        m_report.setPlans(); // a router per plan on its header (planRouters)
    }

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

        if (m_policy.defaults.effectiveStatus() != Defaults::kDefaultStatus)
            m_report.note(Diagnostic::Severity::Warning, i, QString(),
                QStringLiteral("Traefik always answers 429; status %1 is not exported")
                    .arg(*m_policy.defaults.status));
        // Plans: a router per plan other than the default, on the route's rule and the plan's
        // header, before the route's own router (which takes the default plan and any other).
        const PlanSettings &plans = m_policy.plans;
        const bool planned = routeVariesByPlan(m_policy, r);
        if (planned && !planRouters(i, out))
            return;
        if (!middlewares(i, out, planned ? plans.effectiveDefault() : QString()))
            return;
        m_routers.push_back(out);
    }

    // A router per plan but the default: `Header(`X-Plan`, `pro`)` added to the route's rule.
    // Only a plan named in a header can be routed on; otherwise every client gets the default
    // plan's numbers, said once.
    bool planRouters(qsizetype i, const RouterOut &route)
    {
        const PlanSettings &plans = m_policy.plans;
        const Route &r = m_policy.routes[i];
        static const QRegularExpression headerOk(QStringLiteral("^[A-Za-z0-9-]+$"));
        if (!plans.from || plans.fromMap() || plans.from->kind != KeySelector::Kind::Header
            || !headerOk.match(plans.from->name).hasMatch()) {
            m_report.note(Diagnostic::Severity::Warning, i, QStringLiteral(".limits"),
                QStringLiteral("Traefik routes on a header only: plans from %1 cannot be told "
                               "apart, and every client gets the default plan's ('%2') numbers")
                    .arg(plans.from ? ExportReport::commentSafe(plans.from->toString())
                                    : QStringLiteral("nothing"),
                        plans.effectiveDefault()));
            return true;
        }
        if (std::any_of(r.limits.begin(), r.limits.end(),
                [](const RouteLimit &l) { return !l.variesByPlan(); }))
            m_report.note(Diagnostic::Severity::Warning, i, QStringLiteral(".limits"),
                QStringLiteral("Traefik builds a route's middlewares per router: a limit "
                               "without plans of its own counts each plan's clients apart "
                               "here (the design counts them together)"));
        static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9_-]"));
        for (const QString &plan : plans.names) {
            if (plan == plans.effectiveDefault())
                continue;
            RouterOut out = route;
            out.plan = plan;
            out.name = m_report.uniqueName(
                route.name + QLatin1Char('-'), plan, unsafe, QLatin1Char('-'));
            // Plan names are [A-Za-z0-9_.-]: nothing that ends a backtick string.
            out.rule = QStringLiteral("(%1) && Header(`%2`, `%3`)")
                           .arg(route.rule, plans.from->name, plan);
            if (!middlewares(i, out, plan))
                return false;
            m_routers.push_back(out);
        }
        return true;
    }

    // The router's rateLimit middlewares: each limit on `plan`'s numbers (empty: the limit's
    // own); an unlimited limit has none. False after an error.
    bool middlewares(qsizetype i, RouterOut &out, const QString &plan)
    {
        const Route &r = m_policy.routes[i];
        static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9_-]"));
        for (qsizetype l = 0; l < r.limits.size(); ++l) {
            const RouteLimit &limit = r.limits[l];
            const QString at = r.hasSeveralLimits()
                ? QLatin1Char('.') + r.limitPath(l) + QStringLiteral(".mode")
                : QStringLiteral(".mode");
            if (r.modeOf(limit) == RouteMode::Shadow) {
                if (!out.plan.isEmpty())
                    continue; // said with the route's own router
                m_report.note(Diagnostic::Severity::Warning, i, at,
                    r.hasSeveralLimits()
                        ? QStringLiteral(
                            "Traefik has no dry-run: shadow limit '%1' is not exported")
                              .arg(ExportReport::commentSafe(limit.name))
                        : QStringLiteral("Traefik has no dry-run: the shadow route is exported "
                                         "with its router but without the rateLimit middleware"));
                continue;
            }
            const bool byPlan = !plan.isEmpty() && limit.variesByPlan();
            if (byPlan && !specForPlan(limit, plan))
                continue; // unlimited on this plan
            MiddlewareOut mw;
            mw.name = r.hasSeveralLimits() ? m_report.uniqueName(out.name + QLatin1Char('-'),
                                                 limit.name, unsafe, QLatin1Char('-'))
                    + QStringLiteral("-ratelimit")
                                           : out.name + QStringLiteral("-ratelimit");
            if (!source(i, l, mw))
                return false;
            const auto config = byPlan ? m_report.planConfig(i, l, plan)
                : r.hasSeveralLimits() ? m_report.algorithmConfig(i, l)
                                       : m_report.algorithmConfig(i);
            if (!config)
                return false;
            mapLimit(i, l, mw, *config);
            if (out.plan.isEmpty())
                noteCostNotExported(i, l); // once a limit, with the route's own router
            out.middlewares.push_back(mw);
        }
        if (out.middlewares.size() > 1)
            chainLongestWindowLast(out);
        return true;
    }

    // The limit's key as Traefik's sourceCriterion; false after an error.
    bool source(qsizetype i, qsizetype l, MiddlewareOut &out)
    {
        const Route &r = m_policy.routes[i];
        const RouteLimit &limit = r.limits[l];
        const QString keyField = this->keyField(i, l);
        const QList<KeySelector> keys = m_policy.keyOf(r, limit);
        if (keys.size() != 1) {
            m_report.note(Diagnostic::Severity::Error, i, keyField,
                QStringLiteral("Traefik's sourceCriterion takes one source; a combined key cannot "
                               "be exported"));
            return false;
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
            if (const MissingKeyMode mode = m_policy.missingKeyOf(r, limit);
                mode != MissingKeyMode::Shared)
                m_report.note(Diagnostic::Severity::Warning, i, QStringLiteral(".missing_key"),
                    QStringLiteral("Traefik counts every request without %1 in one shared "
                                   "bucket, not as missing_key: %2 says; set missing_key: "
                                   "shared to design what Traefik does")
                        .arg(ExportReport::commentSafe(out.header), missingKeyModeName(mode)));
            break;
        case KeySelector::Kind::Global:
            out.criterionKind = QStringLiteral("requestHost");
            m_report.note(Diagnostic::Severity::Warning, i, keyField,
                QStringLiteral("Traefik has no global source; exported per requested host "
                               "(requestHost), so each host name gets its own quota"));
            break;
        case KeySelector::Kind::Query:
            m_report.note(Diagnostic::Severity::Error, i, keyField,
                QStringLiteral("Traefik cannot count by query parameter (ipStrategy, "
                               "requestHeaderName or requestHost only)"));
            return false;
        }
        return true;
    }

    // Traefik's middlewares are independent: one that admits keeps its token when a later one
    // rejects (GATEWAY-LIMITS.md, Traefik). Chained shortest period first, so that what leaks
    // is the short-window limits' tokens, which come back soonest, not the long quota's; and
    // said with the numbers.
    void chainLongestWindowLast(RouterOut &out)
    {
        std::stable_sort(out.middlewares.begin(), out.middlewares.end(),
            [](const MiddlewareOut &a, const MiddlewareOut &b) {
                return double(a.period) / double(a.average) < double(b.period) / double(b.average);
            });
        QStringList earlier;
        for (std::size_t k = 0; k + 1 < out.middlewares.size(); ++k)
            earlier << QStringLiteral("%1 (burst %2, %3 per %4)")
                           .arg(out.middlewares[k].name)
                           .arg(out.middlewares[k].burst)
                           .arg(out.middlewares[k].average)
                           .arg(formatDuration(out.middlewares[k].period));
        m_report.note(Diagnostic::Severity::Warning, out.index, QStringLiteral(".limits"),
            QStringLiteral("Traefik chains the limits as independent middlewares: a request a "
                           "later one rejects has already taken a token from every earlier one "
                           "(the design takes from none). Chained shortest window first, so a "
                           "client held back by %1 still spends the tokens of %2; each of those "
                           "can be emptied by requests that were all rejected")
                .arg(out.middlewares.back().name, earlier.join(QStringLiteral(", "))));
    }

    void mapLimit(
        qsizetype i, qsizetype l, MiddlewareOut &out, const limiter::AlgorithmConfig &config)
    {
        const Route &r = m_policy.routes[i];
        const QString at = QLatin1Char('.') + r.limitPath(l);
        const LimitShape shape = limitShape(config);
        out.average = shape.count;
        out.period = shape.period;
        out.burst = shape.burst;
        if (shape.shaping)
            m_report.note(Diagnostic::Severity::Warning, i, at + QStringLiteral(".mode"),
                QStringLiteral("Traefik does not shape: requests beyond the rate are rejected at "
                               "once instead of delayed (up to %1 would have waited)")
                    .arg(shape.burst - 1));
        if (shape.windowed)
            m_report.note(Diagnostic::Severity::Warning, i, at + QStringLiteral(".algorithm"),
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
        yaml::Emitter out;
        out.reserve(qsizetype(1024 + m_routers.size() * 384)); // about 330 bytes a route
        out << yaml::Comment(
            QStringLiteral("Generated by Quota Studio (Traefik v3 dynamic configuration)")
                .toStdString());
        out << yaml::BeginMap << yaml::Key << "http" << yaml::Value << yaml::BeginMap;
        out << yaml::Key << "routers" << yaml::Value << yaml::BeginMap;
        int priority = 1000 + int(m_routers.size());
        for (const RouterOut &r : m_routers) {
            out << yaml::Key << r.name.toStdString() << yaml::Value << yaml::BeginMap;
            out << yaml::Key << "rule" << yaml::Value << yaml::DoubleQuoted << r.rule.toStdString();
            out << yaml::Key << "priority" << yaml::Value << priority--; // most specific first
            out << yaml::Key << "service" << yaml::Value << "qs-backend";
            if (!r.middlewares.empty()) {
                out << yaml::Key << "middlewares" << yaml::Value << yaml::Flow << yaml::BeginSeq;
                for (const MiddlewareOut &mw : r.middlewares)
                    out << mw.name.toStdString();
                out << yaml::EndSeq;
            }
            out << yaml::EndMap;
        }
        out << yaml::EndMap;
        out << yaml::Key << "middlewares" << yaml::Value << yaml::BeginMap;
        for (const RouterOut &router : m_routers)
            for (const MiddlewareOut &r : router.middlewares) {
                out << yaml::Key << r.name.toStdString() << yaml::Value << yaml::BeginMap;
                out << yaml::Key << "rateLimit" << yaml::Value << yaml::BeginMap;
                out << yaml::Key << "average" << yaml::Value << r.average;
                out << yaml::Key << "period" << yaml::Value
                    << formatDuration(r.period).toStdString();
                out << yaml::Key << "burst" << yaml::Value << r.burst;
                out << yaml::Key << "sourceCriterion" << yaml::Value << yaml::BeginMap;
                if (r.criterionKind == QLatin1String("ipStrategy"))
                    out << yaml::Key << "ipStrategy" << yaml::Value << yaml::BeginMap << yaml::Key
                        << "depth" << yaml::Value << 0 << yaml::EndMap;
                else if (r.criterionKind == QLatin1String("requestHeaderName"))
                    out << yaml::Key << "requestHeaderName" << yaml::Value
                        << r.header.toStdString();
                else
                    out << yaml::Key << "requestHost" << yaml::Value << true;
                out << yaml::EndMap << yaml::EndMap << yaml::EndMap;
            }
        out << yaml::EndMap;
        out << yaml::Key << "services" << yaml::Value << yaml::BeginMap << yaml::Key << "qs-backend"
            << yaml::Value << yaml::BeginMap << yaml::Key << "loadBalancer" << yaml::Value
            << yaml::BeginMap << yaml::Key << "servers" << yaml::Value << yaml::BeginSeq
            << yaml::BeginMap << yaml::Key << "url" << yaml::Value << "http://127.0.0.1:8081"
            << yaml::EndMap << yaml::EndSeq << yaml::EndMap << yaml::EndMap << yaml::EndMap;
        out << yaml::EndMap << yaml::EndMap;
        return out.takeDocument();
    }

    std::vector<RouterOut> m_routers;
};

} // namespace

ExportResult TraefikExporter::write(const Policy &policy) const
{
    return TraefikWriter(policy, *this).run();
}

} // namespace qs
