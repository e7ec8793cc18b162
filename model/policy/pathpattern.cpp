#include "model/policy/pathpattern.h"

#include <QUrl>

namespace qs {

namespace {

using Kind = PathPattern::SegmentKind;

int rank(Kind kind)
{
    switch (kind) {
    case Kind::Literal:
        return 3;
    case Kind::Param:
    case Kind::Star:
        return 2;
    case Kind::DoubleStar:
        return 1;
    }
    return 0;
}

bool segmentMatches(const PathPattern::Segment &s, const QString &value)
{
    return s.kind != Kind::Literal || s.text == value;
}

// Whether the pattern segments from `i` on match the path segments from `j` on.
bool matchFrom(
    const QList<PathPattern::Segment> &p, qsizetype i, const QStringList &path, qsizetype j)
{
    for (; i < p.size(); ++i, ++j) {
        if (p[i].kind == Kind::DoubleStar)
            return true; // `**` is last (parse enforces it) and takes any rest, even none
        if (j >= path.size() || !segmentMatches(p[i], path[j]))
            return false;
    }
    return j == path.size();
}

// Two single segments that some value satisfies together.
bool segmentsOverlap(const PathPattern::Segment &a, const PathPattern::Segment &b)
{
    if (a.kind == Kind::Literal && b.kind == Kind::Literal)
        return a.text == b.text;
    return true;
}

bool overlapFrom(const QList<PathPattern::Segment> &a, qsizetype i,
    const QList<PathPattern::Segment> &b, qsizetype j)
{
    for (;; ++i, ++j) {
        const bool aDone = i >= a.size();
        const bool bDone = j >= b.size();
        if (!aDone && a[i].kind == Kind::DoubleStar)
            return true; // a takes whatever b still requires
        if (!bDone && b[j].kind == Kind::DoubleStar)
            return true;
        if (aDone || bDone)
            return aDone && bDone;
        if (!segmentsOverlap(a[i], b[j]))
            return false;
    }
}

const QString kPatternHelp = QStringLiteral(
    "patterns start with '/' and use literal segments, '*' (one segment), '{name}' (one named "
    "segment) or a final '**' (any rest)");

const QString kLiteralRule = QStringLiteral(
    "literal segments hold letters, digits and - . _ ~ : @ ! + , = only, written plainly or as "
    "%XX escapes of those (quotes, spaces, controls, '%', '/', ';', '$' and non-ASCII are refused "
    "because gateways disagree on them or read them as syntax)");

// "a space", "a newline", "'\''" ... for messages about one character.
QString describeChar(QChar c)
{
    switch (c.unicode()) {
    case u' ':
        return QStringLiteral("a space");
    case u'\n':
        return QStringLiteral("a newline");
    case u'\r':
        return QStringLiteral("a carriage return");
    case u'\t':
        return QStringLiteral("a tab");
    case 0:
        return QStringLiteral("a NUL byte");
    default:
        break;
    }
    if (!c.isPrint())
        return QStringLiteral("control character U+%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
    return QStringLiteral("'%1'").arg(c);
}

// The pattern as a message may quote it: a newline or NUL in a hostile pattern must not start
// a line of its own in lint's file:line:col output.
QString printable(const QString &text)
{
    QString out;
    for (const QChar c : text)
        out += c.isPrint() ? c : QLatin1Char('?');
    return out;
}

} // namespace

namespace {

// `{name}` with a name of letters, digits and `_`, not starting with a digit: the name, or an
// empty string.
QString paramName(const QString &segment)
{
    const qsizetype n = segment.size();
    if (n < 3 || segment[0] != QLatin1Char('{') || segment[n - 1] != QLatin1Char('}'))
        return {};
    for (qsizetype i = 1; i < n - 1; ++i) {
        const char16_t u = segment[i].unicode();
        const bool letter = (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || u == u'_';
        if (!letter && !(i > 1 && u >= u'0' && u <= u'9'))
            return {};
    }
    return segment.mid(1, n - 2);
}

} // namespace

// Messages quote the pattern through printable(); it is made only when one is written.
Expected<PathPattern> PathPattern::parse(const QString &rawText)
{
    if (!rawText.startsWith(QLatin1Char('/')))
        return QStringLiteral("path '%1' must start with '/': %2")
            .arg(printable(rawText), kPatternHelp);
    PathPattern pattern;
    pattern.m_text = rawText;
    const QStringList rawParts = rawText.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    pattern.m_segments.reserve(rawParts.size());
    for (qsizetype i = 0; i < rawParts.size(); ++i) {
        const QString &rawPart = rawParts[i];
        Segment s;
        if (rawPart == QLatin1String("**")) {
            if (i + 1 != rawParts.size())
                return QStringLiteral("'**' may only be the last segment of '%1'")
                    .arg(printable(rawText));
            s.kind = Kind::DoubleStar;
        } else if (rawPart == QLatin1String("*")) {
            s.kind = Kind::Star;
        } else if (QString name = paramName(rawPart); !name.isEmpty()) {
            s.kind = Kind::Param;
            s.text = std::move(name);
        } else if (rawPart.contains(QLatin1Char('*'))) {
            return QStringLiteral("segment '%1' of '%2' mixes '*' with text: %3")
                .arg(printable(rawPart), printable(rawText), kPatternHelp);
        } else {
            DecodedSegment literal = decodeLiteralSegment(rawPart);
            if (!literal.problem.isEmpty())
                return QStringLiteral("segment '%1' of '%2': %3")
                    .arg(printable(rawPart), printable(rawText), literal.problem);
            s.text = std::move(literal.text);
            if (s.text == QLatin1String(".") || s.text == QLatin1String(".."))
                return QStringLiteral("segment '%1' of '%2' is a dot segment: request paths are "
                                      "normalised, so this pattern could never match")
                    .arg(printable(rawPart), printable(rawText));
        }
        pattern.m_segments.append(std::move(s));
    }
    return pattern;
}

bool isPathLiteralChar(QChar c)
{
    const char16_t u = c.unicode();
    return (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9')
        || QStringView(u"-._~:@!+,=").contains(c);
}

DecodedSegment decodeLiteralSegment(const QString &segment)
{
    QString out;
    out.reserve(segment.size());
    for (qsizetype i = 0; i < segment.size(); ++i) {
        QChar c = segment[i];
        if (c == QLatin1Char('%')) {
            const QString hex = segment.mid(i + 1, 2);
            const auto isHex = [](QChar h) {
                const char16_t u = h.unicode();
                return (u >= u'0' && u <= u'9') || (u >= u'a' && u <= u'f')
                    || (u >= u'A' && u <= u'F');
            };
            // Multi-argument arg() substitutes at once: the escape's own digits ("%01") must
            // not be taken for a place marker.
            const QString at = QString::number(i + 1);
            if (hex.size() != 2 || !isHex(hex[0]) || !isHex(hex[1]))
                return DecodedSegment{QString(),
                    QStringLiteral("'%' at character %1 must start a %XX escape (two hex "
                                   "digits): %2")
                        .arg(at, kLiteralRule)};
            c = QChar(hex.toInt(nullptr, 16));
            if (!isPathLiteralChar(c))
                return DecodedSegment{QString(),
                    QStringLiteral("'%1' at character %2 decodes to %3, which a path pattern "
                                   "may not hold: %4")
                        .arg(QLatin1Char('%') + hex, at, describeChar(c), kLiteralRule)};
            i += 2;
        } else if (!isPathLiteralChar(c)) {
            return DecodedSegment{QString(),
                QStringLiteral("%1 at character %2 may not appear in a path pattern: %3")
                    .arg(describeChar(c), QString::number(i + 1), kLiteralRule)};
        }
        out += c;
    }
    return DecodedSegment{out, QString()};
}

namespace {

// "%7[Ee]": an escape of `u` with either case of hex letter.
QString anyCaseEscape(char16_t u)
{
    const QString hex = QStringLiteral("%1").arg(u, 2, 16, QLatin1Char('0')).toUpper();
    QString out = QStringLiteral("%");
    for (const QChar h : hex)
        out += h.isLetter() ? QStringLiteral("[%1%2]").arg(h, h.toLower()) : QString(h);
    return out;
}

// Characters that mean something in a regex, escaped when literal.
const QString &regexSpecials()
{
    static const QString special = QStringLiteral("\\^$.|?*+()[]{}");
    return special;
}

// One literal character as the given spelling lets it arrive. An unreserved character stands
// for itself where the gateway decodes its escapes first (HAProxy's percent-decode-unreserved,
// Envoy's normalize_path); a reserved one (`:` `@` `!` `+` `,` `=`) is not decoded by them, so it
// also matches %XX. Undecoded paths may spell any character as %XX.
QString literalCharRegex(QChar c, PathPattern::Spelling spelling)
{
    const QString plain = regexSpecials().contains(c) ? QStringLiteral("\\") + c : QString(c);
    const char16_t u = c.unicode();
    const bool unreserved = (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z')
        || (u >= u'0' && u <= u'9') || QStringView(u"-._~").contains(c);
    switch (spelling) {
    case PathPattern::Spelling::Decoded:
        return plain;
    case PathPattern::Spelling::UnreservedDecoded:
        if (unreserved)
            return plain;
        break;
    case PathPattern::Spelling::Encoded:
        break;
    }
    return QStringLiteral("(?:%1|%2)").arg(plain, anyCaseEscape(u));
}

} // namespace

QString encodedTextRegex(const QString &text)
{
    QString re;
    for (const QChar c : text)
        re += literalCharRegex(c, PathPattern::Spelling::Encoded);
    return re;
}

QString PathPattern::toRegex(Spelling spelling) const
{
    const bool rest = !m_segments.isEmpty() && m_segments.last().kind == Kind::DoubleStar;
    return QLatin1Char('^') + regexBody(spelling)
        + (rest ? QStringLiteral("$") : QStringLiteral("/?$"));
}

QString PathPattern::regexBody(Spelling spelling) const
{
    QString re;
    for (const Segment &s : m_segments) {
        switch (s.kind) {
        case Kind::Literal:
            re += QLatin1Char('/');
            for (const QChar c : s.text) {
                const char16_t u = c.unicode();
                const bool alnum = (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z')
                    || (u >= u'0' && u <= u'9');
                if (alnum && spelling != Spelling::Encoded)
                    re += c; // the common case, without a string per character
                else
                    re += literalCharRegex(c, spelling);
            }
            break;
        case Kind::Param:
        case Kind::Star:
            re += QStringLiteral("/[^/]+");
            break;
        case Kind::DoubleStar:
            re += QStringLiteral("(/.*)?");
            break;
        }
    }
    return re;
}

QString PathPattern::example() const
{
    QString path;
    for (const Segment &s : m_segments) {
        path += QLatin1Char('/');
        switch (s.kind) {
        case SegmentKind::Literal:
            path += s.text;
            break;
        case SegmentKind::Param:
            path += QStringLiteral("42");
            break;
        case SegmentKind::Star:
        case SegmentKind::DoubleStar:
            path += QLatin1Char('x');
            break;
        }
    }
    return path.isEmpty() ? QStringLiteral("/") : path;
}

bool PathPattern::matches(const QStringList &normalizedSegments) const
{
    return matchFrom(m_segments, 0, normalizedSegments, 0);
}

int PathPattern::compareSpecificity(const PathPattern &a, const PathPattern &b)
{
    const qsizetype n = std::min(a.m_segments.size(), b.m_segments.size());
    for (qsizetype i = 0; i < n; ++i) {
        const int ra = rank(a.m_segments[i].kind);
        const int rb = rank(b.m_segments[i].kind);
        if (ra != rb)
            return ra < rb ? -1 : 1;
    }
    if (a.m_segments.size() != b.m_segments.size())
        return a.m_segments.size() < b.m_segments.size() ? -1 : 1;
    return 0;
}

bool PathPattern::overlap(const PathPattern &a, const PathPattern &b)
{
    return overlapFrom(a.m_segments, 0, b.m_segments, 0);
}

QStringList normalizeRequestPath(const QString &target)
{
    QString path = target;
    if (const qsizetype q = path.indexOf(QLatin1Char('?')); q >= 0)
        path.truncate(q);
    if (const qsizetype h = path.indexOf(QLatin1Char('#')); h >= 0)
        path.truncate(h);
    QStringList out;
    for (const QString &raw : path.split(QLatin1Char('/'), Qt::SkipEmptyParts)) {
        const QString segment = QUrl::fromPercentEncoding(raw.toUtf8());
        if (segment == QLatin1String("."))
            continue;
        if (segment == QLatin1String("..")) {
            if (!out.isEmpty())
                out.removeLast();
            continue;
        }
        out.append(segment);
    }
    return out;
}

} // namespace qs
