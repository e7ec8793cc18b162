#include "model/policyreader.h"

#include <gtest/gtest.h>

using namespace qs;

TEST(PolicyReader, ReadsTheExamplePolicysName)
{
    const PolicyReadResult r = readPolicyFile(QStringLiteral(QS_EXAMPLES_DIR "/public-api.yaml"));
    EXPECT_TRUE(r.diagnostics.isEmpty()) << r.diagnostics.value(0).toString().toStdString();
    EXPECT_EQ(r.policy.name, QStringLiteral("public-api"));
    EXPECT_EQ(r.policy.formatVersion, 1);
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
        = readPolicy("quota_studio: 7\nname: future\n", QStringLiteral("f.yaml"));
    ASSERT_EQ(r.diagnostics.size(), 1);
    EXPECT_EQ(r.diagnostics.first().line, 1);
    EXPECT_EQ(r.diagnostics.first().column, 15);
    EXPECT_TRUE(r.diagnostics.first().message.contains(QStringLiteral("upgrade")));
    EXPECT_EQ(r.policy.name, QStringLiteral("future")) << "what can be read is still read";
}

TEST(PolicyReader, MissingFileSaysWhy)
{
    const PolicyReadResult r = readPolicyFile(QStringLiteral("/nonexistent/p.yaml"));
    ASSERT_EQ(r.diagnostics.size(), 1);
    EXPECT_TRUE(r.diagnostics.first().message.startsWith(QStringLiteral("cannot open")));
}
