#include "model/policy/yamldocument.h"
#include "model/policy/yamlquoted.h"

#include <gtest/gtest.h>
#include <libfyaml.h>

#include <optional>
#include <random>
#include <string>

using qs::doubleQuotedValue;
using qs::singleQuotedValue;
using qs::YamlDocument;
using qs::YamlNode;

TEST(YamlSingleQuoted, EscapedQuotesSideBySideAreEachOneQuote)
{
    // libfyaml 0.7.12 reads these as `'`, `'''` and `a'''` (its bug this function exists for).
    EXPECT_EQ(singleQuotedValue("''''"), "''");
    EXPECT_EQ(singleQuotedValue("''''''''''"), "'''''");
    EXPECT_EQ(singleQuotedValue("a''''b"), "a''b");
    EXPECT_EQ(singleQuotedValue("it''s"), "it's");
    EXPECT_EQ(singleQuotedValue(""), "");
}

TEST(YamlSingleQuoted, LineBreaksFoldAsYamlSays)
{
    EXPECT_EQ(singleQuotedValue("  keep  "), "  keep  "); // one line: nothing trimmed
    EXPECT_EQ(singleQuotedValue("one \n  two"), "one two");
    EXPECT_EQ(singleQuotedValue("one\n\n  two"), "one\ntwo");
    EXPECT_EQ(singleQuotedValue("one\n \n\t\n two"), "one\n\ntwo");
    EXPECT_EQ(singleQuotedValue("  lead\n trail  "), "  lead trail  ");
    EXPECT_EQ(singleQuotedValue("one\r\ntwo\rthree"), "one two three");
    EXPECT_EQ(singleQuotedValue("end\n  "), "end ");
    EXPECT_EQ(singleQuotedValue("it''s\n  ''x''"), "it's 'x'");
}

TEST(YamlQuoted, DocumentReadsQuotedScalarsRight)
{
    const YamlDocument doc
        = YamlDocument::parse("a: 'x''''y'\nb: [ '''''''''''' ]\nc: \"\\\\\\\n  x\\u00e9\"\n");
    ASSERT_TRUE(doc.ok());
    EXPECT_EQ(doc.root().find("a").scalar(), "x''y");
    EXPECT_EQ(doc.root().find("c").scalar(), "\\x\u00e9");
    EXPECT_EQ(doc.root().find("b")[0].scalar(), "'''''");
    // The mark still stands on the opening quote.
    EXPECT_EQ(doc.root().find("a").mark().column, 3);
}

TEST(YamlDoubleQuoted, EscapesAreYaml12s)
{
    EXPECT_EQ(doubleQuotedValue(R"(\0\a\b\t\n\v\f\r\e\ \"\/\\)"),
        std::string("\0\a\b\t\n\v\f\r\x1b \"/\\", 13));
    EXPECT_EQ(doubleQuotedValue(R"(\N\_\L\P)"), "\u0085\u00a0\u2028\u2029");
    EXPECT_EQ(doubleQuotedValue(R"(\x41\u00e9\U0001F600)"), "A\u00e9\U0001F600");
    EXPECT_EQ(doubleQuotedValue("tab\\\tescaped"), "tab\tescaped"); // backslash, raw tab
    EXPECT_EQ(doubleQuotedValue(R"(\ud800)"), "\ufffd"); // a lone surrogate is no character
}

// YAML 1.2 examples 7.5 and 7.6, and the cases libfyaml 0.7.12 reads wrong (the expected
// values are PyYAML's, which agreed with this function on 20 000 random quoted scalars).
TEST(YamlDoubleQuoted, LineBreaksFoldAndEscapedBreaksJoin)
{
    EXPECT_EQ(
        doubleQuotedValue("folded \nto a space,\t\n \nto a line feed, or \t\\\n \\ \tnon-content"),
        "folded to a space,\nto a line feed, or \t \tnon-content");
    EXPECT_EQ(doubleQuotedValue(" 1st non-empty\n\n 2nd non-empty \n\t3rd non-empty "),
        " 1st non-empty\n2nd non-empty 3rd non-empty ");
    EXPECT_EQ(doubleQuotedValue("a\\\n\n\nb"), "a\n\nb"); // libfyaml: "a\n\n"
    EXPECT_EQ(doubleQuotedValue("\\\\\\\nx"), "\\x"); // libfyaml: "\\ "
    EXPECT_EQ(doubleQuotedValue("a\\\n   b"), "ab");
    EXPECT_EQ(doubleQuotedValue("a\\ \nb"), "a  b"); // an escaped space survives the fold
    EXPECT_EQ(doubleQuotedValue("a\r\nb"), "a b");
}

// libfyaml's own value of a scalar in `text`, with the `''` escapes spelled `Q` so that its bug
// cannot show (the pieces below hold no other Q), then turned back into quotes; or nothing
// when libfyaml refuses the text.
std::optional<std::string> libfyamlValue(const std::string &text, std::size_t quoteAt)
{
    std::string spelled = text.substr(0, quoteAt + 1);
    for (std::size_t i = quoteAt + 1; i < text.size(); ++i) {
        const bool escape = text[i] == '\'' && i + 1 < text.size() && text[i + 1] == '\'';
        spelled += escape ? 'Q' : text[i];
        i += escape;
    }
    fy_parse_cfg cfg{};
    cfg.flags = FYPCF_QUIET;
    fy_parser *parser = fy_parser_create(&cfg);
    fy_parser_set_string(parser, spelled.data(), spelled.size());
    std::string value;
    int scalars = 0;
    while (fy_event *event = fy_parser_parse(parser)) {
        if (event->type == FYET_SCALAR && ++scalars == 2) {
            std::size_t length = 0;
            const char *t = fy_token_get_text(event->scalar.value, &length);
            value.assign(t, length);
        }
        fy_parser_event_free(parser, event);
    }
    const bool ok = !fy_parser_get_stream_error(parser);
    fy_parser_destroy(parser);
    if (!ok)
        return std::nullopt;
    for (char &c : value)
        c = c == 'Q' ? '\'' : c;
    return value;
}

// On random single-quoted scalars in block and flow context, the document's value is the one
// libfyaml folds (correct but for side-by-side escapes, which the oracle spells otherwise).
TEST(YamlSingleQuoted, AgreesWithLibfyamlFoldingOnRandomScalars)
{
    const char *pieces[]
        = {"a", "b", " ", "\t", "''", "''''", "\n", "\n  ", " \n\n ", "é", "#", ":"};
    std::mt19937 random(20261207);
    std::uniform_int_distribution<int> piece(0, int(std::size(pieces)) - 1);
    std::uniform_int_distribution<int> length(0, 12);
    int compared = 0;
    for (int round = 0; round < 3000; ++round) {
        std::string inner;
        for (int n = length(random); n > 0; --n)
            inner += pieces[piece(random)];
        const bool flow = round % 2 == 1;
        const std::string head = flow ? "k: [ '" : "k: '";
        const std::string text = head + inner + (flow ? "' ]\n" : "'\n");
        const YamlDocument ours = YamlDocument::parse(text);
        const std::optional<std::string> expected = libfyamlValue(text, head.size() - 1);
        // A continuation line at column 0, say, is refused by both.
        ASSERT_EQ(ours.ok(), expected.has_value()) << text;
        if (!expected)
            continue;
        const YamlNode k = ours.root().find("k");
        ASSERT_EQ(flow ? k[0].scalar() : k.scalar(), *expected) << "text: " << text;
        ++compared;
    }
    EXPECT_GT(compared, 2000);
}
