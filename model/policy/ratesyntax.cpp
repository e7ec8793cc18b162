#include "model/policy/ratesyntax.h"

#include <QLocale>
#include <QRegularExpression>

#include <algorithm>
#include <numeric>

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

bool isAsciiSpace(QChar c)
{
    return c == u' ' || c == u'\t' || c == u'\n' || c == u'\r' || c == u'\v' || c == u'\f';
}

bool isAsciiDigit(QChar c)
{
    return c >= u'0' && c <= u'9';
}

// Matches `\s*(\d+)\s*([a-z]+)\s*` over the whole of `text` (written out: this runs for every
// duration and rate of a policy, where a regular expression was most of the reader's time).
std::optional<std::pair<QStringView, QStringView>> amountAndUnit(QStringView text)
{
    qsizetype i = 0;
    const auto skipSpaces = [&] {
        while (i < text.size() && isAsciiSpace(text[i]))
            ++i;
    };
    skipSpaces();
    const qsizetype digitsStart = i;
    while (i < text.size() && isAsciiDigit(text[i]))
        ++i;
    const QStringView digits = text.mid(digitsStart, i - digitsStart);
    skipSpaces();
    const qsizetype unitStart = i;
    while (i < text.size() && text[i] >= u'a' && text[i] <= u'z')
        ++i;
    const QStringView unit = text.mid(unitStart, i - unitStart);
    skipSpaces();
    if (digits.isEmpty() || unit.isEmpty() || i != text.size())
        return std::nullopt;
    return std::pair{digits, unit};
}

const QString kDurationHelp
    = QStringLiteral("write a whole number and a unit: 250ms, 10s, 1m, 1h, 1d");

} // namespace

Expected<Micros> parseDuration(const QString &text)
{
    const QString lower = text.toLower();
    const auto parts = amountAndUnit(lower);
    if (!parts)
        return QStringLiteral("'%1' is not a duration: %2").arg(text, kDurationHelp);
    bool ok = false;
    const qint64 amount = parts->first.toLongLong(&ok);
    const QString unitText = parts->second.toString();
    const auto unit = unitMicros(unitText);
    if (!unit)
        return QStringLiteral("'%1' has an unknown unit '%2': use ms, s, m, h or d")
            .arg(text, unitText);
    // The pattern allows digits only, so a failed conversion is a number too large for 64 bits.
    if (ok && amount <= 0)
        return QStringLiteral("'%1' must be longer than zero: %2").arg(text, kDurationHelp);
    if (!ok || amount > 366 * limiter::kMicrosPerDay / *unit)
        return QStringLiteral("'%1' is longer than a year: use a shorter duration").arg(text);
    return amount * *unit;
}

namespace {

// "0.5" -> 5 / 10: a decimal count as a whole numerator and a power-of-ten denominator (up to
// six decimals, a microsecond's worth), so that `0.5/s` is exactly one per 2 s.
std::optional<std::pair<qint64, qint64>> decimalCount(const QString &text)
{
    // ^(\d{1,12})(?:\.(\d{1,6}))?$, written out
    const qsizetype dot = text.indexOf(QLatin1Char('.'));
    const QStringView whole = QStringView(text).left(dot < 0 ? text.size() : dot);
    const QStringView fraction = dot < 0 ? QStringView() : QStringView(text).mid(dot + 1);
    const auto allDigits
        = [](QStringView v) { return std::all_of(v.begin(), v.end(), isAsciiDigit); };
    if (whole.isEmpty() || whole.size() > 12 || !allDigits(whole))
        return std::nullopt;
    if (dot >= 0 && (fraction.isEmpty() || fraction.size() > 6 || !allDigits(fraction)))
        return std::nullopt;
    qint64 denominator = 1;
    for (qsizetype i = 0; i < fraction.size(); ++i)
        denominator *= 10;
    return std::pair{whole.toLongLong() * denominator + fraction.toLongLong(), denominator};
}

} // namespace

Expected<limiter::Rate> parseRate(const QString &text)
{
    const QString help
        = QStringLiteral("write requests/period (2/s, 0.5/s, 100/min, 5/250ms) or `1 every 2s`");
    QString countText, period;
    static const QRegularExpression every(
        QStringLiteral("^\\s*(\\S+)\\s+every\\s+(.+)$"), QRegularExpression::CaseInsensitiveOption);
    const bool saysEvery = text.contains(QLatin1String("every"), Qt::CaseInsensitive);
    if (const auto m = saysEvery ? every.match(text) : QRegularExpressionMatch(); m.hasMatch()) {
        countText = m.captured(1);
        period = m.captured(2).trimmed().toLower();
    } else {
        const qsizetype slash = text.indexOf(QLatin1Char('/'));
        if (slash < 0)
            return QStringLiteral("'%1' is not a rate: %2").arg(text, help);
        countText = text.left(slash).trimmed();
        period = text.mid(slash + 1).trimmed().toLower();
    }
    const auto count = decimalCount(countText);
    static const QRegularExpression digits(QStringLiteral("^\\d+$"));
    if (!count && digits.match(countText).hasMatch())
        return QStringLiteral("'%1' counts more requests than anything can: %2").arg(text, help);
    if (!count)
        return QStringLiteral("'%1' needs a number of requests (whole or with up to six "
                              "decimals) before the period: %2")
            .arg(text, help);
    if (!period.isEmpty() && period.front().isLetter())
        period.prepend(QLatin1Char('1')); // "2/s" means "2 per 1s"
    const auto micros = parseDuration(period);
    if (!micros)
        return QStringLiteral("'%1': the period is wrong: %2").arg(text, micros.error());
    // count/denominator per period = count per (period * denominator), in lowest terms.
    const auto [numerator, denominator] = *count;
    if (numerator == 0)
        return QStringLiteral("'%1': the rate must allow some requests").arg(text);
    const qint64 common = std::gcd(numerator, denominator);
    const qint64 perPeriods = denominator / common;
    const Micros periodMicros = *micros;
    if (periodMicros > 366 * limiter::kMicrosPerDay / perPeriods)
        return QStringLiteral("'%1' is slower than one request a year: use a faster rate")
            .arg(text);
    const limiter::Rate rate{numerator / common, periodMicros * perPeriods};
    if (auto problem = rate.validate())
        return QStringLiteral("'%1': %2").arg(text, QString::fromStdString(*problem));
    return rate;
}

QString describeRate(const limiter::Rate &rate)
{
    static const struct {
        Micros period;
        const char *name;
    } units[] = {{limiter::kMicrosPerSecond, "second"}, {limiter::kMicrosPerMinute, "minute"},
        {limiter::kMicrosPerHour, "hour"}, {limiter::kMicrosPerDay, "day"}};
    const QString requests = rate.count == 1
        ? QStringLiteral("1 request")
        : QStringLiteral("%1 requests").arg(QLocale().toString(rate.count));
    // Written per one unit: say it that way ("30 requests per hour", "1 request per second").
    for (const auto &u : units)
        if (rate.period == u.period)
            return QStringLiteral("%1 per %2").arg(requests, QLatin1String(u.name));
    if (rate.count == 1)
        return QStringLiteral("1 request every %1").arg(formatDurationInWords(rate.period));
    if (rate.perSecond() >= 1)
        return QStringLiteral("%1 requests per second")
            .arg(QLocale().toString(rate.perSecond(), 'g', 6));
    return QStringLiteral("%1 every %2").arg(requests, formatDurationInWords(rate.period));
}

QString formatDurationInWords(Micros micros)
{
    static const struct {
        Micros micros;
        const char *unit;
    } units[] = {{limiter::kMicrosPerDay, "d"}, {limiter::kMicrosPerHour, "h"},
        {limiter::kMicrosPerMinute, "min"}, {limiter::kMicrosPerSecond, "s"},
        {limiter::kMicrosPerMilli, "ms"}};
    for (const auto &u : units)
        if (micros >= u.micros) {
            const double value = double(micros) / double(u.micros);
            return QStringLiteral("%1 %2").arg(
                QLocale().toString(value, 'g', 4), QLatin1String(u.unit));
        }
    return QStringLiteral("%1 µs").arg(micros);
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
