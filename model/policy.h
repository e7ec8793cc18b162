#pragma once
// The policy document as the rest of the program sees it. The "Policy document" issue grows
// this into routes, defaults and the Redis section; the foundation needs name and description.
#include <QString>

namespace qs {

struct Policy {
    int formatVersion = 1; // the file's `quota_studio:` field
    QString name;
    QString description;
};

} // namespace qs
