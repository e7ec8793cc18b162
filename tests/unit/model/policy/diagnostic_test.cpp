// Where a finding is and who found it are data beside its text: consumers read `route` and
// `target`, and the path is spelled in one place.
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"

#include <gtest/gtest.h>

using namespace qs;

TEST(Diagnostic, CarriesItsRouteAndTargetAsData)
{
    const PolicyReadResult read = readPolicy(QByteArrayLiteral(R"(quota_studio: 1
name: t
routes:
  - id: a
    match: { path: /a }
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
  - id: a
    match: { path: /b }
    cost: 3
    limit: { algorithm: token_bucket, capacity: -1, refill: 1/s }
)"),
        QStringLiteral("d.yaml"));
    bool refused = false, duplicate = false;
    for (const Diagnostic &d : read.diagnostics) {
        if (d.path == QLatin1String("routes[1].limit.capacity")) {
            refused = true;
            EXPECT_EQ(d.route, 1) << "the reader knows the route it is reading";
            EXPECT_EQ(d.fieldInRoute(), QStringLiteral("limit.capacity"));
        }
        if (d.message.contains(QStringLiteral("duplicate"))) {
            duplicate = true;
            EXPECT_EQ(d.path, routePath(d.route, QStringLiteral("id")));
        }
        EXPECT_TRUE(d.target.isEmpty()) << "the policy's own findings";
    }
    EXPECT_TRUE(refused && duplicate);

    Policy fine = read.policy;
    fine.routes[1].id = QStringLiteral("b");
    fine.routes[1].limit().capacity = 5;
    const ExportResult kong = exporterById(QStringLiteral("kong"))->exportPolicy(fine);
    bool cost = false;
    for (const Diagnostic &d : kong.diagnostics)
        if (d.fieldInRoute() == QLatin1String("cost")) {
            cost = true;
            EXPECT_EQ(d.route, 1);
            EXPECT_EQ(d.target, QStringLiteral("kong"));
            EXPECT_EQ(d.routeId, QStringLiteral("b"));
            EXPECT_FALSE(d.message.contains(QStringLiteral("[kong]"))) << "the message alone";
            EXPECT_TRUE(d.toString().contains(QStringLiteral("routes[1].cost: [kong] route 'b': ")))
                << d.toString().toStdString();
        }
    EXPECT_TRUE(cost);
}

// The same warning about many routes is one group, counted, with the first place and a few
// route names; errors and policy-wide findings stay one each, in their order.
TEST(Diagnostic, WarningsAlikeAreGroupedErrorsAreNot)
{
    const auto warning = [](int route, const QString &message, const QString &target = {}) {
        Diagnostic d;
        d.severity = Diagnostic::Severity::Warning;
        d.file = QStringLiteral("p.yaml");
        d.line = route + 4;
        d.column = 5;
        d.route = route;
        d.path = routePath(route, QStringLiteral("limit.algorithm"));
        d.target = target;
        d.routeId = target.isEmpty() ? QString() : QStringLiteral("r%1").arg(route);
        d.message = message;
        return d;
    };
    Diagnostics found;
    for (int r = 0; r < 6; ++r)
        found << warning(
            r, QStringLiteral("fixed window exported as rate=10r/m"), QStringLiteral("nginx"));
    Diagnostic error = warning(2, QStringLiteral("capacity must be positive"));
    error.severity = Diagnostic::Severity::Error;
    found << error << error;
    found << warning(1, QStringLiteral("another kind"));
    Diagnostic policyWide = warning(0, QStringLiteral("no routes limit POST"));
    policyWide.route = -1;
    found << policyWide << policyWide;

    const QList<DiagnosticGroup> groups = groupDiagnostics(found);
    ASSERT_EQ(groups.size(), 6);
    EXPECT_EQ(groups[0].count, 6);
    EXPECT_EQ(groups[0].first.line, 4) << "the first place";
    EXPECT_EQ(groups[0].routes, (QStringList{"r1", "r2", "r3"}));
    EXPECT_EQ(groups[0].toString(),
        groups[0].first.toString()
            + QStringLiteral(" (and 5 more routes alike: r1, r2, r3, …; --verbose lists each)"));
    EXPECT_EQ(groups[1].count, 1) << "errors one each";
    EXPECT_EQ(groups[2].count, 1);
    EXPECT_EQ(groups[3].first.message, QStringLiteral("another kind"));
    EXPECT_EQ(groups[3].toString(), groups[3].first.toString());
    EXPECT_EQ(groups[4].count, 1) << "policy-wide findings one each";
    EXPECT_EQ(groups[5].count, 1);
    qsizetype total = 0;
    for (const DiagnosticGroup &g : groups)
        total += g.count;
    EXPECT_EQ(total, found.size()) << "nothing lost";
}
