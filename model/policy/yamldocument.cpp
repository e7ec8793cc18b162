#include "model/policy/yamldocument.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

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

YamlDocument YamlDocument::parse(const std::string &text)
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
