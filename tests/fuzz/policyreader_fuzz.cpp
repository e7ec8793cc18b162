// Any bytes given to the policy reader end in a result or diagnostics: never a crash, a leak
// or a hang.
#include "model/policy/policyreader.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QByteArray text(reinterpret_cast<const char *>(data), qsizetype(size));
    const qs::PolicyReadResult result = qs::readPolicy(text, QStringLiteral("fuzz.yaml"));
    for (const qs::Diagnostic &d : result.diagnostics)
        (void)d.toString();
    return 0;
}
