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
    const QByteArray p = path.toUtf8();
    qsizetype i = 0;
    while (i < p.size() && node.valid()) {
        if (p[i] == '[') {
            const qsizetype close = p.indexOf(']', i);
            if (close < 0)
                return std::nullopt;
            bool ok = false;
            const qulonglong index = p.mid(i + 1, close - i - 1).toULongLong(&ok);
            if (!ok)
                return std::nullopt;
            node = node[std::size_t(index)];
            i = close + 1;
        } else {
            if (p[i] == '.')
                ++i;
            qsizetype end = i;
            while (end < p.size() && p[end] != '.' && p[end] != '[')
                ++end;
            node = node.find(std::string_view(p.constData() + i, std::size_t(end - i)));
            i = end;
        }
    }
    if (!node.valid())
        return std::nullopt;
    return SourceLocation{node.mark().line + 1, node.mark().column + 1};
}

} // namespace qs
