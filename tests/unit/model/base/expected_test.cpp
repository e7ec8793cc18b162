// Expected<T>: the value or why there is none, never both, and a failure that cannot pass for
// a success (the bug class of the "empty string means success" APIs it replaced).
#include "model/base/expected.h"

#include <gtest/gtest.h>

#include <memory>

using qs::Expected;

namespace {

Expected<int> half(int n)
{
    if (n % 2)
        return QStringLiteral("%1 is odd").arg(n);
    return n / 2;
}

Expected<void> check(bool ok)
{
    if (!ok)
        return QStringLiteral("not ok");
    return {};
}

} // namespace

TEST(Expected, HoldsTheValueOrTheReason)
{
    const auto four = half(8);
    ASSERT_TRUE(four.hasValue());
    EXPECT_EQ(*four, 4);
    const auto odd = half(3);
    ASSERT_FALSE(odd.hasValue());
    EXPECT_FALSE(bool(odd));
    EXPECT_EQ(odd.error(), QStringLiteral("3 is odd"));
    EXPECT_EQ(odd.valueOr(-1), -1);
    EXPECT_EQ(four.valueOr(-1), 4);
}

TEST(Expected, AnEmptyMessageIsStillAFailure)
{
    // The old APIs read "" as success; here only `return {}` / a value is one.
    const Expected<int> silent = QString();
    EXPECT_FALSE(silent.hasValue());
    const Expected<void> quiet = QString();
    EXPECT_FALSE(quiet.hasValue());
    EXPECT_TRUE(check(true).hasValue());
    EXPECT_EQ(check(false).error(), QStringLiteral("not ok"));
}

TEST(Expected, MovesOutValuesThatCannotBeCopied)
{
    Expected<std::unique_ptr<int>> made = std::make_unique<int>(7);
    ASSERT_TRUE(made.hasValue());
    const std::unique_ptr<int> taken = std::move(*made);
    EXPECT_EQ(*taken, 7);
    // A value type that converts to the error type is told apart with Unexpected.
    const Expected<QString, QString> failed = qs::Unexpected(QStringLiteral("why"));
    EXPECT_FALSE(failed.hasValue());
    const Expected<QString, QString> ok = QStringLiteral("text");
    EXPECT_TRUE(ok.hasValue());
}
