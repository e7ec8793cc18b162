#include "model/probe/observedheaders.h"

#include <QDateTime>
#include <QLocale>
#include <QRegularExpression>

namespace qs {

namespace {

std::optional<qint64> wholeNumber(QString text)
{
    text = text.trimmed();
    if (text.startsWith(QLatin1Char('"')) && text.endsWith(QLatin1Char('"')) && text.size() >= 2)
        text = text.mid(1, text.size() - 2);
    bool ok = false;
    const qint64 v = text.toLongLong(&ok);
    return ok && v >= 0 ? std::optional<qint64>(v) : std::nullopt;
}

// "name;r=3;t=5" (structured fields, draft 08+) or "limit=10, remaining=3, reset=5" (earlier
// drafts): the parameters by name, whichever separator the gateway used.
QList<QPair<QString, QString>> parameters(const QString &value)
{
    QList<QPair<QString, QString>> out;
    const QStringList items = value.split(QRegularExpression(QStringLiteral("[;,]")));
    for (const QString &item : items) {
        const qsizetype eq = item.indexOf(QLatin1Char('='));
        if (eq > 0)
            out.append({item.left(eq).trimmed().toLower(), item.mid(eq + 1).trimmed()});
    }
    return out;
}

std::optional<qint64> parameter(
    const QList<QPair<QString, QString>> &params, std::initializer_list<const char *> names)
{
    for (const auto &[name, value] : params)
        for (const char *n : names)
            if (name == QLatin1String(n))
                return wholeNumber(value);
    return std::nullopt;
}

void readRetryAfter(ObservedHeaders &h, const QString &value, qint64 nowEpochS)
{
    if (const auto s = wholeNumber(value)) {
        h.retryAfterS = *s;
        return;
    }
    const QDateTime date = QLocale::c().toDateTime(
        value.trimmed().left(value.trimmed().lastIndexOf(QLatin1Char(' '))),
        QStringLiteral("ddd, dd MMM yyyy HH:mm:ss"));
    if (date.isValid()) {
        const QDateTime utc(date.date(), date.time(), Qt::UTC);
        h.retryAfterS = std::max<qint64>(0, utc.toSecsSinceEpoch() - nowEpochS);
        return;
    }
    h.problems << QStringLiteral("Retry-After '%1' is neither seconds nor an HTTP date").arg(value);
}

void readRateLimit(ObservedHeaders &h, const QString &value)
{
    const auto params = parameters(value);
    h.remaining = parameter(params, {"r", "remaining"});
    h.resetS = parameter(params, {"t", "reset"});
    if (const auto l = parameter(params, {"limit"}))
        h.limit = l;
    if (!h.remaining)
        h.problems << QStringLiteral("RateLimit '%1' has no remaining (r=) value").arg(value);
}

void readPolicy(ObservedHeaders &h, const QString &value)
{
    const auto params = parameters(value);
    h.policyQuota = parameter(params, {"q"});
    h.policyWindowS = parameter(params, {"w"});
    if (!h.policyQuota) {
        // Earlier drafts: "10;w=60" — the quota is the first item.
        h.policyQuota = wholeNumber(value.section(QLatin1Char(';'), 0, 0));
    }
    if (!h.policyQuota)
        h.problems << QStringLiteral("RateLimit-Policy '%1' has no quota (q=)").arg(value);
}

} // namespace

ObservedHeaders parseRateLimitHeaders(const RawHeaders &headers, qint64 nowEpochS)
{
    ObservedHeaders h;
    for (const auto &[rawName, rawValue] : headers) {
        const QString name = QString::fromLatin1(rawName).toLower();
        const QString value = QString::fromLatin1(rawValue);
        const bool relevant = name == QLatin1String("retry-after")
            || name.startsWith(QLatin1String("ratelimit"))
            || name.startsWith(QLatin1String("x-ratelimit"));
        if (!relevant)
            continue;
        h.raw += QString::fromLatin1(rawName) + QStringLiteral(": ") + value + QLatin1Char('\n');
        if (name == QLatin1String("retry-after")) {
            readRetryAfter(h, value, nowEpochS);
        } else if (name == QLatin1String("ratelimit")) {
            readRateLimit(h, value);
        } else if (name == QLatin1String("ratelimit-policy")) {
            readPolicy(h, value);
        } else if (name == QLatin1String("x-ratelimit-limit")
            || name == QLatin1String("ratelimit-limit")) {
            h.limit = wholeNumber(value);
        } else if (name == QLatin1String("x-ratelimit-remaining")
            || name == QLatin1String("ratelimit-remaining")) {
            h.remaining = wholeNumber(value);
        } else if (name == QLatin1String("x-ratelimit-reset")
            || name == QLatin1String("ratelimit-reset")) {
            h.resetS = wholeNumber(value);
        }
    }
    return h;
}

} // namespace qs
