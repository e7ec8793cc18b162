#pragma once
// Route path patterns: `/v1/login` (exact), `/v1/search/*` (one segment), `/v1/reports/**`
// (zero or more trailing segments), `/v1/orders/{id}` (one segment, named).
//
// Matching works on normalised request paths (normalizeRequestPath): query string dropped,
// dot segments resolved (so `/v1/public/../admin` cannot slip past a limit on `/v1/admin`),
// empty segments and a trailing slash ignored, each segment percent-decoded.
#include "model/base/expected.h"
#include <QString>
#include <QStringList>

#include <optional>

namespace qs {

class PathPattern {
public:
    enum class SegmentKind { Literal, Param, Star, DoubleStar };
    struct Segment {
        SegmentKind kind = SegmentKind::Literal;
        QString text; // literal text, or the parameter's name
        friend bool operator==(const Segment &, const Segment &) = default;
    };

    // The pattern, or a sentence saying what is wrong and how to fix it.
    static Expected<PathPattern> parse(const QString &text);

    const QString &text() const { return m_text; }
    const QList<Segment> &segments() const { return m_segments; }

    bool matches(const QStringList &normalizedSegments) const;
    // A request path the pattern matches, for a person to try: literals as written, `42` for a
    // parameter, `x` for a wildcard (`/v1/users/{id}` → `/v1/users/42`).
    QString example() const;

    // What a gateway matches a path regex against; it decides how a literal character of the
    // pattern may be spelled in the request.
    enum class Spelling {
        // Escapes of unreserved characters decoded by the gateway first (HAProxy's normalize-uri,
        // Envoy's normalize_path, Traefik, Kong): a reserved character (`:` `@` `!` `+` `,` `=`)
        // may still arrive as its %XX escape.
        UnreservedDecoded,
        // Every escape decoded (NGINX's $uri): each character is itself.
        Decoded,
        // Nothing decoded (NGINX's $request_uri): each character is itself or any %XX spelling
        // of it, either case of hex digit.
        Encoded,
    };

    // An anchored POSIX/PCRE/RE2 regex for gateways that match paths by regex: literal text
    // escaped, `*` and `{name}` one segment, `**` any rest, a trailing slash optional. It holds
    // no quote, space, `;`, `#`, `{` or `}` (literal text cannot).
    QString toRegex(Spelling spelling = Spelling::UnreservedDecoded) const;
    // The same without anchors, for a gateway that puts more around it (NGINX matches
    // "METHOD path"). `**` is `(/.*)?`: a caller matching decoded paths, which may hold a
    // newline, switches on dot-all (`(?s)`) and anchors with `\z`, not `$`.
    QString regexBody(Spelling spelling = Spelling::UnreservedDecoded) const;

    // Ordering by specificity: at the first segment where two patterns differ in kind, a literal
    // beats a parameter or `*`, which beat `**`; then the longer pattern wins. Equal
    // specificity with an overlap is ambiguous.
    static int compareSpecificity(const PathPattern &a, const PathPattern &b);
    // Whether some path matches both.
    static bool overlap(const PathPattern &a, const PathPattern &b);

private:
    QString m_text;
    QList<Segment> m_segments;
};

// The one rule for literal path text, shared by the reader and every exporter: letters, digits
// and `- . _ ~ : @ ! + , =`, plainly or as %XX escapes of those. Everything else (quotes,
// spaces, controls, `%`, `/`, `;`, `$`, `#`, braces, non-ASCII) is refused: gateways read them
// as syntax or disagree on whether they match decoded or encoded.
bool isPathLiteralChar(QChar c);
// A literal segment decoded, or what is wrong with it and where.
struct DecodedSegment {
    QString text;
    QString problem; // empty when the segment follows the rule
};
DecodedSegment decodeLiteralSegment(const QString &segment);

// `text` as a regex over undecoded request text: each character itself or any %XX spelling of
// it (`t` -> `(?:t|%74)`), regex syntax escaped. What PathPattern::Spelling::Encoded writes for
// a literal segment; NGINX's export also matches query parameter names with it.
QString encodedTextRegex(const QString &text);

// Splits, decodes and normalises a request target ("/v1/a/../b/?x=1" -> ["v1", "b"]).
QStringList normalizeRequestPath(const QString &target);

} // namespace qs
