// How a request maps to its key, and what `missing_key` does when a header or query part is
// absent or empty: the rule the console, the simulator and every exporter follow.
#include "model/policy/policyreader.h"
#include "model/policy/requestkey.h"

#include <gtest/gtest.h>

using namespace qs;

namespace {

const KeySelector kIp{KeySelector::Kind::Ip, {}};
const KeySelector kApiKey{KeySelector::Kind::Header, QStringLiteral("X-Api-Key")};
const KeySelector kTenant{KeySelector::Kind::Query, QStringLiteral("tenant")};

RequestFacts request(QList<QPair<QString, QString>> headers, QString target = QStringLiteral("/"))
{
    return {QStringLiteral("192.0.2.9"), std::move(headers), std::move(target)};
}

} // namespace

TEST(RequestKey, PartsComeFromAddressHeadersAndQuery)
{
    const RequestKey k = requestKey({kIp, kApiKey, kTenant}, MissingKeyMode::Deny,
        request({{QStringLiteral("x-api-key"), QStringLiteral(" k-1 ")}},
            QStringLiteral("/v1/items?a=1&tenant=acme%20corp")));
    EXPECT_EQ(k.outcome, RequestKey::Outcome::Counted);
    EXPECT_EQ(k.key, QStringLiteral("192.0.2.9|k-1|acme corp"))
        << "header names compare case-insensitively, values are trimmed, queries decoded";
    EXPECT_TRUE(k.missing.isEmpty());
}

TEST(RequestKey, PartsThatHoldTheSeparatorCannotRunTogether)
{
    const auto key = [](const char *a, const char *b) {
        return requestKey({{KeySelector::Kind::Header, QStringLiteral("A")},
                              {KeySelector::Kind::Header, QStringLiteral("B")}},
            MissingKeyMode::Shared,
            request({{QStringLiteral("A"), QString::fromLatin1(a)},
                {QStringLiteral("B"), QString::fromLatin1(b)}}))
            .key;
    };
    EXPECT_NE(key("x|y", "z"), key("x", "y|z"));
    EXPECT_NE(key("x\\", "|z"), key("x", "\\|z"));
    EXPECT_EQ(key("x|y", "z"), QStringLiteral("x\\|y|z"));
}

TEST(RequestKey, EachModeTreatsAnAbsentOrEmptyPartAsMissing)
{
    for (const auto &headers : {QList<QPair<QString, QString>>{},
             QList<QPair<QString, QString>>{{QStringLiteral("X-Api-Key"), QStringLiteral("  ")}}}) {
        SCOPED_TRACE(headers.isEmpty() ? "absent" : "empty");
        const RequestKey shared = requestKey({kApiKey}, MissingKeyMode::Shared, request(headers));
        EXPECT_EQ(shared.outcome, RequestKey::Outcome::Counted);
        EXPECT_EQ(shared.key, QString());
        EXPECT_EQ(shared.missing, QStringList{QStringLiteral("header:X-Api-Key")});

        const RequestKey ip = requestKey({kApiKey}, MissingKeyMode::Ip, request(headers));
        EXPECT_EQ(ip.outcome, RequestKey::Outcome::Counted);
        EXPECT_EQ(ip.key, QStringLiteral("192.0.2.9"));

        EXPECT_EQ(requestKey({kApiKey}, MissingKeyMode::Deny, request(headers)).outcome,
            RequestKey::Outcome::Denied);
        EXPECT_EQ(requestKey({kApiKey}, MissingKeyMode::Allow, request(headers)).outcome,
            RequestKey::Outcome::Unlimited);
    }
    EXPECT_EQ(requestKey({kTenant}, MissingKeyMode::Deny, request({}, "/x?tenant=")).outcome,
        RequestKey::Outcome::Denied)
        << "an empty query value is missing too";
}

TEST(RequestKey, MissingKeyIsReadWrittenAndDefaultsToShared)
{
    const PolicyReadResult read = readPolicy(QByteArrayLiteral(R"(quota_studio: 1
name: t
defaults: { key: header:X-Api-Key, missing_key: ip }
routes:
  - id: a
    match: { path: /a }
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
  - id: b
    match: { path: /b }
    missing_key: deny
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
)"),
        QStringLiteral("t.yaml"));
    ASSERT_FALSE(hasErrors(read.diagnostics));
    EXPECT_EQ(read.policy.missingKeyOf(read.policy.routes[0]), MissingKeyMode::Ip);
    EXPECT_EQ(read.policy.missingKeyOf(read.policy.routes[1]), MissingKeyMode::Deny);
    EXPECT_EQ(Policy{}.missingKeyOf(Route{}), MissingKeyMode::Shared) << "the safe default";

    const PolicyReadResult bad = readPolicy(QByteArrayLiteral(R"(quota_studio: 1
name: t
routes:
  - id: a
    match: { path: /a }
    missing_key: ignore
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
)"),
        QStringLiteral("t.yaml"));
    ASSERT_TRUE(hasErrors(bad.diagnostics));
    const Diagnostic &d = bad.diagnostics.front();
    EXPECT_EQ(d.line, 6);
    EXPECT_EQ(d.column, 18);
    EXPECT_TRUE(d.message.contains(QStringLiteral("shared"))) << d.message.toStdString();
}
