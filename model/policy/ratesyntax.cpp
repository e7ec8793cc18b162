#include "model/policy/ratesyntax.h"

#include <QRegularExpression>

namespace qs {

using limiter::Micros;

namespace {

std::optional<Micros> unitMicros(const QString &unit)
{
    static const struct {
        const char *names[4];
        Micros micros;
    } units[] = {
        {{"ms", "msec", "millisecond", "milliseconds"}, limiter::kMicrosPerMilli},
        {{"s", "sec", "second", "seconds"}, limiter::kMicrosPerSecond},
        {{"m", "min", "minute", "minutes"}, limiter::kMicrosPerMinute},
        {{"h", "hr", "hour", "hours"}, limiter::kMicrosPerHour},
        {{"d", "day", "days", nullptr}, limiter::kMicrosPerDay},
    };
    for (const auto &u : units)
        for (const char *name : u.names)
            if (name && unit == QLatin1String(name))
                return u.micros;
    return std::nullopt;
}

const QString kDurationHelp
    = QStringLiteral("write a whole number and a unit: 250ms, 10s, 1m, 1h, 1d");

} // namespace

std::variant<Micros, QString> parseDuration(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("^\\s*(\\d+)\\s*([a-z]+)\\s*$"));
    const auto m = re.match(text.toLower());
    if (!m.hasMatch())
        return QStringLiteral("'%1' is not a duration: %2").arg(text, kDurationHelp);
    bool ok = false;
    const qint64 amount = m.captured(1).toLongLong(&ok);
    const auto unit = unitMicros(m.captured(2));
    if (!unit)
        return QStringLiteral("'%1' has an unknown unit '%2': use ms, s, m, h or d")
            .arg(text, m.captured(2));
    // The pattern allows digits only, so a failed conversion is a number too large for 64 bits.
    if (ok && amount <= 0)
        return QStringLiteral("'%1' must be longer than zero: %2").arg(text, kDurationHelp);
    if (!ok || amount > 366 * limiter::kMicrosPerDay / *unit)
        return QStringLiteral("'%1' is longer than a year: use a shorter duration").arg(text);
    return amount * *unit;
}

std::variant<limiter::Rate, QString> parseRate(const QString &text)
{
    const QString help = QStringLiteral("write requests/period: 2/s, 100/min, 1000/h, 5/250ms");
    const int slash = text.indexOf(QLatin1Char('/'));
    if (slash < 0)
        return QStringLiteral("'%1' is not a rate: %2").arg(text, help);
    bool ok = false;
    const QString countText = text.left(slash).trimmed();
    const qint64 count = countText.toLongLong(&ok);
    static const QRegularExpression digits(QStringLiteral("^\\d+$"));
    if (!ok && digits.match(countText).hasMatch())
        return QStringLiteral("'%1' counts more requests than anything can: %2").arg(text, help);
    if (!ok)
        return QStringLiteral("'%1' needs a whole number of requests before '/': %2")
            .arg(text, help);
    QString period = text.mid(slash + 1).trimmed().toLower();
    if (!period.isEmpty() && period.front().isLetter())
        period.prepend(QLatin1Char('1')); // "2/s" means "2 per 1s"
    const auto micros = parseDuration(period);
    if (const auto *problem = std::get_if<QString>(&micros))
        return QStringLiteral("'%1': the period after '/' is wrong: %2").arg(text, *problem);
    const limiter::Rate rate{count, std::get<Micros>(micros)};
    if (auto problem = rate.validate())
        return QStringLiteral("'%1': %2").arg(text, QString::fromStdString(*problem));
    return rate;
}

QString formatDuration(Micros micros)
{
    static const struct {
        Micros micros;
        const char *unit;
    } units[] = {{limiter::kMicrosPerDay, "d"}, {limiter::kMicrosPerHour, "h"},
        {limiter::kMicrosPerMinute, "m"}, {limiter::kMicrosPerSecond, "s"},
        {limiter::kMicrosPerMilli, "ms"}};
    for (const auto &u : units)
        if (micros % u.micros == 0)
            return QString::number(micros / u.micros) + QLatin1String(u.unit);
    return QString::number(micros) + QStringLiteral("us");
}

QString formatRate(const limiter::Rate &rate)
{
    QString period = formatDuration(rate.period);
    if (period.startsWith(QLatin1Char('1')) && !period.at(1).isDigit())
        period.remove(0, 1); // "1s" -> "s"
    return QString::number(rate.count) + QLatin1Char('/') + period;
}

} // namespace qs
