#include "model/policy/sourcelocations.h"

#include "model/policy/yamldocument.h"

namespace qs {

SourceLocations::SourceLocations(std::shared_ptr<const YamlDocument> document)
    : m_document(std::move(document))
{
}

// A path is `name`, `.name` and `[index]` steps from the root; a step the document does not
// have, or a malformed path, finds nothing.
std::optional<SourceLocation> SourceLocations::find(const QString &path) const
{
    if (!m_document || path.isEmpty())
        return std::nullopt;
    YamlNode node = m_document->root();
    std::string name; // field names are ASCII words: no need to go through UTF-8
    qsizetype i = 0;
    while (i < path.size() && node.valid()) {
        if (path[i] == QLatin1Char('[')) {
            std::size_t index = 0;
            qsizetype k = i + 1;
            for (; k < path.size() && path[k].isDigit() && index < (std::size_t(1) << 40); ++k)
                index = index * 10 + std::size_t(path[k].digitValue());
            if (k == i + 1 || k >= path.size() || path[k] != QLatin1Char(']'))
                return std::nullopt;
            node = node[index];
            i = k + 1;
        } else {
            if (path[i] == QLatin1Char('.'))
                ++i;
            name.clear();
            for (; i < path.size() && path[i] != QLatin1Char('.') && path[i] != QLatin1Char('[');
                 ++i)
                name += path[i].unicode() < 0x80 ? char(path[i].unicode()) : '\0';
            node = node.find(name);
        }
    }
    if (!node.valid())
        return std::nullopt;
    return SourceLocation{node.mark().line + 1, node.mark().column + 1};
}

} // namespace qs
