// Load/save round trips lose nothing but comments, keep route and field order, and saving is
// atomic.
#include "model/policy/policyreader.h"
#include "model/policy/policywriter.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <gtest/gtest.h>

using namespace qs;

namespace {

Policy load(const QByteArray &text)
{
    const PolicyReadResult r = readPolicy(text, QStringLiteral("t"));
    EXPECT_FALSE(hasErrors(r.diagnostics)) << r.diagnostics.value(0).toString().toStdString();
    return r.policy;
}

const QByteArray kOddOrder = R"(# comment, lost on save
name: odd-order
quota_studio: 1
routes:
  - limit: { refill: 120/min, capacity: 10, algorithm: token_bucket }
    id: second-written-first
    match: { path: /b, methods: [post, GET] }
    mode: shadow
  - id: a
    match: { path: "/v1/{id}/**" }
    key: [ip, "header:X-Api-Key"]
    cost: 2
    limit: { algorithm: leaky_bucket, rate: 5/250ms, queue: 3, mode: shape }
redis: { metrics: true, prefix: "qs:prod" }
defaults: { headers: both, key: query:token, on_store_error: deny, status: 503 }
)";

} // namespace

TEST(RoundTrip, EveryExampleSurvivesYamlAndJson)
{
    const QDir dir(QStringLiteral(QS_EXAMPLES_DIR));
    const QStringList files = dir.entryList({QStringLiteral("*.yaml")});
    ASSERT_GE(files.size(), 9) << "one per algorithm and three scenarios: an example went missing";
    for (const QString &f : files) {
        QFile file(dir.filePath(f));
        ASSERT_TRUE(file.open(QIODevice::ReadOnly));
        const Policy original = load(file.readAll());
        for (PolicyFormat format : {PolicyFormat::Yaml, PolicyFormat::Json}) {
            const QByteArray saved = writePolicy(original, format);
            const Policy reloaded = load(saved);
            EXPECT_EQ(reloaded, original) << f.toStdString() << "\n" << saved.toStdString();
            EXPECT_EQ(writePolicy(reloaded, format), saved) << "saving is stable";
        }
    }
}

TEST(RoundTrip, KeepsFieldOrderAndTextAsWritten)
{
    const Policy p = load(kOddOrder);
    const QByteArray yaml = writePolicy(p, PolicyFormat::Yaml);
    const QString text = QString::fromUtf8(yaml);
    EXPECT_LT(text.indexOf(QLatin1String("name:")), text.indexOf(QLatin1String("quota_studio:")));
    EXPECT_LT(text.indexOf(QLatin1String("redis:")), text.indexOf(QLatin1String("defaults:")));
    EXPECT_LT(text.indexOf(QLatin1String("refill: 120/min")),
        text.indexOf(QLatin1String("algorithm: token_bucket")));
    EXPECT_LT(
        text.indexOf(QLatin1String("second-written-first")), text.indexOf(QLatin1String("id: a")));
    EXPECT_TRUE(text.contains(QLatin1String("rate: 5/250ms")));
    EXPECT_FALSE(text.contains(QLatin1String("comment")));
    EXPECT_EQ(load(yaml), p);
    EXPECT_EQ(p.routes[0].methods, (QStringList{QStringLiteral("POST"), QStringLiteral("GET")}));
    EXPECT_EQ(load(writePolicy(p, PolicyFormat::Json)), p);
}

// Numbers and booleans are written plain, as people write them; only text that a reader could
// take for one is quoted.
TEST(RoundTrip, WritesNumbersAndBooleansPlainInYaml)
{
    const QString text = QString::fromUtf8(writePolicy(load(kOddOrder), PolicyFormat::Yaml));
    for (const char *line :
        {"quota_studio: 1", "capacity: 10", "cost: 2", "queue: 3", "metrics: true", "status: 503"})
        EXPECT_TRUE(text.contains(QLatin1String(line))) << line << " in:\n" << text.toStdString();
}

TEST(RoundTrip, JsonIsValidJsonWithTypedValues)
{
    const QByteArray json = writePolicy(load(kOddOrder), PolicyFormat::Json);
    const QString text = QString::fromUtf8(json);
    EXPECT_TRUE(text.contains(QLatin1String("\"quota_studio\": 1")));
    EXPECT_TRUE(text.contains(QLatin1String("\"metrics\": true")));
    EXPECT_TRUE(text.contains(QLatin1String("\"id\": \"a\"")));
    EXPECT_TRUE(text.contains(QLatin1String("\"cost\": 2")));
}

TEST(RoundTrip, SaveIsAtomicAndPicksTheFormatByExtension)
{
    QTemporaryDir dir;
    const Policy p = load(kOddOrder);
    const QString yamlPath = dir.filePath(QStringLiteral("p.yaml"));
    const QString jsonPath = dir.filePath(QStringLiteral("p.json"));
    ASSERT_TRUE(savePolicyFile(p, yamlPath).hasValue());
    ASSERT_TRUE(savePolicyFile(p, jsonPath).hasValue());
    EXPECT_EQ(readPolicyFile(jsonPath).policy, p);
    EXPECT_EQ(readPolicyFile(yamlPath).policy, p);
    QFile json(jsonPath);
    ASSERT_TRUE(json.open(QIODevice::ReadOnly));
    EXPECT_EQ(json.read(1), QByteArray("{"));
    // A save that cannot complete leaves the old file untouched.
    EXPECT_FALSE(savePolicyFile(p, dir.filePath(QStringLiteral("missing-dir/p.yaml"))).hasValue());
    EXPECT_EQ(readPolicyFile(yamlPath).policy, p);
}
