#include "model/policy/pathpattern.h"

#include <QRegularExpression>
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

} // namespace

std::variant<PathPattern, QString> PathPattern::parse(const QString &text)
{
    if (!text.startsWith(QLatin1Char('/')))
        return QStringLiteral("path '%1' must start with '/': %2").arg(text, kPatternHelp);
    static const QRegularExpression forbidden(QStringLiteral("[\\s?#;\"'`\\\\{}]"));
    static const QRegularExpression param(QStringLiteral("^\\{([A-Za-z_][A-Za-z0-9_]*)\\}$"));
    PathPattern pattern;
    pattern.m_text = text;
    const QStringList parts = text.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    for (qsizetype i = 0; i < parts.size(); ++i) {
        const QString &part = parts[i];
        Segment s;
        if (part == QLatin1String("**")) {
            if (i + 1 != parts.size())
                return QStringLiteral("'**' may only be the last segment of '%1'").arg(text);
            s.kind = Kind::DoubleStar;
        } else if (part == QLatin1String("*")) {
            s.kind = Kind::Star;
        } else if (const auto m = param.match(part); m.hasMatch()) {
            s.kind = Kind::Param;
            s.text = m.captured(1);
        } else if (part.contains(QLatin1Char('*'))) {
            return QStringLiteral("segment '%1' of '%2' mixes '*' with text: %3")
                .arg(part, text, kPatternHelp);
        } else if (part.contains(forbidden)) {
            return QStringLiteral("segment '%1' of '%2' contains a character a request path "
                                  "cannot carry unencoded (space, ?, #, ;, quotes, \\, {, }): "
                                  "this route could never match")
                .arg(part, text);
        } else if (part == QLatin1String(".") || part == QLatin1String("..")) {
            return QStringLiteral("segment '%1' of '%2': request paths are normalised, so a "
                                  "pattern with '.' or '..' could never match")
                .arg(part, text);
        } else {
            s.text = QUrl::fromPercentEncoding(part.toUtf8());
        }
        pattern.m_segments.append(s);
    }
    return pattern;
}

QString PathPattern::toRegex() const
{
    static const QString special = QStringLiteral("\\^$.|?*+()[]{}");
    QString re = QStringLiteral("^");
    bool rest = false;
    for (const Segment &s : m_segments) {
        switch (s.kind) {
        case Kind::Literal:
            re += QLatin1Char('/');
            for (const QChar c : s.text) {
                if (special.contains(c))
                    re += QLatin1Char('\\');
                re += c;
            }
            break;
        case Kind::Param:
        case Kind::Star:
            re += QStringLiteral("/[^/]+");
            break;
        case Kind::DoubleStar:
            re += QStringLiteral("(/.*)?");
            rest = true;
            break;
        }
    }
    return re + (rest ? QStringLiteral("$") : QStringLiteral("/?$"));
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
