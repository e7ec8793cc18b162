// The exporters' YAML emitter: the layout the golden files hold, and strings that read back as
// exactly what was written, whatever they contain and wherever they stand.
#include "model/base/yamlemitter.h"

#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

#include <random>

using namespace qs;

TEST(YamlEmitter, WritesBlockAndFlowCollectionsIndentedByTwo)
{
    yaml::Emitter out;
    out << yaml::Comment("made by a test");
    out << yaml::BeginMap << yaml::Key << "top" << yaml::Value << yaml::BeginMap;
    out << yaml::Key << "list" << yaml::Value << yaml::BeginSeq;
    out << yaml::BeginMap << yaml::Key << "name" << yaml::Value << "a" << yaml::Key << "count"
        << yaml::Value << 3 << yaml::EndMap;
    out << "plain" << yaml::Flow << yaml::BeginMap << yaml::Key << "x" << yaml::Value << true
        << yaml::EndMap;
    out << yaml::EndSeq;
    out << yaml::Key << "empty" << yaml::Value << yaml::BeginMap << yaml::EndMap;
    out << yaml::Key << "none" << yaml::Value << yaml::BeginSeq << yaml::EndSeq;
    out << yaml::Key << "flow" << yaml::Value << yaml::Flow << yaml::BeginSeq << "*"
        << "b" << yaml::EndSeq;
    out << yaml::Key << "quoted" << yaml::Value << yaml::DoubleQuoted << "abc";
    out << yaml::EndMap << yaml::EndMap;
    EXPECT_EQ(out.str(),
        "# made by a test\n"
        "top:\n"
        "  list:\n"
        "    - name: a\n"
        "      count: 3\n"
        "    - plain\n"
        "    - {x: true}\n"
        "  empty: {}\n"
        "  none: []\n"
        "  flow: [\"*\", b]\n"
        "  quoted: \"abc\"");
}

TEST(YamlEmitter, QuotesWhatAYaml11ReaderWouldTakeForSomethingElse)
{
    for (const char *word :
        {"", "~", "null", "yes", "No", "on", "OFF", "y", "true", "False", "12", "-3", "1e3", "0x1F",
            "0o17", "1_000", "1:30", "2026-12-04", ".inf", "-.Inf", ".NaN", "1.5", ".5"})
        EXPECT_FALSE(yaml::isSafePlainScalar(word, false)) << word;
    for (const char *word : {"1d", "0.06s", "10s", "qs_route", "header:X-Api-Key", "a b", "x-1",
             "type.googleapis.com/envoy.x", "/v1/items", "HUNDRED", "é"})
        EXPECT_TRUE(yaml::isSafePlainScalar(word, false)) << word;
    EXPECT_FALSE(yaml::isSafePlainScalar("a,b", true));
    EXPECT_TRUE(yaml::isSafePlainScalar("a,b", false));
}

TEST(YamlEmitter, EscapesControlsQuotesAndLineSeparators)
{
    EXPECT_EQ(yaml::doubleQuoted("a\"b\\c\n\t\x01\x7f"), "\"a\\\"b\\\\c\\n\\t\\x01\\x7f\"");
    EXPECT_EQ(yaml::doubleQuoted("\xe2\x80\xa8"), "\"\\u2028\"");
    EXPECT_EQ(yaml::doubleQuoted("\xef\xbb\xbfx"), "\"\\ufeffx\"");
    EXPECT_EQ(yaml::doubleQuoted("\xff"), "\"\xef\xbf\xbd\""); // malformed UTF-8: U+FFFD
}

namespace {

// `text` written as a block value, a block key, a block item, a flow item and a flow value, and
// what a YAML parser reads back from each.
std::vector<std::string> roundTrips(const std::string &text)
{
    yaml::Emitter out;
    out << yaml::BeginMap;
    out << yaml::Key << "value" << yaml::Value << text;
    out << yaml::Key << text << yaml::Value << "key";
    out << yaml::Key << "items" << yaml::Value << yaml::BeginSeq << text << yaml::EndSeq;
    out << yaml::Key << "flow" << yaml::Value << yaml::Flow << yaml::BeginSeq << text << text
        << yaml::EndSeq;
    out << yaml::Key << "map" << yaml::Value << yaml::Flow << yaml::BeginMap << yaml::Key << "k"
        << yaml::Value << text << yaml::EndMap;
    out << yaml::EndMap;
    YAML::Node doc;
    try {
        doc = YAML::Load(out.str());
    } catch (const YAML::Exception &e) {
        ADD_FAILURE() << e.what() << " in:\n" << out.str();
        return {};
    }
    std::string key;
    for (const auto &kv : doc)
        if (kv.second.IsScalar() && kv.second.Scalar() == "key" && kv.first.Scalar() != "value")
            key = kv.first.Scalar();
    return {doc["value"].Scalar(), key, doc["items"][0].Scalar(), doc["flow"][1].Scalar(),
        doc["map"]["k"].Scalar()};
}

} // namespace

TEST(YamlEmitter, EveryStringReadsBackAsWritten)
{
    const std::vector<std::string> hostile = {"a: b", "a #b", "#x", "- x", "-", "?", ":",
        "a:", "[x]", "{x}", "x, y", "'q'", "\"q\"", "&a", "*a", "!tag", "|", ">", "%x", "@x", "`x`",
        " lead", "trail ", "tab\there", "two\nlines", "cr\rlf", "nul\x01", "---", "...", "a\\b",
        "\xc2\x85", "\xc2\xa0nbsp", "日本"};
    for (const std::string &s : hostile)
        for (const std::string &back : roundTrips(s))
            EXPECT_EQ(back, s);
    // Random strings over every character YAML gives a meaning to.
    const std::string alphabet = "ab1 :#-?,[]{}&*!|>'\"%@`\\\t\n.~/";
    std::mt19937 rng(42);
    for (int n = 0; n < 2000; ++n) {
        std::string s;
        const int length = 1 + int(rng() % 8);
        for (int i = 0; i < length; ++i)
            s += alphabet[rng() % alphabet.size()];
        for (const std::string &back : roundTrips(s))
            ASSERT_EQ(back, s) << "written: [" << s << "]";
    }
}

namespace {

using namespace qs::yaml;

// Not numbered("r", i): GCC 12 warns about that (-Wrestrict, a false positive).
std::string numbered(const char *prefix, std::size_t i)
{
    std::string s = prefix;
    s += std::to_string(i);
    return s;
}

// One item of each shape a writer puts in a long collection: a map with nested block and
// flow collections, an empty one, quoted and plain scalars.
void writeItem(Emitter &out, std::size_t i)
{
    out << BeginMap << Key << "name" << Value << numbered("r", i);
    out << Key << "match" << Value << Flow << BeginMap << Key << "path" << Value
        << numbered("/v1/", i) << EndMap;
    out << Key << "actions" << Value << BeginSeq;
    for (std::size_t k = 0; k < i % 3; ++k)
        out << BeginMap << Key << "k" << Value << DoubleQuoted << "v" << EndMap;
    out << EndSeq << Key << "empty" << Value << BeginMap << EndMap << EndMap;
}

// A document whose four long collections (items of a block sequence, of a sequence inside a
// sequence, pairs of a map, values of a flow sequence) are written by `items`.
std::string document(std::size_t count, unsigned threads)
{
    Emitter out;
    out << Comment("head") << BeginMap << Key << "routes" << Value << BeginSeq;
    emitItemsInParallel(out, count, writeItem, 1, threads);
    out << EndSeq << Key << "nested" << Value << BeginSeq << BeginSeq;
    emitItemsInParallel(
        out, count, [](Emitter &e, std::size_t i) { e << std::to_string(i); }, 1, threads);
    out << EndSeq << EndSeq << Key << "pairs" << Value << BeginMap;
    emitItemsInParallel(
        out, count, [](Emitter &e, std::size_t i) { e << Key << numbered("k", i) << Value << i; },
        1, threads);
    out << EndMap << Key << "flow" << Value << Flow << BeginSeq;
    emitItemsInParallel(
        out, count, [](Emitter &e, std::size_t i) { e << i; }, 1, threads);
    out << EndSeq << Key << "after" << Value << 1 << EndMap;
    return out.str();
}

} // namespace

TEST(YamlEmitter, ItemsWrittenOnSeveralThreadsAreTheItemsWrittenInOrder)
{
    for (const std::size_t count : {0, 1, 2, 7, 50}) {
        const std::string sequential = document(count, 1);
        for (const unsigned threads : {2u, 3u, 5u})
            EXPECT_EQ(document(count, threads), sequential)
                << count << " items, " << threads << " threads";
    }
    // And what they write is the YAML it means.
    const YAML::Node doc = YAML::Load(document(7, 3));
    ASSERT_EQ(doc["routes"].size(), 7u);
    EXPECT_EQ(doc["routes"][6]["match"]["path"].as<std::string>(), "/v1/6");
    EXPECT_EQ(doc["nested"][0][4].as<std::string>(), "4");
    EXPECT_EQ(doc["pairs"]["k5"].as<int>(), 5);
    EXPECT_EQ(doc["flow"].size(), 7u);
    EXPECT_EQ(doc["after"].as<int>(), 1);
}
