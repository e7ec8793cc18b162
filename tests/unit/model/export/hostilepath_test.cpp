// Hostile path patterns: every percent-escape or character that a gateway could read as syntax
// is refused by the reader (with its line and column) and, as defence in depth, by every
// exporter when a policy built in code carries it past the reader.
#include "model/export/exporter.h"
#include "model/policy/pathpattern.h"
#include "model/policy/policyreader.h"

#include <gtest/gtest.h>

using namespace qs;

namespace {

// Each decodes (or is) something a config file reads as syntax, or is malformed.
const char *const kHostile[] = {
    "/v1/a%27b", // '  ends a HAProxy argument
    "/v1/a%22b", // "  ends an NGINX string
    "/v1/a%0Ab", // newline: a new directive
    "/v1/a%0db", // carriage return
    "/v1/a%20b", // space separates arguments
    "/v1/a%09b", // tab
    "/v1/a%60b", // `  ends a Traefik rule
    "/v1/a%00b", // NUL
    "/v1/a%7Fb", // DEL
    "/v1/a%3Bb", // ;  ends an NGINX directive
    "/v1/a%23b", // #  starts a comment
    "/v1/a%7Bb", // {  opens an NGINX block
    "/v1/a%7Db",
    "/v1/a%5Cb", // backslash escapes
    "/v1/a%24b", // $  an NGINX variable
    "/v1/a%2Fb", // /  inside a segment: gateways disagree
    "/v1/a%3Fb", // ?
    "/v1/a%25b", // %  a second round of decoding
    "/v1/a%C3%A9", // non-ASCII: matched decoded by some gateways, encoded by others
    "/v1/a%", // a lone %
    "/v1/a%zz", // not hex
    "/v1/a%2", // one digit
    "/v1/a%+1", // not hex either
    "/v1/%2e%2e/admin", // an encoded dot segment can never match
    "/v1/a'b", // the same characters written plainly
    "/v1/a\"b", "/v1/a b", "/v1/a`b", "/v1/a$b", "/v1/é",
    "/v1/a\nb", // a raw newline, as a policy built in code may hold
    "/v1/a%27%0A%20%20%20%20http-request%20return%20status%20200%20content-type%20text%2F"
    "plain%20string%20pwned%0A%20%20%20%20%23", // the payload that once injected a directive
};

Policy policyWithPath(const QString &path)
{
    Policy p;
    p.name = QStringLiteral("hostile");
    Route r;
    r.id = QStringLiteral("r");
    r.path = path;
    r.limit().algorithm = limiter::Algorithm::Gcra;
    r.limit().rate = RateValue{QStringLiteral("1/s"), limiter::Rate{1, limiter::kMicrosPerSecond}};
    r.limit().burst = 1;
    p.routes.append(r);
    return p;
}

} // namespace

TEST(HostilePath, TheReaderRefusesEachWithLineAndColumn)
{
    int refused = 0;
    for (const char *path : kHostile) {
        // Double-quoted with escapes: a raw line break inside a quoted flow scalar whose next
        // line starts at column 0 is not YAML (libfyaml refuses it; yaml-cpp folded it into a
        // space), while "\n" gives the reader the path with the newline in it.
        QByteArray yaml = "quota_studio: 1\nname: t\nroutes:\n  - id: r\n    match: { path: \"";
        yaml += QByteArray(path).replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
        yaml += "\" }\n    limit: { algorithm: gcra, rate: 1/s, burst: 1 }\n";
        const PolicyReadResult read = readPolicy(yaml, QStringLiteral("t.yaml"));
        bool found = false;
        for (const Diagnostic &d : read.diagnostics) {
            if (d.severity != Diagnostic::Severity::Error
                || d.path != QStringLiteral("routes[0].match.path"))
                continue;
            found = true;
            EXPECT_EQ(d.line, 5) << path;
            EXPECT_EQ(d.column, 20) << path;
            EXPECT_TRUE(d.message.contains(QStringLiteral("segment"))) << d.message.toStdString();
            EXPECT_FALSE(d.message.contains(QLatin1Char('\n')) || d.message.contains(QChar(0)))
                << "a message quotes the path on one line: " << path;
        }
        EXPECT_TRUE(found) << "accepted: " << path;
        refused += found;
    }
    EXPECT_EQ(refused, int(std::size(kHostile)));
}

TEST(HostilePath, EveryExporterRefusesEachWhenTheReaderIsBypassed)
{
    ASSERT_EQ(exporters().size(), 6u);
    int checked = 0;
    for (const Exporter *exporter : exporters()) {
        for (const char *path : kHostile) {
            const ExportResult r = exporter->exportPolicy(policyWithPath(QString::fromUtf8(path)));
            EXPECT_TRUE(hasErrors(r.diagnostics)) << exporter->id().toStdString() << " " << path;
            EXPECT_TRUE(r.files.empty()) << exporter->id().toStdString() << " " << path;
            bool atPath = false;
            for (const Diagnostic &d : r.diagnostics) {
                atPath |= d.path == QStringLiteral("routes[0].match.path");
                EXPECT_FALSE(d.message.contains(QLatin1Char('\n')))
                    << "a message quotes the path on one line: " << path;
            }
            EXPECT_TRUE(atPath) << exporter->id().toStdString() << " " << path;
            ++checked;
        }
    }
    EXPECT_EQ(checked, 6 * int(std::size(kHostile)));
}

TEST(HostilePath, EscapesOfAllowedCharactersDecodeAndExport)
{
    const auto parsed = PathPattern::parse(QStringLiteral("/v1/%74b/a%3Ab/%40me/x+y,z=1!~"));
    ASSERT_TRUE(parsed.hasValue()) << parsed.error().toStdString();
    const PathPattern &p = *parsed;
    ASSERT_EQ(p.segments().size(), 5);
    EXPECT_EQ(p.segments()[1].text, QStringLiteral("tb"));
    EXPECT_EQ(p.segments()[2].text, QStringLiteral("a:b"));
    EXPECT_EQ(p.segments()[3].text, QStringLiteral("@me"));
    EXPECT_TRUE(p.matches(normalizeRequestPath(QStringLiteral("/v1/tb/a%3ab/@me/x+y,z=1!~"))));
    // Reserved characters also match their escapes, for gateways that match raw paths.
    EXPECT_EQ(p.toRegex(),
        QStringLiteral("^/v1/tb/a(?::|%3[Aa])b/(?:@|%40)me/x(?:\\+|%2[Bb])y(?:,|%2[Cc])"
                       "z(?:=|%3[Dd])1(?:!|%21)~/?$"));
    for (const Exporter *exporter : exporters()) {
        const ExportResult r = exporter->exportPolicy(policyWithPath(p.text()));
        EXPECT_FALSE(hasErrors(r.diagnostics)) << exporter->id().toStdString();
        EXPECT_FALSE(r.files.empty()) << exporter->id().toStdString();
    }
}
