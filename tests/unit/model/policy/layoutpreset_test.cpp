// redis.layouts[].preset: read, checked against the route's algorithm, written back as it was.
#include "model/policy/layoutpreset.h"
#include "model/policy/policyreader.h"
#include "model/policy/policywriter.h"

#include <gtest/gtest.h>

using namespace qs;

namespace {

QByteArray policyWithLayout(const char *layout)
{
    return QByteArray("quota_studio: 1\nname: t\nredis:\n  layouts:\n    - ") + layout
        + "\nroutes:\n"
          "  - { id: a, match: { path: /a }, limit: { algorithm: token_bucket, capacity: 5, "
          "refill: 1/s } }\n"
          "  - { id: w, match: { path: /w }, limit: { algorithm: fixed_window, limit: 5, "
          "window: 1m } }\n";
}

const Diagnostic *errorAt(const Diagnostics &diagnostics, const QString &path)
{
    for (const Diagnostic &d : diagnostics)
        if (d.path == path && d.severity == Diagnostic::Severity::Error)
            return &d;
    return nullptr;
}

} // namespace

TEST(LayoutPreset, UnknownNameSaysTheChoicesWithLineAndColumn)
{
    const auto r = readPolicy(policyWithLayout("{ route: w, preset: kongg }"), "p.yaml");
    const Diagnostic *d = errorAt(r.diagnostics, "redis.layouts[0].preset");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->line, 5);
    EXPECT_EQ(d->column, 27);
    EXPECT_TRUE(d->message.contains("did you mean 'kong'")) << d->message.toStdString();
    EXPECT_TRUE(d->message.contains(layoutPresetNames().join(", "))) << d->message.toStdString();
}

TEST(LayoutPreset, TheRoutesAlgorithmMustFitThePreset)
{
    const auto r = readPolicy(policyWithLayout("{ route: a, preset: kong }"), "p.yaml");
    const Diagnostic *d = errorAt(r.diagnostics, "redis.layouts[0].preset");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->message.toStdString(),
        "the kong preset reads fixed_window state, but route 'a' uses token_bucket: give the "
        "route the limit the deployment enforces");
    EXPECT_FALSE(hasErrors(
        readPolicy(policyWithLayout("{ route: w, preset: kong }"), "p.yaml").diagnostics));
}

TEST(LayoutPreset, EnvoyNeedsItsKeyTemplate)
{
    const auto r = readPolicy(policyWithLayout("{ route: w, preset: envoy-ratelimit }"), "p.yaml");
    const Diagnostic *d = errorAt(r.diagnostics, "redis.layouts[0].key");
    ASSERT_TRUE(d);
    EXPECT_TRUE(d->message.contains("apis_remote_address_{key}")) << d->message.toStdString();
}

TEST(LayoutPreset, WithoutAPresetItIsATutorialHashAndKeepsItsFields)
{
    const auto r
        = readPolicy(policyWithLayout("{ route: a, key: \"b:{key}\", fields: { tokens: t }, "
                                      "time_unit: ms }"),
            "p.yaml");
    ASSERT_FALSE(hasErrors(r.diagnostics));
    EXPECT_FALSE(r.policy.redis.layouts[0].preset.has_value());
    // tutorial-hash is a token bucket: a fixed-window route cannot use it.
    const auto wrong = readPolicy(policyWithLayout("{ route: w, key: \"b:{key}\" }"), "p.yaml");
    EXPECT_TRUE(errorAt(wrong.diagnostics, "redis.layouts[0].preset"));
}

TEST(LayoutPreset, WrittenBackAsRead)
{
    const auto r
        = readPolicy(policyWithLayout("{ route: w, preset: express-rate-limit }"), "p.yaml");
    ASSERT_FALSE(hasErrors(r.diagnostics));
    const QByteArray yaml = writePolicy(r.policy, PolicyFormat::Yaml);
    EXPECT_TRUE(yaml.contains("preset: express-rate-limit")) << yaml.toStdString();
    EXPECT_FALSE(yaml.contains("key: ")) << "no key template was written: " << yaml.toStdString();
    const auto again = readPolicy(yaml, "p.yaml");
    EXPECT_EQ(again.policy.redis.layouts, r.policy.redis.layouts);
}

// `refill` says how a tutorial hash's script refills; other presets follow their own clock.
TEST(LayoutPreset, RefillModelIsReadCheckedAndWrittenBack)
{
    const auto r = readPolicy(
        policyWithLayout("{ route: a, key: \"b:{key}\", time_unit: s, refill: per_unit }"),
        "p.yaml");
    ASSERT_FALSE(hasErrors(r.diagnostics));
    EXPECT_EQ(r.policy.redis.layouts[0].refill, QStringLiteral("per_unit"));
    const QByteArray yaml = writePolicy(r.policy, PolicyFormat::Yaml);
    EXPECT_EQ(readPolicy(yaml, "p.yaml").policy.redis.layouts, r.policy.redis.layouts)
        << yaml.toStdString();
    const auto typo = readPolicy(policyWithLayout("{ route: a, refill: per-unit }"), "p.yaml");
    const Diagnostic *d = errorAt(typo.diagnostics, "redis.layouts[0].refill");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->line, 5);
    EXPECT_TRUE(d->message.contains("per_unit")) << d->message.toStdString();
    const auto other
        = readPolicy(policyWithLayout("{ route: w, preset: kong, refill: continuous }"), "p.yaml");
    d = errorAt(other.diagnostics, "redis.layouts[0].refill");
    ASSERT_TRUE(d);
    EXPECT_TRUE(d->message.contains("only the tutorial-hash preset")) << d->message.toStdString();
}
