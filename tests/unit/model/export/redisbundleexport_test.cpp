// Redis bundle export: the manifest maps every route to the script, key and arguments that
// RedisBackend itself would use, and names each script by the SHA-1 Redis will give it.
#include "limiter/redis/redisscripts.h"
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <gtest/gtest.h>

using namespace qs;

namespace {

const ExportedFile *file(const ExportResult &r, const char *name)
{
    for (const ExportedFile &f : r.files)
        if (f.name == QLatin1String(name))
            return &f;
    return nullptr;
}

ExportResult exportBundle(const char *yaml)
{
    return exporterById(QStringLiteral("redis-bundle"))
        ->exportPolicy(readPolicy(yaml, QStringLiteral("t.yaml")).policy);
}

} // namespace

TEST(RedisBundleExport, ManifestMapsEachRouteToItsScriptKeyAndArguments)
{
    const ExportResult r = exportBundle(R"(quota_studio: 1
name: shop
defaults: { on_store_error: deny }
redis: { prefix: edge, metrics: true }
routes:
  - id: login
    match: { methods: [POST], path: /v1/login }
    limit: { algorithm: token_bucket, capacity: 10, refill: 2/s }
    cost: 2
  - id: api
    match: { path: /v1/** }
    key: [ip, header:X-Api-Key]
    mode: shadow
    limit: { algorithm: gcra, rate: 3/s, burst: 5 }
)");
    EXPECT_TRUE(r.diagnostics.isEmpty()) << "the bundle is exact for every algorithm";
    const ExportedFile *manifestFile = file(r, "manifest.json");
    ASSERT_TRUE(manifestFile);
    const QJsonObject m = QJsonDocument::fromJson(manifestFile->content).object();
    EXPECT_EQ(
        m[QStringLiteral("format")].toString(), QStringLiteral("quota-studio-redis-bundle/3"));
    EXPECT_EQ(m[QStringLiteral("on_store_error")].toString(), QStringLiteral("deny"));
    const QJsonObject reply = m[QStringLiteral("reply")].toObject();
    EXPECT_TRUE(reply[QStringLiteral("encoding")].toString().contains(QStringLiteral("'<dddd'")));
    EXPECT_EQ(reply[QStringLiteral("fields")].toArray(),
        (QJsonArray{QStringLiteral("code"), QStringLiteral("remaining"), QStringLiteral("wait_us"),
            QStringLiteral("reset_after_us")}));

    const QJsonArray routes = m[QStringLiteral("routes")].toArray();
    ASSERT_EQ(routes.size(), 2);
    const QJsonObject login = routes[0].toObject();
    EXPECT_EQ(login[QStringLiteral("script")].toString(), QStringLiteral("token_bucket"));
    EXPECT_EQ(login[QStringLiteral("key_prefix")].toString(), QStringLiteral("edge:login:"));
    EXPECT_EQ(login[QStringLiteral("key_template")].toString(), QStringLiteral("edge:login:{ip}"));
    EXPECT_EQ(login[QStringLiteral("cost")].toInt(), 2);
    EXPECT_EQ(
        login[QStringLiteral("metrics_prefix")].toString(), QStringLiteral("edge:login:~metrics"));
    EXPECT_EQ(login[QStringLiteral("parameters")].toArray(),
        (QJsonArray{10, 2, qint64(limiter::kMicrosPerSecond)}));

    const QJsonObject api = routes[1].toObject();
    EXPECT_EQ(api[QStringLiteral("mode")].toString(), QStringLiteral("shadow"));
    EXPECT_EQ(api[QStringLiteral("key_template")].toString(),
        QStringLiteral("edge:api:{ip}|{header:X-Api-Key}"));
    EXPECT_EQ(api[QStringLiteral("parameters")].toArray(), (QJsonArray{333334, 5}))
        << "GCRA's interval rounded up, as the engine does";
    EXPECT_EQ(api[QStringLiteral("parameter_names")].toArray().size(),
        api[QStringLiteral("parameters")].toArray().size());

    const QJsonObject scripts = m[QStringLiteral("scripts")].toObject();
    EXPECT_EQ(scripts.keys(), (QStringList{QStringLiteral("gcra"), QStringLiteral("token_bucket")}))
        << "only the scripts the routes use";
    for (const QString &name : scripts.keys()) {
        const QJsonObject s = scripts[name].toObject();
        const ExportedFile *lua
            = file(r, s[QStringLiteral("file")].toString().toUtf8().constData());
        ASSERT_TRUE(lua) << name.toStdString();
        const auto algorithm = limiter::algorithmFromName(name.toStdString());
        ASSERT_TRUE(algorithm);
        EXPECT_EQ(lua->content.toStdString(), std::string(limiter::redisScript(*algorithm)))
            << "the bundle carries the very scripts RedisBackend runs";
        EXPECT_EQ(s[QStringLiteral("sha1")].toString(),
            QString::fromLatin1(
                QCryptographicHash::hash(lua->content, QCryptographicHash::Sha1).toHex()));
    }
    const ExportedFile *readme = file(r, "README.md");
    ASSERT_TRUE(readme);
    for (const char *snippet : {"register_script", "defineCommand", "NewScript"})
        EXPECT_TRUE(readme->content.contains(snippet)) << snippet;
}

TEST(RedisBundleExport, HostileIdsCannotBreakTheReadmeTable)
{
    const ExportResult r = exportBundle(R"(quota_studio: 1
name: t
routes:
  - id: "a|b`c"
    match: { path: /a }
    limit: { algorithm: fixed_window, limit: 5, window: 1s }
)");
    const ExportedFile *readme = file(r, "README.md");
    ASSERT_TRUE(readme);
    const QList<QByteArray> lines = readme->content.split('\n');
    const QByteArray row = lines.at(lines.size() - 2);
    EXPECT_TRUE(row.startsWith("| a\\|b'c |")) << row.toStdString();
    const QJsonObject m = QJsonDocument::fromJson(file(r, "manifest.json")->content).object();
    EXPECT_EQ(m[QStringLiteral("routes")].toArray()[0].toObject()[QStringLiteral("id")].toString(),
        QStringLiteral("a|b`c"))
        << "JSON keeps the id exactly";
}

TEST(RedisBundleExport, ShipsTheMiddlewareAndTheOrderItMatchesRoutesIn)
{
    const ExportResult r = exportBundle(R"(quota_studio: 1
name: order
defaults: { headers: both }
routes:
  - id: all
    match: { path: /v1/** }
    limit: { algorithm: fixed_window, limit: 100, window: 1m }
  - id: login
    match: { methods: [POST], path: /v1/login }
    limit: { algorithm: gcra, rate: 1/s, burst: 3 }
  - id: item
    match: { path: "/v1/items/{id}" }
    limit: { algorithm: token_bucket, capacity: 7, refill: 1/s }
)");
    ASSERT_FALSE(hasErrors(r.diagnostics));
    const ExportedFile *py = file(r, "quota_middleware.py");
    ASSERT_TRUE(py);
    QFile resource(QStringLiteral(QS_SOURCE_DIR "/resources/redis-bundle/quota_middleware.py"));
    ASSERT_TRUE(resource.open(QIODevice::ReadOnly));
    EXPECT_EQ(py->content, resource.readAll());

    const QJsonObject manifest
        = QJsonDocument::fromJson(file(r, "manifest.json")->content).object();
    EXPECT_EQ(manifest[QStringLiteral("headers")].toString(), QStringLiteral("both"));
    // Most specific first, as the policy resolves (the longer of two patterns whose kinds agree
    // comes first); the routes themselves stay in policy order.
    const QStringList order = manifest[QStringLiteral("match_order")].toVariant().toStringList();
    EXPECT_EQ(order,
        (QStringList{QStringLiteral("item"), QStringLiteral("login"), QStringLiteral("all")}));
    const QJsonArray routes = manifest[QStringLiteral("routes")].toArray();
    EXPECT_EQ(routes[0].toObject()[QStringLiteral("id")].toString(), QStringLiteral("all"));
    // What RateLimit-Policy announces: the engine's quota and window.
    const auto quota
        = [&](int i) { return routes[i].toObject()[QStringLiteral("quota")].toObject(); };
    EXPECT_EQ(quota(0)[QStringLiteral("limit")].toInt(), 100);
    EXPECT_EQ(quota(0)[QStringLiteral("window_s")].toInt(), 60);
    EXPECT_EQ(quota(1)[QStringLiteral("limit")].toInt(), 3);
    EXPECT_EQ(quota(2)[QStringLiteral("limit")].toInt(), 7);
}
