#include "model/policy/yamldocument.h"

#include "model/base/utf8.h"
#include "model/policy/yamlquoted.h"

#include <libfyaml.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <unordered_map>

namespace qs {

namespace {

const std::string &emptyString()
{
    static const std::string empty;
    return empty;
}

std::string_view tokenText(fy_token *token)
{
    size_t length = 0;
    const char *text = token ? fy_token_get_text(token, &length) : nullptr;
    return text ? std::string_view(text, length) : std::string_view();
}

// What YAML's core schema reads as null in a plain, untagged scalar; the reader treats the
// rest of the schema (numbers, booleans) itself, field by field.
bool isPlainNull(fy_token *value, fy_token *tag)
{
    if (tag)
        return false;
    if (!value)
        return true; // `key:` with nothing after it
    if (fy_token_scalar_style(value) != FYSS_PLAIN)
        return false;
    const std::string_view text = tokenText(value);
    return text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL";
}

bool isFlowStart(fy_token *token)
{
    const fy_token_type type = token ? fy_token_get_type(token) : FYTT_NONE;
    return type == FYTT_FLOW_SEQUENCE_START || type == FYTT_FLOW_MAPPING_START;
}

struct ParserDeleter {
    void operator()(fy_parser *parser) const { fy_parser_destroy(parser); }
};

} // namespace

// Turns parser events into the document's flat arrays. A container's entry is made when it
// starts (so that its index is known to its parent) and its children are copied into one
// contiguous run when it ends; aliases point at the anchored node (the tree is read-only, so
// sharing is safe and an alias bomb costs no memory).
class YamlTreeBuilder {
public:
    YamlTreeBuilder(YamlDocument &doc, const std::string &text) : m_doc(doc), m_text(text) { }

    // False once the document is complete or the nesting too deep.
    bool handle(fy_event *event)
    {
        const fy_mark *mark = fy_event_start_mark(event);
        // An empty value has no token: it stands where the token before it ended (after
        // `key:`), as the reader's diagnostics need a place.
        const fy_mark here = mark ? *mark : m_lastEnd;
        if (const fy_mark *end = fy_event_end_mark(event))
            m_lastEnd = *end;
        mark = &here;
        switch (event->type) {
        case FYET_DOCUMENT_START:
            return !m_documentSeen++; // the first document only
        case FYET_DOCUMENT_END:
        case FYET_STREAM_END:
            return false;
        case FYET_SCALAR:
            scalar(event->scalar, mark);
            return true;
        case FYET_ALIAS: {
            // The parser refuses unknown anchors; a null keeps a map's keys and values paired.
            const auto it = m_anchors.find(std::string(tokenText(event->alias.anchor)));
            attach(it != m_anchors.end() ? it->second : add(YamlDocument::Kind::Null, mark));
            return true;
        }
        case FYET_SEQUENCE_START:
            return open(YamlDocument::Kind::Sequence, mark, event->sequence_start.anchor,
                isFlowStart(event->sequence_start.sequence_start));
        case FYET_MAPPING_START:
            return open(YamlDocument::Kind::Map, mark, event->mapping_start.anchor,
                isFlowStart(event->mapping_start.mapping_start));
        case FYET_SEQUENCE_END:
        case FYET_MAPPING_END:
            close();
            return true;
        default:
            return true;
        }
    }

    YamlMark tooDeepAt() const { return m_tooDeepAt; }

private:
    void scalar(const fy_event_scalar_data &data, const fy_mark *mark)
    {
        if (isPlainNull(data.value, data.tag)) {
            anchor(data.anchor, add(YamlDocument::Kind::Null, mark));
            return;
        }
        const std::uint32_t index = add(YamlDocument::Kind::Scalar, mark);
        YamlDocument::Entry &e = m_doc.m_entries[index];
        const fy_scalar_style style = fy_token_scalar_style(data.value);
        // libfyaml marks a quoted scalar's first character inside the quotes; a diagnostic
        // and the text patcher want the quote itself.
        const char quote = style == FYSS_SINGLE_QUOTED ? '\''
            : style == FYSS_DOUBLE_QUOTED              ? '"'
                                                       : 0;
        if (quote && e.offset > 0 && e.column > 0 && m_text[e.offset - 1] == quote) {
            --e.offset;
            --e.column;
        }
        e.blockScalar = style == FYSS_LITERAL || style == FYSS_FOLDED;
        m_doc.m_entries[index].scalar = std::uint32_t(m_doc.m_scalars.size());
        if (style == FYSS_SINGLE_QUOTED)
            m_doc.m_scalars.push_back(singleQuotedValue(between(data.value)));
        else if (style == FYSS_DOUBLE_QUOTED)
            m_doc.m_scalars.push_back(doubleQuotedValue(between(data.value)));
        else
            m_doc.m_scalars.emplace_back(tokenText(data.value));
        anchor(data.anchor, index);
    }

    // The source text of a token: for a quoted scalar, what stands between its quotes.
    std::string_view between(fy_token *token) const
    {
        const fy_mark *start = fy_token_start_mark(token);
        const fy_mark *end = fy_token_end_mark(token);
        if (!start || !end || end->input_pos < start->input_pos || end->input_pos > m_text.size())
            return {};
        return std::string_view(m_text).substr(start->input_pos, end->input_pos - start->input_pos);
    }

    std::uint32_t add(YamlDocument::Kind kind, const fy_mark *mark, bool flow = false)
    {
        YamlDocument::Entry e;
        e.kind = kind;
        e.flow = flow;
        if (mark) {
            e.line = mark->line;
            e.column = mark->column;
            e.offset = std::uint32_t(mark->input_pos);
        }
        m_doc.m_entries.push_back(e);
        return std::uint32_t(m_doc.m_entries.size() - 1);
    }

    void anchor(fy_token *name, std::uint32_t index)
    {
        if (name)
            m_anchors[std::string(tokenText(name))] = index;
        attach(index);
    }

    // A finished node goes to the open container, or becomes the root.
    void attach(std::uint32_t index)
    {
        if (m_depth == 0) {
            m_doc.m_root = index;
            m_doc.m_hasRoot = true;
        } else {
            m_open[m_depth - 1].children.push_back(index);
        }
    }

    bool open(YamlDocument::Kind kind, const fy_mark *mark, fy_token *anchorName, bool flow)
    {
        if (m_depth >= std::size_t(YamlDocument::kMaxDepth)) {
            if (mark)
                m_tooDeepAt = {mark->line, mark->column, (long long)mark->input_pos};
            else
                m_tooDeepAt = {0, 0, 0};
            return false;
        }
        const std::uint32_t index = add(kind, mark, flow);
        if (anchorName)
            m_anchors[std::string(tokenText(anchorName))] = index;
        if (m_open.size() == m_depth)
            m_open.emplace_back();
        m_open[m_depth].index = index;
        m_open[m_depth].children.clear(); // keeps its capacity for the next container
        ++m_depth;
        return true;
    }

    void close()
    {
        if (m_depth == 0)
            return;
        Open &o = m_open[--m_depth];
        YamlDocument::Entry &e = m_doc.m_entries[o.index];
        e.first = std::uint32_t(m_doc.m_children.size());
        e.count = std::uint32_t(o.children.size());
        m_doc.m_children.insert(m_doc.m_children.end(), o.children.begin(), o.children.end());
        attach(o.index);
    }

    struct Open {
        std::uint32_t index = 0;
        std::vector<std::uint32_t> children;
    };
    YamlDocument &m_doc;
    const std::string &m_text;
    fy_mark m_lastEnd{0, 0, 0};
    std::vector<Open> m_open; // reused level by level
    std::size_t m_depth = 0;
    int m_documentSeen = 0;
    std::unordered_map<std::string, std::uint32_t> m_anchors;
    YamlMark m_tooDeepAt;
};

namespace {

// The first error libfyaml collected, where it points (its diagnostics count from 1); its
// messages are lower-case phrases ("did not find expected node content").
YamlSyntaxError firstError(fy_diag *diag)
{
    YamlSyntaxError error;
    void *iterator = nullptr;
    if (const fy_diag_error *e = fy_diag_errors_iterate(diag, &iterator)) {
        error.mark = {std::max(0, e->line - 1), std::max(0, e->column - 1), -1};
        error.message = e->msg && *e->msg ? e->msg : "bad YAML";
    }
    if (error.message.empty())
        error.message = "bad YAML";
    return error;
}

// Where the first malformed byte is, as the parser would have marked it.
std::optional<YamlSyntaxError> malformedUtf8(const std::string &text)
{
    const std::optional<std::size_t> at = firstMalformedUtf8(text);
    if (!at)
        return std::nullopt;
    const std::string_view before(text.data(), *at);
    const std::size_t lastBreak = before.rfind('\n');
    const std::size_t lineStart = lastBreak == std::string_view::npos ? 0 : lastBreak + 1;
    YamlSyntaxError error;
    error.notUtf8 = true;
    error.mark.line = static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    error.mark.column = static_cast<int>(utf8Length(before.substr(lineStart)));
    error.mark.offset = static_cast<long long>(*at);
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[*at]));
    error.message = hex;
    return error;
}

struct DiagDeleter {
    void operator()(fy_diag *diag) const { fy_diag_destroy(diag); }
};

} // namespace

YamlDocument YamlDocument::parse(const std::string &text)
{
    YamlDocument doc;
    if (std::optional<YamlSyntaxError> error = malformedUtf8(text)) {
        doc.m_error = std::move(*error);
        return doc;
    }
    doc.m_entries.reserve(text.size() / 8);
    doc.m_scalars.reserve(text.size() / 16);
    // Quiet and collecting: errors come back to the reader, never to stderr. libfyaml's own
    // depth limit goes by the C stack it assumes; the builder's kMaxDepth is the one that holds.
    fy_diag_cfg diagCfg;
    fy_diag_cfg_default(&diagCfg);
    diagCfg.fp = nullptr;
    const std::unique_ptr<fy_diag, DiagDeleter> diag(fy_diag_create(&diagCfg));
    if (!diag)
        throw std::bad_alloc();
    fy_diag_set_collect_errors(diag.get(), true);
    fy_parse_cfg cfg{};
    cfg.flags = fy_parse_cfg_flags(FYPCF_QUIET | FYPCF_DISABLE_DEPTH_LIMIT);
    cfg.diag = diag.get();
    const std::unique_ptr<fy_parser, ParserDeleter> parser(fy_parser_create(&cfg));
    if (!parser || fy_parser_set_string(parser.get(), text.data(), text.size()) != 0)
        throw std::bad_alloc();
    YamlTreeBuilder builder(doc, text);
    bool more = true;
    while (more) {
        fy_event *event = fy_parser_parse(parser.get());
        if (!event)
            break;
        more = builder.handle(event);
        fy_parser_event_free(parser.get(), event);
    }
    if (builder.tooDeepAt().line >= 0)
        doc.m_error = {builder.tooDeepAt(), "nesting too deep", true, kMaxDepth};
    else if (fy_parser_get_stream_error(parser.get()))
        doc.m_error = firstError(diag.get());
    if (!doc.ok())
        doc.m_hasRoot = false;
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

bool YamlNode::isFlow() const
{
    return m_doc && m_doc->m_entries[m_index].flow;
}

bool YamlNode::isBlockScalar() const
{
    return m_doc && m_doc->m_entries[m_index].blockScalar;
}

YamlMark YamlNode::mark() const
{
    if (!m_doc)
        return {};
    const YamlDocument::Entry &e = m_doc->m_entries[m_index];
    return {e.line, e.column, e.line < 0 ? -1 : (long long)e.offset};
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
