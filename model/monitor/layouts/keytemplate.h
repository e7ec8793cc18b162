#pragma once
// A key template such as "rate:{key}" or "request_rate_limiter.{key}.tokens": the literal text
// around the client's part, as a SCAN MATCH glob and as an exact test.
#include <QByteArray>

#include <optional>

namespace qs {

class KeyTemplate {
public:
    explicit KeyTemplate(const QString &text); // text contains "{key}" (the validator says so)

    // The glob: the literal parts with glob characters escaped, `*` for the client's part.
    QByteArray glob() const;
    // The client's part of `key`, when the key has the template's literal parts around it.
    std::optional<QByteArray> clientPart(const QByteArray &key) const;
    QByteArray prefix() const { return m_prefix; }
    QByteArray suffix() const { return m_suffix; }

private:
    QByteArray m_prefix, m_suffix;
};

} // namespace qs
