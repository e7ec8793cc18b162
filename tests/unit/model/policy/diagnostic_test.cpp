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
    fine.routes[1].limit.capacity = 5;
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
