#include "model/policy/yamldocument.h"

#include "model/base/shares.h"
#include "model/policy/yamlcuts.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <sstream>
#include <unordered_map>

namespace qs {

namespace {

const std::string &emptyString()
{
    static const std::string empty;
    return empty;
}

} // namespace

// Turns parser events into the document's flat arrays. A container's entry is made when it
// starts (so that its index is known to its parent) and its children are copied into one
// contiguous run when it ends; aliases point at the anchored node (the tree is read-only, so
// sharing is safe and an alias bomb costs no memory).
class YamlTreeBuilder final : public YAML::EventHandler {
public:
    explicit YamlTreeBuilder(YamlDocument &doc) : m_doc(doc) { }

    void OnDocumentStart(const YAML::Mark &) override { }
    void OnDocumentEnd() override { }

    void OnNull(const YAML::Mark &mark, YAML::anchor_t anchor) override
    {
        attach(add(YamlDocument::Kind::Null, mark), anchor);
    }
    void OnAlias(const YAML::Mark &mark, YAML::anchor_t anchor) override
    {
        // The parser refuses unknown anchors; a null keeps a map's keys and values paired anyway.
        const auto it = m_anchors.find(anchor);
        attach(it != m_anchors.end() ? it->second : add(YamlDocument::Kind::Null, mark), 0);
    }
    void OnScalar(const YAML::Mark &mark, const std::string &, YAML::anchor_t anchor,
        const std::string &value) override
    {
        const std::uint32_t index = add(YamlDocument::Kind::Scalar, mark);
        m_doc.m_entries[index].scalar = std::uint32_t(m_doc.m_scalars.size());
        m_doc.m_scalars.push_back(value);
        attach(index, anchor);
    }
    void OnSequenceStart(const YAML::Mark &mark, const std::string &, YAML::anchor_t anchor,
        YAML::EmitterStyle::value) override
    {
        open(YamlDocument::Kind::Sequence, mark, anchor);
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(const YAML::Mark &mark, const std::string &, YAML::anchor_t anchor,
        YAML::EmitterStyle::value) override
    {
        open(YamlDocument::Kind::Map, mark, anchor);
    }
    void OnMapEnd() override { close(); }

private:
    std::uint32_t add(YamlDocument::Kind kind, const YAML::Mark &mark)
    {
        YamlDocument::Entry e;
        e.kind = kind;
        e.line = mark.line;
        e.column = mark.column;
        m_doc.m_entries.push_back(e);
        return std::uint32_t(m_doc.m_entries.size() - 1);
    }

    // A finished node goes to the open container, or becomes the root.
    void attach(std::uint32_t index, YAML::anchor_t anchor)
    {
        if (anchor != 0)
            m_anchors[anchor] = index;
        if (m_depth == 0) {
            m_doc.m_root = index;
            m_doc.m_hasRoot = true;
        } else {
            m_open[m_depth - 1].children.push_back(index);
        }
    }

    void open(YamlDocument::Kind kind, const YAML::Mark &mark, YAML::anchor_t anchor)
    {
        const std::uint32_t index = add(kind, mark);
        if (anchor != 0)
            m_anchors[anchor] = index;
        if (m_open.size() == m_depth)
            m_open.emplace_back();
        m_open[m_depth].index = index;
        m_open[m_depth].children.clear(); // keeps its capacity for the next container
        ++m_depth;
    }

    void close()
    {
        Open &o = m_open[--m_depth];
        YamlDocument::Entry &e = m_doc.m_entries[o.index];
        e.first = std::uint32_t(m_doc.m_children.size());
        e.count = std::uint32_t(o.children.size());
        m_doc.m_children.insert(m_doc.m_children.end(), o.children.begin(), o.children.end());
        attach(o.index, 0);
    }

    struct Open {
        std::uint32_t index = 0;
        std::vector<std::uint32_t> children;
    };
    YamlDocument &m_doc;
    std::vector<Open> m_open; // reused level by level
    std::size_t m_depth = 0;
    std::unordered_map<YAML::anchor_t, std::uint32_t> m_anchors;
};

YamlDocument YamlDocument::parseWhole(const std::string &text)
{
    YamlDocument doc;
    doc.m_entries.reserve(text.size() / 8);
    doc.m_scalars.reserve(text.size() / 16);
    std::istringstream in(text);
    try {
        YAML::Parser parser(in);
        YamlTreeBuilder builder(doc);
        parser.HandleNextDocument(builder);
    } catch (const YAML::DeepRecursion &e) {
        doc.m_error = {{e.mark.line, e.mark.column}, e.msg, true, e.depth()};
    } catch (const YAML::Exception &e) { // syntax errors, bad escapes
        doc.m_error = {{e.mark.line, e.mark.column}, e.msg, false, 0};
    }
    if (!doc.ok()) {
        doc.m_hasRoot = false;
        if (doc.m_error.message.empty())
            doc.m_error.message = "bad YAML";
    }
    return doc;
}

namespace {

// Ends every part but the last, as one more item of the cut sequence. yaml-cpp takes the end of
// the text as the end of an open quoted scalar, so a part cut inside a quote would parse: the
// marker then becomes part of that scalar (or, after a double quote, a syntax error) instead of
// being the part's last item, on its own line, with this value.
constexpr std::string_view kPartEnd = "\x01qs part end";

std::string partEndLine(int column)
{
    return std::string(std::size_t(column), ' ') + "- \"\\x01qs part end\"\n";
}

} // namespace

YamlDocument YamlDocument::parse(const std::string &text, YamlParseOptions options)
{
    const std::size_t parts = shareCount(text.size(), options.minPartBytes, options.threads);
    const YamlCuts cuts = findYamlCuts(text, parts);
    if (cuts.cuts.empty())
        return parseWhole(text);

    // Part k runs from cut k - 1 (or the start) to cut k (or the end); all but the first start
    // with the key, all but the last end with the marker.
    std::vector<std::string> texts(cuts.cuts.size() + 1);
    for (std::size_t k = 0; k < texts.size(); ++k) {
        const std::size_t from = k == 0 ? 0 : cuts.cuts[k - 1].offset;
        const std::size_t to = k < cuts.cuts.size() ? cuts.cuts[k].offset : text.size();
        if (k > 0)
            texts[k] = cuts.key + ":\n";
        texts[k].append(text, from, to - from);
        if (k < cuts.cuts.size())
            texts[k] += partEndLine(cuts.itemColumn);
    }
    std::vector<YamlDocument> docs(texts.size());
    runShares(texts.size(), [&](std::size_t k) { docs[k] = parseWhole(texts[k]); });
    // A part that fails says nothing certain about the whole (a cut may have split a flow
    // collection): the whole text, parsed at once, has the exact error.
    if (!join(docs, cuts))
        return parseWhole(text);
    docs.front().m_parts = int(docs.size());
    return std::move(docs.front());
}

// The items of the cut sequence in part k of `cuts` (without the end marker), or nullopt when
// the part failed or has another shape: the key must be the first part's last and every other
// part's first key (and for all but the last part the only one), and the marker must be the
// last item, alone on the line where the next part starts.
std::optional<std::pair<std::uint32_t, std::uint32_t>> YamlDocument::cutItems(
    const YamlCuts &cuts, std::size_t k, bool last) const
{
    if (!ok() || !m_hasRoot)
        return std::nullopt;
    const YamlNode root = this->root();
    if (!root.isMap() || root.size() == 0 || (k > 0 && !last && root.size() != 1))
        return std::nullopt;
    const std::size_t pair = k == 0 ? root.size() - 1 : 0;
    const YamlNode key = root.key(pair), sequence = root.value(pair);
    if (!key.isScalar() || key.scalar() != cuts.key || key.mark().column != 0
        || key.mark().line != (k == 0 ? cuts.keyLine : 0) || !sequence.isSequence()
        || sequence.mark().column != cuts.itemColumn)
        return std::nullopt;
    const Entry &e = m_entries[sequence.m_index];
    if (last)
        return std::pair(e.first, e.count);
    const YamlNode marker = sequence[sequence.size() - 1];
    const int lineShift = k == 0 ? 0 : cuts.cuts[k - 1].line - 1;
    if (sequence.size() < 2 || !marker.isScalar() || marker.scalar() != kPartEnd
        || marker.mark().line + lineShift != cuts.cuts[k].line)
        return std::nullopt;
    return std::pair(e.first, e.count - 1);
}

bool YamlDocument::join(std::vector<YamlDocument> &parts, const YamlCuts &cuts)
{
    YamlDocument &doc = parts.front();
    const auto head = doc.cutItems(cuts, 0, false);
    if (!head)
        return false;
    const std::uint32_t sequence = doc.root().value(doc.root().size() - 1).m_index;
    std::vector<std::uint32_t> items(
        doc.m_children.begin() + head->first, doc.m_children.begin() + head->first + head->second);
    const Entry &rootEntry = doc.m_entries[doc.m_root];
    std::vector<std::uint32_t> pairs(doc.m_children.begin() + rootEntry.first,
        doc.m_children.begin() + rootEntry.first + rootEntry.count);

    for (std::size_t k = 1; k < parts.size(); ++k) {
        YamlDocument &part = parts[k];
        const bool last = k + 1 == parts.size();
        const auto tail = part.cutItems(cuts, k, last);
        if (!tail)
            return false;
        // Appended after the first part's arrays: every index moves by their sizes, every line
        // by where the part starts (its line 0 is the `key:` line added in front).
        const auto entryBase = std::uint32_t(doc.m_entries.size());
        const auto childBase = std::uint32_t(doc.m_children.size());
        const auto scalarBase = std::uint32_t(doc.m_scalars.size());
        const int lineShift = cuts.cuts[k - 1].line - 1;
        for (std::uint32_t c = tail->first; c < tail->first + tail->second; ++c)
            items.push_back(part.m_children[c] + entryBase);
        if (last) {
            const Entry &partRoot = part.m_entries[part.m_root];
            for (std::uint32_t c = partRoot.first + 2; c < partRoot.first + partRoot.count; ++c)
                pairs.push_back(part.m_children[c] + entryBase);
        }
        for (Entry e : part.m_entries) {
            e.line += lineShift;
            e.first += childBase;
            if (e.kind == Kind::Scalar)
                e.scalar += scalarBase;
            doc.m_entries.push_back(e);
        }
        for (const std::uint32_t c : part.m_children)
            doc.m_children.push_back(c + entryBase);
        std::move(part.m_scalars.begin(), part.m_scalars.end(), std::back_inserter(doc.m_scalars));
        part = YamlDocument();
    }
    // The joined sequence and root take new runs of children; their old runs stay unused.
    const auto relink = [&](std::uint32_t index, const std::vector<std::uint32_t> &children) {
        doc.m_entries[index].first = std::uint32_t(doc.m_children.size());
        doc.m_entries[index].count = std::uint32_t(children.size());
        doc.m_children.insert(doc.m_children.end(), children.begin(), children.end());
    };
    relink(sequence, items);
    relink(doc.m_root, pairs);
    return true;
}

YamlNode YamlDocument::root() const
{
    return m_hasRoot ? YamlNode(this, m_root) : YamlNode();
}

bool YamlNode::isNull() const
{
    return !m_doc || m_doc->m_entries[m_index].kind == YamlDocument::Kind::Null;
}

bool YamlNode::isScalar() const
{
    return m_doc && m_doc->m_entries[m_index].kind == YamlDocument::Kind::Scalar;
}

bool YamlNode::isSequence() const
{
    return m_doc && m_doc->m_entries[m_index].kind == YamlDocument::Kind::Sequence;
}

bool YamlNode::isMap() const
{
    return m_doc && m_doc->m_entries[m_index].kind == YamlDocument::Kind::Map;
}

YamlMark YamlNode::mark() const
{
    if (!m_doc)
        return {};
    const YamlDocument::Entry &e = m_doc->m_entries[m_index];
    return {e.line, e.column};
}

const std::string &YamlNode::scalar() const
{
    return isScalar() ? m_doc->m_scalars[m_doc->m_entries[m_index].scalar] : emptyString();
}

std::size_t YamlNode::size() const
{
    if (isSequence())
        return m_doc->m_entries[m_index].count;
    if (isMap())
        return m_doc->m_entries[m_index].count / 2;
    return 0;
}

std::uint32_t YamlNode::child(std::size_t i) const
{
    return m_doc->m_children[m_doc->m_entries[m_index].first + i];
}

YamlNode YamlNode::operator[](std::size_t index) const
{
    return isSequence() && index < size() ? YamlNode(m_doc, child(index)) : YamlNode();
}

YamlNode YamlNode::key(std::size_t index) const
{
    return isMap() && index < size() ? YamlNode(m_doc, child(2 * index)) : YamlNode();
}

YamlNode YamlNode::value(std::size_t index) const
{
    return isMap() && index < size() ? YamlNode(m_doc, child(2 * index + 1)) : YamlNode();
}

YamlNode YamlNode::find(std::string_view name) const
{
    for (std::size_t i = 0; i < size(); ++i)
        if (const YamlNode k = key(i); k.isScalar() && k.scalar() == name)
            return value(i);
    return {};
}

} // namespace qs
