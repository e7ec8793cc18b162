#include "model/monitor/layouts/keytemplate.h"

#include <QString>

namespace qs {

namespace {

// Redis' glob treats * ? [ ] and \ specially; everything else matches itself.
QByteArray escapeGlob(const QByteArray &literal)
{
    QByteArray out;
    out.reserve(literal.size());
    for (char c : literal) {
        if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\')
            out += '\\';
        out += c;
    }
    return out;
}

} // namespace

KeyTemplate::KeyTemplate(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    const qsizetype at = bytes.indexOf("{key}");
    if (at < 0) {
        m_prefix = bytes; // no client part: matches the literal key only
        return;
    }
    m_prefix = bytes.left(at);
    m_suffix = bytes.mid(at + 5);
}

QByteArray KeyTemplate::glob() const
{
    return escapeGlob(m_prefix) + '*' + escapeGlob(m_suffix);
}

std::optional<QByteArray> KeyTemplate::clientPart(const QByteArray &key) const
{
    if (key.size() <= m_prefix.size() + m_suffix.size() || !key.startsWith(m_prefix)
        || !key.endsWith(m_suffix))
        return std::nullopt;
    return key.mid(m_prefix.size(), key.size() - m_prefix.size() - m_suffix.size());
}

} // namespace qs
