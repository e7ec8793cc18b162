#include "model/policy/policyreader.h"

#include <QDir>

#include <gtest/gtest.h>

using namespace qs;

namespace {

const Diagnostic *find(const Diagnostics &diagnostics, const QString &path)
{
    for (const Diagnostic &d : diagnostics)
        if (d.path == path)
            return &d;
    return nullptr;
}

std::string dump(const Diagnostics &diagnostics)
{
    std::string out;
    for (const Diagnostic &d : diagnostics)
        out += d.toString().toStdString() + "\n";
    return out;
}

} // namespace

TEST(PolicyReader, ReadsTheExamplePolicy)
{
    const PolicyReadResult r = readPolicyFile(QStringLiteral(QS_EXAMPLES_DIR "/public-api.yaml"));
    EXPECT_FALSE(hasErrors(r.diagnostics)) << dump(r.diagnostics);
    EXPECT_EQ(r.policy.name, QStringLiteral("public-api"));
    EXPECT_EQ(r.policy.formatVersion, 1);
    ASSERT_GE(r.policy.routes.size(), 5);
    const Route &login = r.policy.routes[0];
    EXPECT_EQ(login.id, QStringLiteral("login"));
    EXPECT_EQ(login.methods, QStringList{QStringLiteral("POST")});
    EXPECT_EQ(login.limit.algorithm, limiter::Algorithm::TokenBucket);
    EXPECT_EQ(*login.limit.capacity, 10);
    EXPECT_EQ(login.limit.refill->rate.count, 2);
    EXPECT_EQ(login.limit.refill->rate.period, limiter::kMicrosPerSecond);
    EXPECT_EQ(r.policy.locations.value(QStringLiteral("routes[0].limit.capacity")).line, 11);
}

TEST(PolicyReader, EveryExampleLoadsWithoutErrors)
{
    const QDir dir(QStringLiteral(QS_EXAMPLES_DIR));
    const QStringList files = dir.entryList({QStringLiteral("*.yaml"), QStringLiteral("*.json")});
    ASSERT_GE(files.size(), 9) << "public-api, login-protection, legacy-payments + one per "
                                  "algorithm";
    for (const QString &f : files) {
        const PolicyReadResult r = readPolicyFile(dir.filePath(f));
        EXPECT_FALSE(hasErrors(r.diagnostics)) << f.toStdString() << "\n" << dump(r.diagnostics);
        EXPECT_FALSE(r.policy.routes.isEmpty()) << f.toStdString();
    }
}

TEST(PolicyReader, SyntaxErrorPointsAtLineAndColumn)
{
    const QByteArray text = "quota_studio: 1\nname: broken\nroutes: [\n  - id: x\n";
    const PolicyReadResult r = readPolicy(text, QStringLiteral("broken.yaml"));
    ASSERT_EQ(r.diagnostics.size(), 1);
    const Diagnostic &d = r.diagnostics.first();
    EXPECT_EQ(d.severity, Diagnostic::Severity::Error);
    EXPECT_EQ(d.line, 4);
    EXPECT_GT(d.column, 0);
    EXPECT_TRUE(d.toString().startsWith(QStringLiteral("broken.yaml:4:")))
        << d.toString().toStdString();
}

TEST(PolicyReader, NewerFormatIsAClearError)
{
    const PolicyReadResult r
        = readPolicy("quota_studio: 7\nname: future\nroutes: []\n", QStringLiteral("f.yaml"));
    const Diagnostic *d = find(r.diagnostics, QStringLiteral("quota_studio"));
    ASSERT_TRUE(d) << dump(r.diagnostics);
    EXPECT_EQ(d->line, 1);
    EXPECT_EQ(d->column, 15);
    EXPECT_TRUE(d->message.contains(QStringLiteral("upgrade")));
    EXPECT_EQ(r.policy.name, QStringLiteral("future")) << "what can be read is still read";
}

TEST(PolicyReader, MissingFileSaysWhy)
{
    const PolicyReadResult r = readPolicyFile(QStringLiteral("/nonexistent/p.yaml"));
    ASSERT_EQ(r.diagnostics.size(), 1);
    EXPECT_TRUE(r.diagnostics.first().message.startsWith(QStringLiteral("cannot open")));
}
