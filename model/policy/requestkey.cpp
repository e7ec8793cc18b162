#include "model/policy/requestkey.h"

#include <QUrlQuery>

namespace qs {

QString headerValue(const QList<QPair<QString, QString>> &headers, const QString &name)
{
    for (const auto &[n, v] : headers)
        if (n.compare(name, Qt::CaseInsensitive) == 0)
            return v.trimmed(); // gateways strip the optional whitespace around a value
    return {};
}

QString queryValue(const QString &target, const QString &name)
{
    const qsizetype q = target.indexOf(QLatin1Char('?'));
    if (q < 0)
        return {};
    const QUrlQuery query(target.mid(q + 1));
    if (!query.hasQueryItem(name))
        return {};
    return query.queryItemValue(name, QUrl::FullyDecoded);
}

namespace {

// The parts are joined by '|': escaping it (and the escape) keeps two requests from building
// one key, as the Redis bundle's README asks of gateway code.
QString escaped(QString value)
{
    return value.replace(QLatin1Char('\\'), QStringLiteral("\\\\"))
        .replace(QLatin1Char('|'), QStringLiteral("\\|"));
}

} // namespace

RequestKey requestKey(
    const QList<KeySelector> &selectors, MissingKeyMode missing, const RequestFacts &request)
{
    RequestKey out;
    QStringList parts;
    for (const KeySelector &k : selectors) {
        QString value;
        switch (k.kind) {
        case KeySelector::Kind::Ip:
            parts << escaped(request.clientAddress);
            continue;
        case KeySelector::Kind::Global:
            parts << QStringLiteral("all");
            continue;
        case KeySelector::Kind::Header:
            value = headerValue(request.headers, k.name);
            break;
        case KeySelector::Kind::Query:
            value = queryValue(request.target, k.name);
            break;
        }
        if (!value.isEmpty()) {
            parts << escaped(value);
            continue;
        }
        out.missing << k.toString();
        parts << (missing == MissingKeyMode::Ip ? escaped(request.clientAddress) : QString());
    }
    if (!out.missing.isEmpty() && missing == MissingKeyMode::Deny)
        out.outcome = RequestKey::Outcome::Denied;
    else if (!out.missing.isEmpty() && missing == MissingKeyMode::Allow)
        out.outcome = RequestKey::Outcome::Unlimited;
    out.key = parts.join(QLatin1Char('|'));
    return out;
}

} // namespace qs
