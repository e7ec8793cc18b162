#include "model/policy/policyreader.h"
#include "tests/unit/model/diagnosticsdump.h"

#include <QDir>
#include <QFile>

#include <gtest/gtest.h>

using namespace qs;
using qs::test::dump;

namespace {

const Diagnostic *find(const Diagnostics &diagnostics, const QString &path)
{
    for (const Diagnostic &d : diagnostics)
        if (d.path == path)
            return &d;
    return nullptr;
}

} // namespace

TEST(PolicyReader, ReadsTheExamplePolicy)
{
    const PolicyReadResult r = readPolicyFile(QStringLiteral(QS_EXAMPLES_DIR "/public-api.yaml"));
    EXPECT_FALSE(hasErrors(r.diagnostics)) << dump(r.diagnostics);
    EXPECT_EQ(r.policy.name, QStringLiteral("public-api"));
    EXPECT_EQ(r.policy.formatVersion, 1);
    ASSERT_GE(r.policy.routes.size(), 5);
    const Route &login = r.policy.routes[0];
    EXPECT_EQ(login.id, QStringLiteral("login"));
    EXPECT_EQ(login.methods, QStringList{QStringLiteral("POST")});
    EXPECT_EQ(login.limit().algorithm, limiter::Algorithm::TokenBucket);
    EXPECT_EQ(*login.limit().capacity, 10);
    EXPECT_EQ(login.limit().refill->rate.count, 2);
    EXPECT_EQ(login.limit().refill->rate.period, limiter::kMicrosPerSecond);
    EXPECT_EQ(r.policy.locations.value(QStringLiteral("routes[0].limit.capacity")).line, 11);
}

TEST(PolicyReader, EveryExampleLoadsWithoutErrors)
{
    const QDir dir(QStringLiteral(QS_EXAMPLES_DIR));
    const QStringList files = dir.entryList({QStringLiteral("*.yaml"), QStringLiteral("*.json")});
    ASSERT_GE(files.size(), 9) << "public-api, login-protection, legacy-payments + one per "
                                  "algorithm";
    for (const QString &f : files) {
        const PolicyReadResult r = readPolicyFile(dir.filePath(f));
        EXPECT_FALSE(hasErrors(r.diagnostics)) << f.toStdString() << "\n" << dump(r.diagnostics);
        EXPECT_FALSE(r.policy.routes.isEmpty()) << f.toStdString();
    }
}

TEST(PolicyReader, SyntaxErrorPointsAtLineAndColumn)
{
    const QByteArray text = "quota_studio: 1\nname: broken\nroutes: [\n  - id: x\n";
    const PolicyReadResult r = readPolicy(text, QStringLiteral("broken.yaml"));
    ASSERT_EQ(r.diagnostics.size(), 1);
    const Diagnostic &d = r.diagnostics.first();
    EXPECT_EQ(d.severity, Diagnostic::Severity::Error);
    EXPECT_EQ(d.line, 4);
    EXPECT_GT(d.column, 0);
    EXPECT_TRUE(d.toString().startsWith(QStringLiteral("broken.yaml:4:")))
        << d.toString().toStdString();
}

TEST(PolicyReader, NewerFormatIsAClearError)
{
    const PolicyReadResult r
        = readPolicy("quota_studio: 7\nname: future\nroutes: []\n", QStringLiteral("f.yaml"));
    const Diagnostic *d = find(r.diagnostics, QStringLiteral("quota_studio"));
    ASSERT_TRUE(d) << dump(r.diagnostics);
    EXPECT_EQ(d->line, 1);
    EXPECT_EQ(d->column, 15);
    EXPECT_TRUE(d->message.contains(QStringLiteral("upgrade")));
    EXPECT_EQ(r.policy.name, QStringLiteral("future")) << "what can be read is still read";
}

TEST(PolicyReader, MissingFileSaysWhy)
{
    const PolicyReadResult r = readPolicyFile(QStringLiteral("/nonexistent/p.yaml"));
    ASSERT_EQ(r.diagnostics.size(), 1);
    EXPECT_TRUE(r.diagnostics.first().message.startsWith(QStringLiteral("cannot open")));
}

TEST(PolicyReader, EndlessOrHugeInputIsAnErrorNotACrash)
{
    for (const char *device : {"/dev/zero", "/dev/urandom"}) {
        const PolicyReadResult r = readPolicyFile(QString::fromLatin1(device));
        ASSERT_EQ(r.diagnostics.size(), 1) << device;
        EXPECT_TRUE(r.diagnostics[0].message.contains(QStringLiteral("larger than 32 MiB")))
            << dump(r.diagnostics);
    }
    const QByteArray huge(kMaxPolicyBytes + 1, ' ');
    EXPECT_TRUE(readPolicy(huge, QStringLiteral("huge.yaml"))
                    .diagnostics.value(0)
                    .message.contains(QStringLiteral("larger than")));
}

TEST(PolicyReader, MoreRoutesThanTheCapIsOneClearError)
{
    QByteArray text = "quota_studio: 1\nname: many\nroutes: [";
    for (qsizetype i = 0; i <= kMaxRoutes; ++i)
        text += i ? ",x" : "x";
    text += "]\n";
    const PolicyReadResult r = readPolicy(text, QStringLiteral("many.yaml"));
    const Diagnostic *d = find(r.diagnostics, QStringLiteral("routes"));
    ASSERT_NE(d, nullptr) << dump(r.diagnostics.mid(0, 3));
    EXPECT_EQ(d->line, 3);
    EXPECT_TRUE(d->message.startsWith(QStringLiteral("100001 routes: Quota Studio reads at most "
                                                     "100000")))
        << d->message.toStdString();
}

TEST(PolicyReader, SecondDocumentDeepNestingAndHugeNumbersSayWhatAndWhere)
{
    const PolicyReadResult multi = readPolicy(
        "quota_studio: 1\nname: a\nroutes: []\n---\nname: b\n", QStringLiteral("m.yaml"));
    ASSERT_EQ(multi.diagnostics.size(), 1);
    EXPECT_EQ(multi.diagnostics[0].line, 4) << "the `---` line";
    EXPECT_FALSE(hasErrors(
        readPolicy("# c\n---\nquota_studio: 1\nname: a\nroutes: []\n", QStringLiteral("lead.yaml"))
            .diagnostics))
        << "a `---` before the only document is fine";
    EXPECT_TRUE(multi.diagnostics[0].message.contains(QStringLiteral("second YAML document")));

    const PolicyReadResult deep = readPolicy(
        "quota_studio: 1\nroutes: " + QByteArray(2000, '[') + QByteArray(2000, ']') + "\n",
        QStringLiteral("d.yaml"));
    ASSERT_EQ(deep.diagnostics.size(), 1);
    EXPECT_EQ(deep.diagnostics[0].line, 2);
    EXPECT_GT(deep.diagnostics[0].column, 500);
    EXPECT_TRUE(deep.diagnostics[0].message.contains(QStringLiteral("nesting deeper than")))
        << dump(deep.diagnostics);

    const PolicyReadResult big = readPolicy(R"(quota_studio: 1
name: t
routes:
  - id: a
    match: { path: /a }
    limit: { algorithm: fixed_window, limit: 5, window: 99999999999999999999d }
  - id: b
    match: { path: /b }
    limit: { algorithm: gcra, rate: 99999999999999999999/s, burst: 1 }
)",
        QStringLiteral("big.yaml"));
    const Diagnostic *window = find(big.diagnostics, QStringLiteral("routes[0].limit.window"));
    ASSERT_NE(window, nullptr) << dump(big.diagnostics);
    EXPECT_TRUE(window->message.contains(QStringLiteral("longer than a year")));
    const Diagnostic *rate = find(big.diagnostics, QStringLiteral("routes[1].limit.rate"));
    ASSERT_NE(rate, nullptr) << dump(big.diagnostics);
    EXPECT_TRUE(rate->message.contains(QStringLiteral("more requests than")));
}

TEST(PolicyReader, RedisPrefixRefusesAHashTagAndSaysWhy)
{
    const PolicyReadResult r = readPolicy("quota_studio: 1\nname: t\nredis: { prefix: \"{qs}\" }\n"
                                          "routes: []\n",
        QStringLiteral("p.yaml"));
    const Diagnostic *d = find(r.diagnostics, QStringLiteral("redis.prefix"));
    ASSERT_NE(d, nullptr) << dump(r.diagnostics);
    EXPECT_EQ(d->line, 3);
    EXPECT_TRUE(d->message.contains(QStringLiteral("one Redis Cluster slot")));
}

// yaml-cpp's LoadAll looped forever on this input (found by the fuzzer); the reader must answer.
TEST(PolicyReader, InputThatHungTheMultiDocumentCheckIsAnswered)
{
    QFile f(QStringLiteral(QS_FUZZ_CORPUS_DIR "/loadall-loop.yaml"));
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const PolicyReadResult r = readPolicy(f.readAll(), QStringLiteral("loop.yaml"));
    EXPECT_TRUE(hasErrors(r.diagnostics));
}

// libfyaml 0.7.12 loops forever on a directive with a malformed UTF-8 byte (`%\xE6`, found by
// the fuzz pass): the reader refuses text that is not UTF-8 before the parser sees it, and says
// where the byte is, its column counted in characters.
TEST(PolicyReader, TextThatIsNotUtf8IsRefusedWhereItBreaks)
{
    QFile f(QStringLiteral(QS_FUZZ_CORPUS_DIR "/directive-not-utf8.yaml"));
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const PolicyReadResult hung = readPolicy(f.readAll(), QStringLiteral("fuzz.yaml"));
    ASSERT_EQ(hung.diagnostics.size(), 1);
    EXPECT_EQ(hung.diagnostics.first().toString(),
        QStringLiteral("fuzz.yaml:2:21: error: byte 0xE6 here is not UTF-8: a policy is UTF-8 "
                       "text; save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`)"));

    const QByteArray latin1 = "quota_studio: 1\nname: caf\xc3\xa9 \xe9t\xe9\nroutes: []\n";
    const PolicyReadResult r = readPolicy(latin1, QStringLiteral("latin1.yaml"));
    ASSERT_EQ(r.diagnostics.size(), 1);
    EXPECT_TRUE(r.diagnostics.first().toString().startsWith(
        QStringLiteral("latin1.yaml:2:12: error: byte 0xE9 here is not UTF-8")))
        << r.diagnostics.first().toString().toStdString();
}

// A large policy: routes, their order, numbering and findings are those of a small one.
TEST(PolicyReader, ALargePolicyReadsAsOneReaderWouldReadIt)
{
    const int count = 12'000; // above 1 MiB
    const auto route = [](int i) {
        const QByteArray n = QByteArray::number(i);
        // An unknown field (only the reader reports it) in each half; a description long
        // enough to pass 1 MiB.
        const QByteArray extra = i == 7 || i == 11'003 ? "    colour: red\n" : "";
        return "  - id: r" + n + "\n    description: route number " + n
            + " of the large policy test\n" + extra + "    match: { path: /v1/r" + n
            + " }\n    limit: { algorithm: gcra, rate: " + QByteArray::number(i + 1)
            + "/s, burst: 2 }\n";
    };
    QByteArray text = "quota_studio: 1\nname: big\nroutes:\n";
    for (int i = 0; i < count; ++i)
        text += route(i);
    text += "redis: { prefix: 'qs:' }\n";
    ASSERT_GT(text.size(), 1 << 20);

    const PolicyReadResult r = readPolicy(text, QStringLiteral("big.yaml"));
    ASSERT_EQ(r.policy.routes.size(), count);
    for (int i = 0; i < count; ++i) {
        ASSERT_EQ(r.policy.routes[i].id, QStringLiteral("r%1").arg(i));
        ASSERT_TRUE(r.policy.routes[i].limit().rate);
        ASSERT_EQ(r.policy.routes[i].limit().rate->text, QStringLiteral("%1/s").arg(i + 1));
        if (i > 0) {
            ASSERT_GT(r.policy.routes[i].origin.uid, r.policy.routes[i - 1].origin.uid);
        }
    }
    EXPECT_EQ(r.policy.redis.prefix, QStringLiteral("qs:"));
    ASSERT_EQ(r.diagnostics.size(), 2) << dump(r.diagnostics);
    for (const int i : {7, 11'003}) {
        const Diagnostic *d = find(r.diagnostics, QStringLiteral("routes[%1].colour").arg(i));
        ASSERT_NE(d, nullptr) << dump(r.diagnostics);
        EXPECT_EQ(d->line, 3 + 4 * i + (i > 7 ? 1 : 0) + 3); // the route's third line
        EXPECT_EQ(d->column, 5);
        EXPECT_EQ(d->route, i);
    }
}
