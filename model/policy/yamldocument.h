#pragma once
// A parsed YAML document as a compact, read-only tree of nodes that know where they stand in the
// text: what the policy reader and the text patcher walk. Built from libfyaml's parser events
// (a YAML 1.2 parser that marks every event with its line, column and byte offset) rather than
// from its document tree, which keeps a heap node per scalar and a hash per mapping: the flat
// arrays here cost a fraction of that. Only yamldocument.cpp knows libfyaml. Internal to
// model/policy.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qs {

class YamlDocument;

// Where a node starts: 0-based line and column (in characters), and the byte offset into the
// text; -1 where there is no node.
struct YamlMark {
    int line = -1;
    int column = -1;
    long long offset = -1;
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
    bool isFlow() const; // a sequence in [ ], a map in { }
    bool isBlockScalar() const; // a scalar written with | or >: its mark is its first line
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

// A syntax error (or nesting too deep, or a byte that is not UTF-8) where the parser stopped.
struct YamlSyntaxError {
    YamlMark mark;
    std::string message;
    bool tooDeep = false;
    int depth = 0; // the nesting limit, when tooDeep
    bool notUtf8 = false; // message names the byte, in hex
};

class YamlDocument {
public:
    // Nesting deeper than this is refused (tooDeep): a policy needs six levels, and a deeper
    // text is a runaway bracket or an attack, whose tree would only cost memory.
    static constexpr int kMaxDepth = 500;

    // Parses the first document of `text`; throws nothing but std::bad_alloc. An empty text is
    // a document with no root (root().valid() is false).
    static YamlDocument parse(const std::string &text);

    bool ok() const { return m_error.message.empty(); }
    const YamlSyntaxError &error() const { return m_error; }
    YamlNode root() const;

private:
    friend class YamlNode;
    friend class YamlTreeBuilder;

    enum class Kind : std::uint8_t { Null, Scalar, Sequence, Map };
    struct Entry {
        Kind kind = Kind::Null;
        bool flow = false;
        bool blockScalar = false;
        int line = -1;
        int column = -1;
        std::uint32_t offset = 0; // a policy is at most 32 MiB
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
};

} // namespace qs
