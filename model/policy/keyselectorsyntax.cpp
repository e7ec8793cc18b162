#include "model/policy/keyselectorsyntax.h"

#include <QRegularExpression>

namespace qs {

bool isValidHeaderName(const QString &name)
{
    static const QRegularExpression token(QStringLiteral("^[A-Za-z0-9!#$%&'*+.^_`|~-]+$"));
    return token.match(name).hasMatch();
}

Expected<KeySelector> parseKeySelector(const QString &text)
{
    const QString help = QStringLiteral("use ip, global, header:<Name> or query:<name>");
    const QString t = text.trimmed();
    if (t == QLatin1String("ip"))
        return KeySelector{KeySelector::Kind::Ip, {}};
    if (t == QLatin1String("global"))
        return KeySelector{KeySelector::Kind::Global, {}};
    const qsizetype colon = t.indexOf(QLatin1Char(':'));
    if (colon < 0)
        return QStringLiteral("unknown key '%1': %2").arg(text, help);
    const QString kind = t.left(colon);
    const QString name = t.mid(colon + 1);
    if (kind == QLatin1String("header")) {
        if (!isValidHeaderName(name))
            return QStringLiteral("'%1' is not a valid header name: letters, digits and "
                                  "!#$%&'*+-.^_`|~ only, no spaces or colons")
                .arg(name);
        return KeySelector{KeySelector::Kind::Header, name};
    }
    if (kind == QLatin1String("query")) {
        static const QRegularExpression param(QStringLiteral("^[A-Za-z0-9._~-]+$"));
        if (!param.match(name).hasMatch())
            return QStringLiteral("'%1' is not a valid query parameter name: letters, digits "
                                  "and ._~- only")
                .arg(name);
        return KeySelector{KeySelector::Kind::Query, name};
    }
    return QStringLiteral("unknown key kind '%1' in '%2': %3").arg(kind, text, help);
}

Expected<QList<KeySelector>> parseKeySelectorList(const QString &text)
{
    QList<KeySelector> keys;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        auto parsed = parseKeySelector(part.trimmed());
        if (!parsed)
            return std::move(parsed.error());
        keys << *parsed;
    }
    return keys;
}

QString formatKeySelectorList(const QList<KeySelector> &keys)
{
    QStringList parts;
    for (const KeySelector &k : keys)
        parts << k.toString();
    return parts.join(QStringLiteral(", "));
}

} // namespace qs
