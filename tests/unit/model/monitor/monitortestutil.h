#pragma once
// Reply values and policies for the monitor's unit tests.
#include "model/monitor/layoutdecoder.h"
#include "model/policy/policyreader.h"

#include <gtest/gtest.h>

namespace qs::test {

inline RespValue bulk(const QByteArray &text)
{
    RespValue v;
    v.type = RespValue::Type::String;
    v.text = text;
    return v;
}
inline RespValue integer(qint64 n)
{
    RespValue v;
    v.type = RespValue::Type::Integer;
    v.integer = n;
    return v;
}
inline RespValue nil()
{
    return RespValue();
}
inline RespValue array(QList<RespValue> elements)
{
    RespValue v;
    v.type = RespValue::Type::Array;
    v.elements = std::move(elements);
    return v;
}

inline Policy policyOf(const QByteArray &yaml)
{
    const PolicyReadResult r = readPolicy(yaml, QStringLiteral("test.yaml"));
    for (const Diagnostic &d : r.diagnostics)
        EXPECT_NE(d.severity, Diagnostic::Severity::Error) << d.toString().toStdString();
    return r.policy;
}

inline std::unique_ptr<LayoutDecoder> decoderOf(const Policy &policy, const QString &route)
{
    auto made = makeLayoutDecoder(policy, *policy.route(route));
    if (!made) {
        ADD_FAILURE() << made.error().toStdString();
        return nullptr;
    }
    return std::move(*made);
}

} // namespace qs::test
