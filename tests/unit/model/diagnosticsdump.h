#pragma once
// Diagnostics one per line, for a test's failure message.
#include "model/policy/diagnostic.h"

#include <string>

namespace qs::test {

inline std::string dump(const Diagnostics &diagnostics)
{
    std::string out;
    for (const Diagnostic &d : diagnostics)
        out += d.toString().toStdString() + "\n";
    return out;
}

} // namespace qs::test
