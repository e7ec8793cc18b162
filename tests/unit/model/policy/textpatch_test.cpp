// Lossless save: for every example and the edits an operator makes (one value, add, duplicate,
// delete, reorder routes, policy settings, an algorithm switch), the saved text differs from the
// file only in the edited lines; comments, blank lines, quoting and layout stay. JSON likewise.
#include "model/policy/plans.h"
#include "model/policy/policyreader.h"
#include "model/policy/policytextpatch.h"
#include "model/policy/policywriter.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <gtest/gtest.h>

#include <functional>

using namespace qs;

namespace {

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Lines removed from `a` and added in `b` by a longest-common-subsequence line diff.
struct LineDiff {
    QByteArrayList removed, added;
    qsizetype changed() const { return removed.size() + added.size(); }
    std::string show() const
    {
        std::string out;
        for (const QByteArray &l : removed)
            out += "- " + l.toStdString() + "\n";
        for (const QByteArray &l : added)
            out += "+ " + l.toStdString() + "\n";
        return out;
    }
};

LineDiff diffLines(const QByteArray &a, const QByteArray &b)
{
    const QByteArrayList x = a.split('\n'), y = b.split('\n');
    std::vector<std::vector<int>> lcs(x.size() + 1, std::vector<int>(y.size() + 1, 0));
    for (qsizetype i = x.size() - 1; i >= 0; --i)
        for (qsizetype j = y.size() - 1; j >= 0; --j)
            lcs[i][j]
                = x[i] == y[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    LineDiff d;
    qsizetype i = 0, j = 0;
    while (i < x.size() && j < y.size()) {
        if (x[i] == y[j]) {
            ++i;
            ++j;
        } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
            d.removed << x[i++];
        } else {
            d.added << y[j++];
        }
    }
    while (i < x.size())
        d.removed << x[i++];
    while (j < y.size())
        d.added << y[j++];
    return d;
}

struct Scenario {
    const char *name;
    std::function<bool(Policy &)> edit; // false: does not apply to this policy
    int maxChangedLines; // YAML
    int maxChangedJsonLines; // JSON spends a line per field and moves commas
    qsizetype minRoutes = 1;
};

Route newRoute(const QString &id)
{
    Route r;
    r.id = id;
    r.path = QStringLiteral("/v9/") + id;
    r.limit().algorithm = limiter::Algorithm::Gcra;
    r.limit().rate = RateValue{QStringLiteral("3/s"), {3, limiter::kMicrosPerSecond}};
    r.limit().burst = 6;
    r.fieldOrder
        = QStringList{QStringLiteral("id"), QStringLiteral("match"), QStringLiteral("limit")};
    r.matchFieldOrder = QStringList{QStringLiteral("path")};
    r.limit().fieldOrder
        = QStringList{QStringLiteral("algorithm"), QStringLiteral("rate"), QStringLiteral("burst")};
    return r;
}

const std::vector<Scenario> &scenarios()
{
    static const std::vector<Scenario> all = {
        {"one_value",
            [](Policy &p) {
                LimitSpec &l = p.routes[0].limit();
                if (l.capacity)
                    l.capacity = *l.capacity + 1;
                else if (l.limit)
                    l.limit = *l.limit + 1;
                else if (l.burst)
                    l.burst = *l.burst + 1;
                else if (l.queue)
                    l.queue = *l.queue + 1;
                else
                    return false;
                return true;
            },
            2, 2},
        {"rename_route",
            [](Policy &p) {
                p.routes[0].id += QStringLiteral("-renamed");
                return true;
            },
            2, 2},
        {"add_route",
            [](Policy &p) {
                p.routes.append(newRoute(QStringLiteral("added")));
                return true;
            },
            8, 14},
        {"duplicate_route",
            [](Policy &p) {
                Route copy = p.routes[0];
                copy.origin = {};
                copy.id += QStringLiteral("-copy");
                p.routes.insert(1, copy);
                return true;
            },
            // JSON spends a line a field: a copy of a route of three limits is 27 lines, of
            // two limits with plans 35.
            10, 36},
        {"delete_route",
            [](Policy &p) {
                p.routes.removeAt(p.routes.size() - 1);
                return true;
            },
            12, 20, 2},
        {"reorder_routes",
            [](Policy &p) {
                p.routes.swapItemsAt(0, 1);
                return true;
            },
            24, 40, 2},
        {"policy_settings",
            [](Policy &p) {
                p.defaults.status = p.defaults.effectiveStatus() == 503 ? 502 : 503;
                rememberField(p.defaults.fieldOrder, QStringLiteral("status"));
                if (!p.defaultsPresent) {
                    p.defaultsPresent = true;
                    rememberField(p.fieldOrder, QStringLiteral("defaults"),
                        p.fieldOrder.indexOf(QStringLiteral("routes")));
                }
                return true;
            },
            3, 4},
        {"switch_algorithm",
            [](Policy &p) {
                LimitSpec l;
                l.algorithm = limiter::Algorithm::Gcra;
                l.rate = RateValue{QStringLiteral("0.5/s"), {1, 2 * limiter::kMicrosPerSecond}};
                l.burst = 4;
                l.fieldOrder = QStringList{
                    QStringLiteral("algorithm"), QStringLiteral("rate"), QStringLiteral("burst")};
                // An item of `limits:` keeps its name first, as the editor's switch does.
                if (p.routes[0].writtenAsList())
                    l.fieldOrder.prepend(QStringLiteral("name"));
                setLimitSpec(p.routes[0].limits.first(), l); // as the editor's switch does
                return true;
            },
            // JSON spends a line a field, and a plan's numbers follow the switch: 10 lines.
            2, 10},
    };
    return all;
}

struct Case {
    QString file;
    const Scenario *scenario;
    friend void PrintTo(const Case &c, std::ostream *os)
    {
        *os << QFileInfo(c.file).fileName().toStdString() << " / " << c.scenario->name;
    }
};

std::vector<Case> cases()
{
    std::vector<Case> out;
    const QDir dir(QStringLiteral(QS_EXAMPLES_DIR));
    for (const QString &f : dir.entryList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name)) {
        const qsizetype routes = readPolicy(readFile(dir.filePath(f)), f).policy.routes.size();
        for (const Scenario &s : scenarios())
            if (routes >= s.minRoutes) // deleting or moving one of one route proves nothing
                out.push_back({dir.filePath(f), &s});
    }
    return out;
}

class LosslessSave : public ::testing::TestWithParam<Case> { };

void checkPatch(
    const QByteArray &original, const QString &name, const Scenario &scenario, PolicyFormat format)
{
    const PolicyReadResult read = readPolicy(original, name);
    ASSERT_FALSE(hasErrors(read.diagnostics));
    Policy after = read.policy;
    ASSERT_TRUE(scenario.edit(after)) << "every generated case applies";
    const TextPatch patch = patchPolicyText(original, read.policy, after, format);
    EXPECT_EQ(patch.fallback, QString()) << "rewritten whole";
    EXPECT_EQ(readPolicy(patch.text, name).policy, after) << "the saved text reads back as edited";
    const LineDiff d = diffLines(original, patch.text);
    EXPECT_GT(d.changed(), 0);
    EXPECT_LE(d.changed(),
        format == PolicyFormat::Json ? scenario.maxChangedJsonLines : scenario.maxChangedLines)
        << d.show();
    const bool movesComments = scenario.name == std::string("delete_route")
        || scenario.name == std::string("reorder_routes");
    for (const QByteArray &line : d.removed) {
        if (!movesComments) {
            EXPECT_FALSE(line.trimmed().startsWith('#')) << "a comment was lost: " << d.show();
        }
    }
}

} // namespace

TEST_P(LosslessSave, OnlyTheEditedLinesChange)
{
    const Case &c = GetParam();
    const QByteArray original = readFile(c.file);
    ASSERT_FALSE(original.isEmpty());
    checkPatch(original, c.file, *c.scenario, PolicyFormat::Yaml);
    if (std::string(c.scenario->name) == "reorder_routes") {
        // Moving routes moves their comments with them: every comment line is still there.
        const PolicyReadResult read = readPolicy(original, c.file);
        Policy after = read.policy;
        if (!c.scenario->edit(after))
            return;
        const QByteArray text
            = patchPolicyText(original, read.policy, after, PolicyFormat::Yaml).text;
        for (const QByteArray &line : original.split('\n')) {
            if (line.trimmed().startsWith('#')) {
                EXPECT_TRUE(text.contains(line)) << line.toStdString();
            }
        }
    }
}

TEST_P(LosslessSave, JsonLikewise)
{
    const Case &c = GetParam();
    // The JSON form of the example as the writer produced it is the file an operator keeps.
    const QByteArray json
        = writePolicy(readPolicy(readFile(c.file), c.file).policy, PolicyFormat::Json);
    checkPatch(json, c.file + QStringLiteral(".json"), *c.scenario, PolicyFormat::Json);
}

INSTANTIATE_TEST_SUITE_P(
    ExamplesTimesEdits, LosslessSave, ::testing::ValuesIn(cases()), [](const auto &info) {
        QString name = QFileInfo(info.param.file).baseName() + QLatin1Char('_')
            + QLatin1String(info.param.scenario->name);
        return name.replace(QLatin1Char('-'), QLatin1Char('_')).toStdString();
    });

TEST(LosslessSave, CommentsAndUnknownStyleSurviveAnEdit)
{
    const QByteArray original = R"(# header comment
quota_studio: 1
name: 'quoted name'   # trailing comment

defaults:
  key: ip
routes:
  # the login route
  - id: login
    match:
      path: /v1/login
    limit:
      algorithm: token_bucket
      capacity: 10   # why ten
      refill: 2/s

  - id: search
    match: {path: "/v1/search"}
    limit: {algorithm: gcra, rate: 5/s, burst: 5}
)";
    const PolicyReadResult read = readPolicy(original, QStringLiteral("c.yaml"));
    ASSERT_FALSE(hasErrors(read.diagnostics));
    Policy after = read.policy;
    after.routes[0].limit().refill = RateValue{QStringLiteral("0.5/s"), {1, 2'000'000}};
    after.routes[1].path = QStringLiteral("/v1/find");
    after.name = QStringLiteral("renamed");
    const TextPatch patch = patchPolicyText(original, read.policy, after, PolicyFormat::Yaml);
    EXPECT_EQ(patch.fallback, QString());
    EXPECT_EQ(QString::fromUtf8(patch.text),
        QString::fromUtf8(QByteArray(original)
                              .replace("'quoted name'", "'renamed'")
                              .replace("refill: 2/s", "refill: 0.5/s")
                              .replace("\"/v1/search\"", "\"/v1/find\"")));
}

TEST(LosslessSave, TheLastRouteGoesAndTheFirstComesBack)
{
    const QByteArray original = R"(# one route
quota_studio: 1
name: t
routes:
  - id: a   # the only one
    match: { path: /a }
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
# end
)";
    const PolicyReadResult read = readPolicy(original, QStringLiteral("o.yaml"));
    Policy empty = read.policy;
    empty.routes.clear();
    const TextPatch none = patchPolicyText(original, read.policy, empty, PolicyFormat::Yaml);
    EXPECT_EQ(none.fallback, QString());
    EXPECT_EQ(none.text, QByteArray("# one route\nquota_studio: 1\nname: t\nroutes: []\n# end\n"));

    const PolicyReadResult emptyRead = readPolicy(none.text, QStringLiteral("o.yaml"));
    Policy again = emptyRead.policy;
    again.routes.append(newRoute(QStringLiteral("b")));
    const TextPatch one = patchPolicyText(none.text, emptyRead.policy, again, PolicyFormat::Yaml);
    EXPECT_EQ(one.fallback, QString());
    EXPECT_TRUE(one.text.startsWith("# one route\nquota_studio: 1\nname: t\nroutes:\n  - id: b\n"))
        << one.text.toStdString();
    EXPECT_TRUE(one.text.endsWith("# end\n"));
}

// A new route's numbers are written as numbers, in block and in flow style alike.
TEST(LosslessSave, ANewRoutesNumbersAreWrittenPlain)
{
    const QByteArray original = R"(quota_studio: 1
name: t
routes:
  - id: a
    match: { path: /a }
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
)";
    const PolicyReadResult read = readPolicy(original, QStringLiteral("o.yaml"));
    Policy after = read.policy;
    Route added = newRoute(QStringLiteral("b"));
    added.cost = 2;
    added.fieldOrder << QStringLiteral("cost");
    after.routes.append(added);
    const TextPatch patch = patchPolicyText(original, read.policy, after, PolicyFormat::Yaml);
    EXPECT_EQ(patch.fallback, QString());
    EXPECT_TRUE(patch.text.contains("    cost: 2\n")) << patch.text.toStdString();
    EXPECT_TRUE(patch.text.contains("burst: 6")) << patch.text.toStdString();
    EXPECT_EQ(readPolicy(patch.text, QStringLiteral("o.yaml")).policy, after);
}

TEST(LosslessSave, AnUnsupportedConstructFallsBackToAWholeWriteAndSaysWhy)
{
    const QByteArray original = R"(quota_studio: 1
name: t
description: |
  a block scalar
routes:
  - id: a
    match: { path: /a }
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
)";
    const PolicyReadResult read = readPolicy(original, QStringLiteral("b.yaml"));
    Policy after = read.policy;
    after.description = QStringLiteral("changed");
    const TextPatch patch = patchPolicyText(original, read.policy, after, PolicyFormat::Yaml);
    EXPECT_TRUE(patch.fallback.contains(QStringLiteral("block scalar")));
    EXPECT_EQ(readPolicy(patch.text, QStringLiteral("b.yaml")).policy, after);
}
