// The limit-field table is the one statement of which fields each algorithm takes and how far
// their values go: the reader, the writer and the editor all read it. These tests hold the
// reader and the writer to it, field by field.
#include "model/policy/limitfields.h"
#include "model/policy/policyreader.h"
#include "model/policy/policywriter.h"

#include <gtest/gtest.h>

using namespace qs;

namespace {

// A one-route policy whose limit has every field the algorithm takes, `field` set to `value`.
QByteArray policyWith(limiter::Algorithm algorithm, const LimitField &field, qint64 value)
{
    QByteArray limit = "{ algorithm: " + QByteArray(limiter::algorithmName(algorithm).data());
    for (const LimitField &f : limitFieldTable()) {
        if (!f.appliesTo(algorithm))
            continue;
        QByteArray text;
        switch (f.kind) {
        case LimitField::Kind::Count:
            text = QByteArray::number(&f == &field ? value : f.min + 1);
            break;
        case LimitField::Kind::Rate:
            text = "2/s";
            break;
        case LimitField::Kind::Duration:
            text = "10s";
            break;
        case LimitField::Kind::LeakMode:
            text = "shape";
            break;
        case LimitField::Kind::Calendar: // instead of `window`: CalendarLimits tests it
        case LimitField::Kind::TimeZone:
            continue;
        }
        limit += ", " + f.name.toString().toLatin1() + ": " + text;
    }
    return "quota_studio: 1\nname: t\nroutes:\n  - id: r\n    match: { path: /r }\n    limit: "
        + limit + " }\n";
}

} // namespace

TEST(LimitFields, EveryAlgorithmTakesFieldsAndEveryFieldAnAlgorithm)
{
    for (const limiter::Algorithm a : limiter::kAllAlgorithms)
        EXPECT_FALSE(limitFields(a).isEmpty()) << limiter::algorithmName(a);
    for (const LimitField &f : limitFieldTable()) {
        EXPECT_NE(f.algorithms, 0u) << f.name.data();
        EXPECT_EQ(limitField(QString(f.name)), &f);
    }
    EXPECT_EQ(limitField(u"nonsense"), nullptr);
}

TEST(LimitFields, TheReaderTakesEachCountUpToItsBoundsAndNoFurther)
{
    for (const limiter::Algorithm a : limiter::kAllAlgorithms) {
        for (const LimitField &f : limitFieldTable()) {
            if (!f.appliesTo(a) || f.kind != LimitField::Kind::Count)
                continue;
            const std::string what = std::string(limiter::algorithmName(a)) + "." + f.name.data();
            // The log keeps an entry per admitted unit: the algorithm caps its limit lower
            // than the field's bound (and the validator says so at the same field).
            const qint64 top = a == limiter::Algorithm::SlidingWindowLog
                ? limiter::SlidingWindowLogConfig::kMaxLimit
                : f.max;
            for (const qint64 fine : {f.min, top}) {
                const PolicyReadResult r = readPolicy(policyWith(a, f, fine), QStringLiteral("t"));
                ASSERT_FALSE(hasErrors(r.diagnostics)) << what << " = " << fine;
                EXPECT_EQ(r.policy.routes[0].limit().*f.count, fine) << what;
                // …and the writer gives back the same field.
                const PolicyReadResult again
                    = readPolicy(writePolicy(r.policy, PolicyFormat::Yaml), QStringLiteral("t"));
                EXPECT_EQ(again.policy.routes[0].limit(), r.policy.routes[0].limit()) << what;
            }
            for (const qint64 bad : {f.min - 1, top + 1}) {
                const PolicyReadResult r = readPolicy(policyWith(a, f, bad), QStringLiteral("t"));
                bool found = false;
                for (const Diagnostic &d : r.diagnostics)
                    found = found
                        || (d.severity == Diagnostic::Severity::Error
                            && d.path == QStringLiteral("routes[0].") + f.path() && d.line == 6);
                EXPECT_TRUE(found) << what << " = " << bad << " is refused at its field";
            }
        }
    }
}
