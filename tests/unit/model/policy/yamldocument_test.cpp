// The reader's YAML tree: what the parser saw, where, and the locations walked from it.
#include "model/policy/sourcelocations.h"
#include "model/policy/yamldocument.h"

#include <gtest/gtest.h>

#include <memory>

using namespace qs;

TEST(YamlDocument, KeepsKindsOrderAndPositions)
{
    const YamlDocument doc = YamlDocument::parse("a: 1\n"
                                                 "list:\n"
                                                 "  - x\n"
                                                 "  - { k: v, n: ~ }\n"
                                                 "empty:\n");
    ASSERT_TRUE(doc.ok()) << doc.error().message;
    const YamlNode root = doc.root();
    ASSERT_TRUE(root.isMap());
    ASSERT_EQ(root.size(), 3u);
    EXPECT_EQ(root.key(0).scalar(), "a");
    EXPECT_EQ(root.key(2).scalar(), "empty");
    EXPECT_TRUE(root.find("empty").isNull());
    EXPECT_FALSE(root.find("absent").valid());
    const YamlNode list = root.find("list");
    ASSERT_TRUE(list.isSequence());
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0].scalar(), "x");
    EXPECT_EQ(list[0].mark().line, 2);
    EXPECT_EQ(list[0].mark().column, 4);
    EXPECT_EQ(list[1].find("k").scalar(), "v");
    EXPECT_TRUE(list[1].find("n").isNull());
    EXPECT_FALSE(list[2].valid());
    EXPECT_EQ(list[1].find("k").mark().column, 9);
}

TEST(YamlDocument, AnAliasIsTheAnchoredNode)
{
    const YamlDocument doc = YamlDocument::parse("base: &b { capacity: 10 }\nother: *b\n");
    ASSERT_TRUE(doc.ok());
    EXPECT_EQ(doc.root().find("other").find("capacity").scalar(), "10");
}

TEST(YamlDocument, ReportsWhereTheSyntaxBreaks)
{
    const YamlDocument doc = YamlDocument::parse("a: 1\nb: [1, 2\n");
    ASSERT_FALSE(doc.ok());
    EXPECT_FALSE(doc.root().valid());
    EXPECT_GE(doc.error().mark.line, 1);
    EXPECT_FALSE(doc.error().tooDeep);
    const YamlDocument deep = YamlDocument::parse(std::string(5000, '[') + std::string(5000, ']'));
    ASSERT_FALSE(deep.ok());
    EXPECT_TRUE(deep.error().tooDeep);
}

TEST(YamlDocument, TextThatIsNotUtf8IsAnErrorBeforeTheParserRuns)
{
    // `%\xE6` made libfyaml 0.7.12 loop forever; this test would hang without the check.
    const YamlDocument directive = YamlDocument::parse("%\xe6");
    ASSERT_FALSE(directive.ok());
    EXPECT_TRUE(directive.error().notUtf8);
    EXPECT_EQ(directive.error().message, "0xE6");
    EXPECT_EQ(directive.error().mark.line, 0);
    EXPECT_EQ(directive.error().mark.column, 1);
    EXPECT_EQ(directive.error().mark.offset, 1);

    // The column counts characters: "é" before the bad byte is one column, two bytes.
    const YamlDocument value = YamlDocument::parse("a: 1\nb: \"\xc3\xa9\xff\"\n");
    ASSERT_FALSE(value.ok());
    EXPECT_EQ(value.error().mark.line, 1);
    EXPECT_EQ(value.error().mark.column, 5);
    EXPECT_EQ(value.error().mark.offset, 11);
    EXPECT_FALSE(value.root().valid());
}

TEST(YamlDocument, AnEmptyTextHasNoRoot)
{
    const YamlDocument doc = YamlDocument::parse("");
    EXPECT_TRUE(doc.ok());
    EXPECT_FALSE(doc.root().valid());
    EXPECT_TRUE(doc.root().isNull());
}

TEST(SourceLocations, WalkFieldPathsThroughTheDocument)
{
    const auto doc = std::make_shared<const YamlDocument>(
        YamlDocument::parse("routes:\n"
                            "  - id: a\n"
                            "    limit: { algorithm: gcra, rate: 5/s }\n"
                            "  - id: b\n"));
    const SourceLocations at(doc);
    EXPECT_EQ(at.value(QStringLiteral("routes[0].limit.rate")), (SourceLocation{3, 37}));
    EXPECT_EQ(at.value(QStringLiteral("routes[1].id")), (SourceLocation{4, 9}));
    EXPECT_EQ(at.value(QStringLiteral("routes[1]")), (SourceLocation{4, 5}));
    EXPECT_FALSE(at.find(QStringLiteral("routes[2].id")));
    EXPECT_FALSE(at.find(QStringLiteral("routes[1].limit")));
    EXPECT_FALSE(at.find(QStringLiteral("routes[x]")));
    EXPECT_FALSE(SourceLocations().find(QStringLiteral("routes")));
}
