#pragma once
// A parsed YAML document as a compact, read-only tree of nodes that know where they stand in the
// text: what the policy reader walks. Built from yaml-cpp's parser events rather than with
// YAML::Load, whose node graph (a shared_ptr per node, a linear key search that allocates per
// lookup) cost the reader as much again as the parse itself on large policies (see "Route
// count" in docs/benchmarks.md). Only the builder knows yaml-cpp: another parser would only
// replace yamldocument.cpp. Internal to model/policy.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qs {

class YamlDocument;
struct YamlCuts;

// Where a node starts; 0-based like yaml-cpp's marks, -1 where there is no node.
struct YamlMark {
    int line = -1;
    int column = -1;
};

// A node of a YamlDocument, or no node (a missing key, an empty document): valid() is false and
// every question answers as for an empty null.
class YamlNode {
public:
    YamlNode() = default;

    bool valid() const { return m_doc != nullptr; }
    bool isNull() const;
    bool isScalar() const;
    bool isSequence() const;
    bool isMap() const;
    YamlMark mark() const;

    const std::string &scalar() const; // empty unless isScalar()
    // Items of a sequence, pairs of a map.
    std::size_t size() const;
    YamlNode operator[](std::size_t index) const; // item of a sequence
    YamlNode key(std::size_t index) const; // key of a map's index-th pair
    YamlNode value(std::size_t index) const; // value of a map's index-th pair
    // The value of the first pair whose key is the scalar `name`; no node if there is none.
    YamlNode find(std::string_view name) const;

private:
    friend class YamlDocument;
    YamlNode(const YamlDocument *doc, std::uint32_t index) : m_doc(doc), m_index(index) { }
    std::uint32_t child(std::size_t i) const;

    const YamlDocument *m_doc = nullptr;
    std::uint32_t m_index = 0;
};

// A syntax error (or nesting too deep) where the parser stopped.
struct YamlSyntaxError {
    YamlMark mark;
    std::string message;
    bool tooDeep = false;
    int depth = 0; // the nesting limit, when tooDeep
};

// How a large text is parsed: in parts, one per thread, each at least minPartBytes long.
struct YamlParseOptions {
    unsigned threads = 0; // 0: one per core
    std::size_t minPartBytes = 1 << 20; // below it a thread costs more than it saves
};

class YamlDocument {
public:
    // Parses the first document of `text`; throws nothing but std::bad_alloc. An empty text is
    // a document with no root (root().valid() is false). A large text is parsed in parts on
    // several threads when it can be cut safely (yamlcuts.h); the tree, marks and errors are
    // those of parsing it whole.
    static YamlDocument parse(const std::string &text, YamlParseOptions options = {});

    // How many parts the text was parsed in: 1 unless it was cut.
    int parts() const { return m_parts; }

    bool ok() const { return m_error.message.empty(); }
    const YamlSyntaxError &error() const { return m_error; }
    YamlNode root() const;

private:
    friend class YamlNode;
    friend class YamlTreeBuilder;
    static YamlDocument parseWhole(const std::string &text);
    // Joins the trees of a text's parts into parts[0]; false when a part failed or lacks the
    // shape the cuts promised.
    static bool join(std::vector<YamlDocument> &parts, const YamlCuts &cuts);
    std::optional<std::pair<std::uint32_t, std::uint32_t>> cutItems(
        const YamlCuts &cuts, std::size_t k, bool last) const;

    enum class Kind : std::uint8_t { Null, Scalar, Sequence, Map };
    struct Entry {
        Kind kind = Kind::Null;
        int line = -1;
        int column = -1;
        std::uint32_t scalar = 0; // index into m_scalars
        std::uint32_t first = 0; // first child in m_children
        std::uint32_t count = 0; // children: items, or keys and values interleaved
    };

    std::vector<Entry> m_entries;
    std::vector<std::uint32_t> m_children;
    std::vector<std::string> m_scalars;
    bool m_hasRoot = false;
    std::uint32_t m_root = 0;
    YamlSyntaxError m_error;
    int m_parts = 1;
};

} // namespace qs
