#pragma once
// Where each field of a policy was read, by field path (`routes[2].limit.capacity`). Looked up
// only when a diagnostic needs a line and column, so nothing is computed while reading: the
// parsed document is kept and the path walked through it on demand (a table of every field's
// location cost the reader a hash insertion and a path string per field; see "Route count" in
// docs/benchmarks.md). Empty for policies made in code.
#include <QString>

#include <memory>
#include <optional>

namespace qs {

class YamlDocument;

struct SourceLocation {
    int line = 0; // 1-based; 0 unknown
    int column = 0;
    friend bool operator==(const SourceLocation &, const SourceLocation &) = default;
};

class SourceLocations {
public:
    SourceLocations() = default;
    explicit SourceLocations(std::shared_ptr<const YamlDocument> document);

    // The location of the node at `path` (its value, for a field), if the file had one there.
    std::optional<SourceLocation> find(const QString &path) const;
    SourceLocation value(const QString &path, SourceLocation fallback = {}) const
    {
        return find(path).value_or(fallback);
    }
    bool isEmpty() const { return !m_document; }

private:
    std::shared_ptr<const YamlDocument> m_document;
};

} // namespace qs
