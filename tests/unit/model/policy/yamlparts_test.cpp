// A large text parsed in parts on several threads must give the tree, marks and errors of
// parsing it whole: the cuts (yamlcuts.h) fall only where an item of the longest top-level
// sequence starts, and anything a cut could break sends the parse back to the whole text.
#include "model/policy/yamlcuts.h"
#include "model/policy/yamldocument.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

using namespace qs;

namespace {

// Everything the reader can see of a node: kind, position, content.
std::string dump(const YamlNode &n)
{
    if (!n.valid())
        return "-";
    std::string out = std::to_string(n.mark().line) + ":" + std::to_string(n.mark().column);
    if (n.isScalar())
        return out + "'" + n.scalar() + "'";
    if (n.isNull())
        return out + "~";
    out += n.isMap() ? "{" : "[";
    for (std::size_t i = 0; i < n.size(); ++i)
        out += n.isMap() ? dump(n.key(i)) + "=" + dump(n.value(i)) + "," : dump(n[i]) + ",";
    return out + (n.isMap() ? "}" : "]");
}

std::string dump(const YamlDocument &d)
{
    if (!d.ok())
        return "error at " + std::to_string(d.error().mark.line) + ":"
            + std::to_string(d.error().mark.column) + ": " + d.error().message;
    return dump(d.root());
}

YamlDocument inParts(const std::string &text, unsigned threads)
{
    return YamlDocument::parse(text, YamlParseOptions{threads, 1});
}

std::string routes(int count, const std::string &eol = "\n")
{
    std::string out = "# a policy" + eol + "quota_studio: 1" + eol + "defaults: { key: ip }" + eol
        + "routes:" + eol;
    for (int i = 0; i < count; ++i) {
        const std::string n = std::to_string(i);
        out += "  - id: r" + n + eol + "    match: { path: \"/v1/" + n + "\" }" + eol;
        if (i % 3 == 0)
            out += eol + "    # a comment" + eol;
        if (i % 4 == 1)
            out += "    notes: |" + eol + "      - a line that looks like an item" + eol
                + "      second" + eol;
        out += "    limit: { algorithm: gcra, rate: " + n + "/s, burst: 2 }" + eol;
    }
    return out + "redis:" + eol + "  prefix: qs" + eol;
}

} // namespace

TEST(YamlParts, ALongSequenceParsesInPartsToTheTreeOfTheWhole)
{
    for (const std::string eol : {"\n", "\r\n"}) {
        const std::string text = routes(40, eol);
        const std::string whole = dump(YamlDocument::parse(text, YamlParseOptions{1, 1}));
        ASSERT_EQ(whole.rfind("error", 0), std::string::npos) << whole;
        for (unsigned threads = 2; threads <= 7; ++threads) {
            const YamlDocument doc = inParts(text, threads);
            EXPECT_EQ(doc.parts(), int(threads)) << "was not cut";
            EXPECT_EQ(dump(doc), whole) << threads << " parts";
        }
    }
}

TEST(YamlParts, SmallTextsAndOneThreadParseWhole)
{
    const std::string text = routes(40);
    EXPECT_EQ(YamlDocument::parse(text).parts(), 1); // under the default 1 MiB a part
    EXPECT_EQ(YamlDocument::parse(text, YamlParseOptions{1, 1}).parts(), 1);
    EXPECT_EQ(inParts("a: 1\nb: [x, y]\n", 4).parts(), 1); // no block sequence
}

TEST(YamlParts, CutsFallOnItemLinesOfTheLongestSequence)
{
    const std::string text = "short:\n  - a\n  - b\nlong:\n- x\n- 'y'\n-\n- z\nafter: 1\n";
    const YamlCuts cuts = findYamlCuts(text, 8);
    EXPECT_EQ(cuts.key, "long");
    EXPECT_EQ(cuts.keyLine, 3);
    EXPECT_EQ(cuts.itemColumn, 0);
    ASSERT_EQ(cuts.cuts.size(), 3u); // never before the first item
    EXPECT_EQ(cuts.cuts[0].line, 5);
    EXPECT_EQ(text.substr(cuts.cuts[0].offset, 6), "- 'y'\n");
    EXPECT_EQ(cuts.cuts[2].line, 7);
    EXPECT_TRUE(findYamlCuts("%YAML 1.2\n---\nlist:\n  - a\n  - b\n  - c\n", 4).cuts.empty());
    EXPECT_TRUE(findYamlCuts("list: &x\n  - a\n  - b\n  - c\n", 4).cuts.empty());
    EXPECT_TRUE(findYamlCuts(text, 1).cuts.empty());
}

// Texts where a line at the items' column that starts with "- " is not an item, or where a part
// cannot stand alone: every one must read exactly as the whole text does (its tree or its error).
TEST(YamlParts, WhatACutCouldBreakReadsAsTheWholeText)
{
    const char *const texts[] = {
        // inside a double-quoted, a single-quoted and a flow collection spanning lines
        "routes:\n  - a\n  - \"x\n  - y\"\n  - b\n  - c\n",
        "routes:\n  - a\n  - 'x\n  - y'\n  - b\n  - c\n",
        "routes:\n  - a\n  - [x,\n  - y]\n  - b\n  - c\n",
        "routes:\n  - a\n  - {k: x,\n  - y}\n  - b\n  - c\n",
        // an alias to an anchor in an earlier part
        "routes:\n  - &a {k: 1}\n  - b\n  - c\n  - *a\n  - d\n",
        // the key inside a top-level quoted scalar
        "name: \"n\nroutes:\n  - a\n  - b\n  - c\nz\"\n",
        // a syntax error in a later part, and at its very end
        "routes:\n  - a\n  - b\n  - c: [\n  - d\n",
        "routes:\n  - a\n  - b\n  - c\n  - d\n]\n",
        // a top-level block scalar after the sequence whose lines look like items
        "routes:\n  - a\n  - b\nnotes: |\n  - c\n  - d\n  - e\n",
        // a tab, a document end, a second document
        "routes:\n  - a\n\t- b\n  - c\n  - d\n",
        "routes:\n  - a\n  - b\n...\n  - c\n  - d\n",
        "routes:\n- a\n- b\n---\n- c\n- d\n",
        // duplicate keys, and the sequence repeated under the same key
        "routes:\n  - a\n  - b\nroutes:\n  - c\n  - d\n",
    };
    for (const char *text : texts) {
        const std::string whole = dump(YamlDocument::parse(text, YamlParseOptions{1, 1}));
        for (unsigned threads = 2; threads <= 6; ++threads)
            EXPECT_EQ(dump(inParts(text, threads)), whole) << threads << " parts of:\n" << text;
    }
}

// Random documents built from the pieces above, compared whole against every cut.
TEST(YamlParts, RandomDocumentsReadAsTheWholeText)
{
    static const char *const pieces[] = {
        "  - plain\n",
        "  - {k: v, n: 1}\n",
        "  - k: v\n    n: [1, 2]\n",
        "  - \"quoted\n  - continued\"\n",
        "  - 'single\n  - continued'\n",
        "  - [flow,\n  - continued]\n",
        "  - |\n    - block\n    - scalar\n",
        "  - >-\n     folded\n  - next\n",
        "\n",
        "  # comment\n",
        "# column zero comment\n",
        "  - &anchor x\n",
        "  - *anchor\n",
        "  -\n",
        "  - - nested\n    - seq\n",
        "  -   spaced\n",
        "  - key: |\n      - deep\n",
        "    - deeper dash\n",
        "  - x\r\n",
        "  - \"a\\\n  b\"\n",
    };
    std::mt19937 random(20261205);
    int cut = 0, parses = 0;
    for (int round = 0; round < 400; ++round) {
        std::string text = round % 2 ? "a: 1\nroutes:\n" : "routes:\n";
        const int count = 3 + int(random() % 12);
        for (int i = 0; i < count; ++i)
            text += pieces[random() % std::size(pieces)];
        if (round % 3 == 0)
            text += "tail: [1,\n  2]\n";
        const std::string whole = dump(YamlDocument::parse(text, YamlParseOptions{1, 1}));
        for (unsigned threads = 2; threads <= 5; ++threads) {
            const YamlDocument doc = inParts(text, threads);
            ASSERT_EQ(dump(doc), whole) << threads << " parts of:\n" << text;
            cut += doc.parts() > 1;
            ++parses;
        }
    }
    // Most random texts hold a piece that forbids some cut; enough must still be cut for the
    // comparison to say something about the join.
    EXPECT_GT(cut, parses / 10) << cut << " of " << parses << " parses were cut";
}
