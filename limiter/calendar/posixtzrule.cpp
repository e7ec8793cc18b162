#include "limiter/calendar/posixtzrule.h"

#include "limiter/calendar/civildate.h"

#include <cctype>

namespace qs::limiter::calendar {

// A cursor over the TZ string; each read returns false and leaves a reason on a malformed part.
class PosixTzParser {
public:
    explicit PosixTzParser(std::string_view text) : m_text(text) { }

    std::optional<PosixTzRule> parse(std::string &why)
    {
        PosixTzRule rule;
        std::int32_t west = 0;
        if (!name() || !offset(west, 24)) {
            why = "a TZ string starts with a zone name and its offset, e.g. CET-1: " + m_why;
            return std::nullopt;
        }
        rule.m_std = -west;
        if (atEnd())
            return rule;
        if (!name()) {
            why = m_why;
            return std::nullopt;
        }
        rule.m_hasDst = true;
        rule.m_dst = rule.m_std + 3600; // POSIX: one hour ahead unless given
        if (!atEnd() && peek() != ',') {
            if (!offset(west, 24)) {
                why = m_why;
                return std::nullopt;
            }
            rule.m_dst = -west;
        }
        // POSIX leaves a DST zone without a rule to the implementation; zone files always have one.
        if (!take(',') || !moment(rule.m_start) || !take(',') || !moment(rule.m_end) || !atEnd()) {
            why = "daylight saving time needs its rule, e.g. ,M3.5.0,M10.5.0/3"
                + (m_why.empty() ? std::string() : ": " + m_why);
            return std::nullopt;
        }
        return rule;
    }

private:
    bool atEnd() const { return m_pos >= m_text.size(); }
    char peek() const { return atEnd() ? '\0' : m_text[m_pos]; }
    bool take(char c)
    {
        if (peek() != c)
            return false;
        ++m_pos;
        return true;
    }
    bool fail(std::string reason)
    {
        m_why = std::move(reason);
        return false;
    }

    // Three or more letters, or <…> of letters, digits, '+' and '-'.
    bool name()
    {
        std::size_t length = 0;
        if (take('<')) {
            while (!atEnd() && peek() != '>') {
                const unsigned char c = static_cast<unsigned char>(peek());
                if (!std::isalnum(c) && c != '+' && c != '-')
                    return fail("a quoted zone name holds letters, digits, + and -");
                ++m_pos;
                ++length;
            }
            if (!take('>'))
                return fail("a zone name opened with < is not closed");
        } else {
            while (std::isalpha(static_cast<unsigned char>(peek()))) {
                ++m_pos;
                ++length;
            }
        }
        return length >= 3 || fail("a zone name has at least three characters");
    }

    bool number(int &value, int maxDigits)
    {
        int digits = 0;
        value = 0;
        while (digits < maxDigits && std::isdigit(static_cast<unsigned char>(peek()))) {
            value = value * 10 + (m_text[m_pos++] - '0');
            ++digits;
        }
        return digits > 0 || fail("a number was expected");
    }

    // [+-]hh[:mm[:ss]] in seconds; hours up to maxHours.
    bool offset(std::int32_t &seconds, int maxHours)
    {
        const bool negative = take('-');
        if (!negative)
            take('+');
        int h = 0, m = 0, s = 0;
        if (!number(h, 3) || h > maxHours)
            return fail("hours out of range");
        if (take(':') && (!number(m, 2) || m > 59 || (take(':') && (!number(s, 2) || s > 59))))
            return fail("minutes and seconds are 00 to 59");
        seconds = (h * 3600 + m * 60 + s) * (negative ? -1 : 1);
        return true;
    }

    bool moment(PosixTzRule::Moment &out)
    {
        using Form = PosixTzRule::Moment::Form;
        if (take('M')) {
            out.form = Form::MonthWeekDay;
            if (!number(out.month, 2) || out.month < 1 || out.month > 12 || !take('.')
                || !number(out.week, 1) || out.week < 1 || out.week > 5 || !take('.')
                || !number(out.day, 1) || out.day > 6)
                return fail("Mm.w.d takes a month 1-12, a week 1-5 and a weekday 0-6");
        } else if (take('J')) {
            out.form = Form::Julian1;
            if (!number(out.day, 3) || out.day < 1 || out.day > 365)
                return fail("Jn takes a day 1-365");
        } else {
            out.form = Form::Julian0;
            if (!number(out.day, 3) || out.day > 365)
                return fail("n takes a day 0-365");
        }
        return !take('/') || offset(out.time, 167);
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
    std::string m_why;
};

std::optional<PosixTzRule> PosixTzRule::parse(std::string_view text, std::string &why)
{
    return PosixTzParser(text).parse(why);
}

std::int64_t PosixTzRule::Moment::dayIn(std::int64_t year) const
{
    const std::int64_t jan1 = daysFromCivil({year, 1, 1});
    switch (form) {
    case Form::Julian1: // Feb 29 is never counted: day 60 is always March 1
        return jan1 + day - 1 + (isLeapYear(year) && day >= 60 ? 1 : 0);
    case Form::Julian0:
        return jan1 + day;
    case Form::MonthWeekDay: {
        const std::int64_t first = daysFromCivil({year, month, 1});
        std::int64_t d = first + (day - weekdayFromDays(first) + 7) % 7 + 7 * (week - 1);
        while (d >= first + daysInMonth(year, month)) // week 5: the last such weekday
            d -= 7;
        return d;
    }
    }
    return jan1;
}

std::vector<UtcOffsetChange> PosixTzRule::changesIn(std::int64_t year) const
{
    if (!m_hasDst)
        return {};
    // The start is given in standard time, the end in daylight saving time.
    UtcOffsetChange start{m_start.dayIn(year) * 86400 + m_start.time - m_std, m_dst};
    UtcOffsetChange end{m_end.dayIn(year) * 86400 + m_end.time - m_dst, m_std};
    if (end.at < start.at)
        return {end, start};
    return {start, end};
}

} // namespace qs::limiter::calendar
