#include "model/policy/policytextpatch.h"

#include <functional>

#include "model/base/yamlemitter.h"
#include "model/policy/policyreader.h"
#include "model/policy/policytree.h"

#include "model/policy/yamldocument.h"

#include <QHash>

#include <algorithm>
#include <cstring>
#include <vector>

namespace qs {

namespace {

// A construct the patcher does not edit; the caller rewrites the file instead.
struct Unsupported {
    QString why;
};

struct Span {
    qsizetype begin = 0, end = 0;
};

struct Edit {
    qsizetype begin = 0, end = 0;
    QByteArray text;
};

struct Entry {
    QString key;
    YamlNode keyNode, value;
};

bool isFlow(const YamlNode &node)
{
    return (node.isMap() || node.isSequence()) && node.isFlow();
}

std::vector<Entry> entriesOf(const YamlNode &map)
{
    std::vector<Entry> out;
    for (std::size_t i = 0; i < map.size(); ++i)
        out.push_back({QString::fromStdString(map.key(i).scalar()), map.key(i), map.value(i)});
    return out;
}

qsizetype offsetOf(const YamlNode &node)
{
    return qsizetype(node.mark().offset);
}

const Entry *findEntry(const std::vector<Entry> &entries, const QString &key)
{
    for (const Entry &e : entries)
        if (e.key == key)
            return &e;
    return nullptr;
}

const Tree *findField(const Tree &map, const QString &key)
{
    for (const auto &[k, v] : map.fields)
        if (k == key)
            return &v;
    return nullptr;
}

// Flow style, with spaces inside braces as people write it (`{ path: /a }`) or without
// (`{path: /a}`), as the text being replaced had it.
QByteArray flowYaml(const Tree &t, bool spaced = true);

QByteArray yamlScalar(const QString &text, bool inFlow)
{
    const std::string utf8 = text.toStdString();
    return QByteArray::fromStdString(
        yaml::isSafePlainScalar(utf8, inFlow) ? utf8 : yaml::doubleQuoted(utf8));
}

// A scalar of the tree: numbers and booleans as they are, text plain or quoted as it needs.
QByteArray scalarYaml(const Tree &t, bool inFlow)
{
    return t.kind == Tree::Kind::Text ? yamlScalar(t.scalar, inFlow) : t.scalar.toUtf8();
}

QByteArray flowYaml(const Tree &t, bool spaced)
{
    switch (t.kind) {
    case Tree::Kind::Map: {
        if (t.fields.isEmpty())
            return "{}";
        QByteArrayList parts;
        for (const auto &[k, v] : t.fields)
            parts << yamlScalar(k, true) + ": " + flowYaml(v, spaced);
        return spaced ? "{ " + parts.join(", ") + " }" : "{" + parts.join(", ") + "}";
    }
    case Tree::Kind::Seq: {
        QByteArrayList parts;
        for (const Tree &item : t.items)
            parts << flowYaml(item, spaced);
        return "[" + parts.join(", ") + "]";
    }
    case Tree::Kind::Text:
        return yamlScalar(t.scalar, true);
    case Tree::Kind::Number:
    case Tree::Kind::Bool:
    case Tree::Kind::Null:
        return t.scalar.toUtf8();
    }
    return {};
}

// Later edits first, so that earlier offsets stay valid; at one offset, the replacement of a
// range before an insertion there (the insertion then lands in front of what follows).
void sortForApplying(std::vector<Edit> &edits)
{
    std::stable_sort(edits.begin(), edits.end(), [](const Edit &a, const Edit &b) {
        return a.begin != b.begin ? a.begin > b.begin : a.end > b.end;
    });
}

QByteArray jsonText(const Tree &t, int indent)
{
    QString out;
    emitTreeJson(out, t, indent);
    return out.toUtf8();
}

// Block YAML of a collection, every line after the first indented by `indent` columns.
QByteArray blockYaml(const Tree &t, int indent)
{
    yaml::Emitter e;
    emitTreeYaml(e, t);
    QByteArrayList lines = e.bytes().split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i)
        if (!lines[i].isEmpty())
            lines[i].prepend(QByteArray(indent, ' '));
    return lines.join('\n');
}

class Patcher {
public:
    Patcher(const QByteArray &text, PolicyFormat format) : m_text(text), m_format(format) { }

    // Edits that turn the text of `root` (read as `before`) into `after`.
    std::vector<Edit> run(const YamlNode &root, const Policy &before, const Policy &after)
    {
        if (!root.isMap())
            throw Unsupported{QStringLiteral("the file is not a map of fields")};
        m_before = &before;
        m_after = &after;
        std::vector<Edit> edits;
        diffMap(root, false, policyDocumentTree(before), policyDocumentTree(after), edits, true);
        return edits;
    }

private:
    bool json() const { return m_format == PolicyFormat::Json; }
    // Outside the text reads as a line break: the start and the end of a line.
    char at(qsizetype i) const { return i >= 0 && i < m_text.size() ? m_text[i] : '\n'; }

    qsizetype lineStart(qsizetype pos) const
    {
        while (pos > 0 && m_text[pos - 1] != '\n')
            --pos;
        return pos;
    }
    qsizetype lineEnd(qsizetype pos) const // just past the '\n', or the end of the text
    {
        const qsizetype nl = m_text.indexOf('\n', pos);
        return nl < 0 ? m_text.size() : nl + 1;
    }
    int column(qsizetype pos) const { return int(pos - lineStart(pos)); }
    int lineIndent(qsizetype pos) const
    {
        qsizetype i = lineStart(pos);
        while (i < m_text.size() && m_text[i] == ' ')
            ++i;
        return int(i - lineStart(pos));
    }
    bool spacedFlow(qsizetype begin) const { return at(begin + 1) == ' ' || at(begin + 1) == '\n'; }
    bool onlySpacesBefore(qsizetype pos) const
    {
        for (qsizetype i = lineStart(pos); i < pos; ++i)
            if (m_text[i] != ' ' && m_text[i] != '\t')
                return false;
        return true;
    }

    qsizetype quotedEnd(qsizetype i) const
    {
        const char quote = m_text[i];
        for (++i; i < m_text.size(); ++i) {
            if (quote == '"' && m_text[i] == '\\')
                ++i;
            else if (m_text[i] == quote) {
                if (quote == '\'' && at(i + 1) == '\'')
                    ++i;
                else
                    return i + 1;
            }
        }
        throw Unsupported{QStringLiteral("an unterminated quoted string")};
    }

    qsizetype flowEnd(qsizetype i) const
    {
        int depth = 0;
        while (i < m_text.size()) {
            const char c = m_text[i];
            if (c == '"' || c == '\'') {
                i = quotedEnd(i);
                continue;
            }
            if (c == '[' || c == '{')
                ++depth;
            else if ((c == ']' || c == '}') && --depth == 0)
                return i + 1;
            ++i;
        }
        throw Unsupported{QStringLiteral("an unclosed bracket")};
    }

    Span span(const YamlNode &node, bool inFlow) const
    {
        const qsizetype begin = offsetOf(node);
        if (begin < 0 || begin > m_text.size())
            throw Unsupported{QStringLiteral("a value without a position")};
        if (node.isMap() || node.isSequence()) {
            if (isFlow(node)) {
                if (at(begin) != '{' && at(begin) != '[')
                    throw Unsupported{QStringLiteral("a flow collection not where expected")};
                return {begin, flowEnd(begin)};
            }
            if (node.size() == 0)
                throw Unsupported{QStringLiteral("an empty block collection")};
            const YamlNode last
                = node.isMap() ? node.value(node.size() - 1) : node[node.size() - 1];
            return {begin, std::max(begin, span(last, false).end)};
        }
        const char c = at(begin);
        if (c == '"' || c == '\'')
            return {begin, quotedEnd(begin)};
        if (node.isBlockScalar() || ((c == '|' || c == '>') && !inFlow))
            throw Unsupported{QStringLiteral("a block scalar (| or >)")};
        if (c == '&' || c == '*' || c == '!')
            throw Unsupported{QStringLiteral("an anchor, alias or tag")};
        qsizetype i = begin;
        for (; i < m_text.size(); ++i) {
            const char ch = m_text[i];
            if (ch == '\n' || ch == '\r')
                break;
            if (ch == '#' && i > begin && (m_text[i - 1] == ' ' || m_text[i - 1] == '\t'))
                break;
            if (inFlow && (ch == ',' || ch == ']' || ch == '}'))
                break;
        }
        while (i > begin && (m_text[i - 1] == ' ' || m_text[i - 1] == '\t'))
            --i;
        return {begin, i};
    }

    // The replacement for a value, in the style of the text it replaces.
    QByteArray render(const Tree &value, const YamlNode &old, bool inFlow, int indent) const
    {
        const qsizetype begin = offsetOf(old);
        if (json())
            return jsonText(value, lineIndent(begin) / 2);
        switch (value.kind) {
        case Tree::Kind::Text:
            if (at(begin) == '"')
                return jsonQuoted(value.scalar).toUtf8();
            if (at(begin) == '\'')
                return "'" + value.scalar.toUtf8().replace("'", "''") + "'";
            return yamlScalar(value.scalar, inFlow);
        case Tree::Kind::Number:
        case Tree::Kind::Bool:
        case Tree::Kind::Null:
            return value.scalar.toUtf8();
        case Tree::Kind::Map:
        case Tree::Kind::Seq:
            if (inFlow || isFlow(old) || (!old.isMap() && !old.isSequence() && value.flow))
                return flowYaml(value, !isFlow(old) || spacedFlow(begin));
            if (!old.isMap() && !old.isSequence())
                throw Unsupported{QStringLiteral("a value that turns into a block collection")};
            return blockYaml(value, indent);
        }
        return {};
    }

    // A new `key: value` for a map whose keys look like `sample` (quoted in JSON).
    QByteArray newEntry(const QString &key, const Tree &value, const YamlNode &sampleKey,
        bool flowMap, int indent) const
    {
        const QByteArray k = json() || at(offsetOf(sampleKey)) == '"' ? jsonQuoted(key).toUtf8()
                                                                      : yamlScalar(key, flowMap);
        if (json())
            return k + ": " + jsonText(value, indent / 2);
        const bool collection = value.kind == Tree::Kind::Map || value.kind == Tree::Kind::Seq;
        if (flowMap || !collection || value.flow)
            return k + ": " + (collection ? flowYaml(value) : scalarYaml(value, flowMap));
        return k + ":\n" + QByteArray(indent + 2, ' ') + blockYaml(value, indent + 2);
    }

    void diffValue(const YamlNode &node, bool inFlow, const Tree &before, const Tree &after,
        std::vector<Edit> &edits)
    {
        if (before == after)
            return;
        if (before.kind == Tree::Kind::Map && after.kind == Tree::Kind::Map && node.isMap()) {
            diffMap(node, inFlow, before, after, edits, false);
            return;
        }
        if (before.kind == Tree::Kind::Seq && after.kind == Tree::Kind::Seq && node.isSequence()
            && std::size_t(before.items.size()) == node.size() && node.size() > 0
            && !after.items.isEmpty() && isNamedList(before) && isNamedList(after)) {
            const NewItem newItem = [this](const YamlNode &sample, const Tree &item, int dash) {
                return newListItem(sample, item, dash);
            };
            diffItems(node, inFlow, matchByName(before, after), before, after, newItem, edits);
            return;
        }
        const Span s = span(node, inFlow);
        edits.push_back({s.begin, s.end, render(after, node, inFlow, column(s.begin))});
    }

    void diffMap(const YamlNode &node, bool inFlow, const Tree &before, const Tree &after,
        std::vector<Edit> &edits, bool root)
    {
        const bool flow = inFlow || isFlow(node);
        const std::vector<Entry> entries = entriesOf(node);
        if (entries.empty())
            throw Unsupported{QStringLiteral("an empty map")};
        // A flow map that gains or loses a field is one line (or, in JSON, one object): write
        // it again whole rather than splice commas.
        const auto sameKeys = [&] {
            for (const auto &[key, value] : after.fields)
                if (!findEntry(entries, key)
                    && !(findField(before, key) && *findField(before, key) == value))
                    return false;
            for (const auto &[key, value] : before.fields)
                if (!findField(after, key) && findEntry(entries, key))
                    return false;
            return true;
        };
        if (flow && !root && !sameKeys()) {
            const Span s = span(node, inFlow);
            edits.push_back({s.begin, s.end, render(after, node, inFlow, column(s.begin))});
            return;
        }
        const Entry *previous = nullptr;
        std::vector<Edit> inserted;
        const Entry *renamed = nullptr; // `limit:` that became `limits:` or back
        for (const auto &[key, value] : after.fields) {
            const Entry *entry = findEntry(entries, key);
            const Tree *old = findField(before, key);
            if (!entry && !old && !flow && !json()) {
                if (const Entry *was = findEntry(entries, limitFormSwap(key));
                    was && findField(before, was->key) && !findField(after, was->key)) {
                    edits.push_back(limitFormEdit(*was, key, value));
                    renamed = was;
                    previous = was;
                    continue;
                }
            }
            if (entry) {
                if (root && key == QLatin1String("routes") && old)
                    diffRoutes(*entry, flow, *old, value, edits);
                else if (old)
                    diffValue(entry->value, flow, *old, value, edits);
                else { // in the text but unread (it held an error): now a value of its own
                    const Span s = span(entry->value, flow);
                    edits.push_back(
                        {s.begin, s.end, render(value, entry->value, flow, column(s.begin))});
                }
                previous = entry;
                continue;
            }
            if (old && *old == value)
                continue; // implicit in the text (the writer's default): leave it so
            Edit e = insertion(flow, entries, previous, key, value);
            // Several new fields after one old one: one insertion, in order.
            if (!inserted.empty() && inserted.back().begin == e.begin)
                inserted.back().text += e.text;
            else
                inserted.push_back(e);
        }
        edits.insert(edits.end(), inserted.begin(), inserted.end());
        for (const auto &[key, value] : before.fields)
            if (!findField(after, key))
                if (const Entry *entry = findEntry(entries, key); entry && entry != renamed)
                    edits.push_back(removal(*entry));
    }

    static QString limitFormSwap(const QString &key)
    {
        if (key == QLatin1String("limits"))
            return QStringLiteral("limit");
        if (key == QLatin1String("limit"))
            return QStringLiteral("limits");
        return {};
    }

    // A route's `limit:` written again as `limits:` (a second limit came) or back, where it
    // was, its flow maps spaced as the old value's.
    Edit limitFormEdit(const Entry &was, const QString &key, const Tree &value) const
    {
        const qsizetype begin = offsetOf(was.keyNode);
        const Span old = span(was.value, false);
        const YamlNode sample
            = was.value.isSequence() && was.value.size() > 0 ? was.value[0] : was.value;
        const bool spaced = !isFlow(sample) || spacedFlow(offsetOf(sample));
        const int keyColumn = column(begin);
        QByteArray text = yamlScalar(key, false) + ":";
        if (value.kind == Tree::Kind::Seq) {
            for (const Tree &item : value.items)
                text += "\n" + QByteArray(keyColumn + 2, ' ') + "- " + flowYaml(item, spaced);
        } else {
            text += " " + flowYaml(value, spaced);
        }
        return {begin, old.end, text};
    }

    Edit insertion(bool flow, const std::vector<Entry> &entries, const Entry *previous,
        const QString &key, const Tree &value) const
    {
        const Entry &first = entries.front();
        const qsizetype firstKey = offsetOf(first.keyNode);
        const int indent = column(firstKey);
        const QByteArray entry = newEntry(key, value, first.keyNode, flow, indent);
        if (flow) {
            if (previous) {
                // The separator the map already uses between entries (", " or ",\n    ").
                QByteArray separator = ", ";
                if (entries.size() > 1) {
                    const qsizetype a = span(entries[0].value, true).end;
                    separator = m_text.mid(a, offsetOf(entries[1].keyNode) - a);
                }
                const qsizetype at = span(previous->value, true).end;
                return {at, at, separator + entry};
            }
            return {firstKey, firstKey, entry + ", "};
        }
        if (previous) {
            const qsizetype at = lineEnd(span(previous->value, false).end);
            const QByteArray newline = at > 0 && m_text[at - 1] != '\n' ? "\n" : "";
            return {at, at, newline + QByteArray(indent, ' ') + entry + "\n"};
        }
        if (!onlySpacesBefore(firstKey))
            throw Unsupported{QStringLiteral("a new first field in a list item")};
        const qsizetype at = lineStart(firstKey);
        return {at, at, QByteArray(indent, ' ') + entry + "\n"};
    }

    // A field of a block map goes with its lines; of a flow map only at the root (JSON),
    // with the comma before it.
    Edit removal(const Entry &entry) const
    {
        const qsizetype key = offsetOf(entry.keyNode);
        if (json() || at(key - 1) == '{' || at(key - 1) == ',') {
            const qsizetype end = span(entry.value, true).end;
            qsizetype from = key;
            while (from > 0 && m_text[from - 1] != ',' && m_text[from - 1] != '{')
                --from;
            if (from > 0 && m_text[from - 1] == ',')
                --from;
            return {from, end, {}};
        }
        const qsizetype end = span(entry.value, false).end;
        if (!onlySpacesBefore(key))
            throw Unsupported{QStringLiteral("removing the first field of a list item")};
        return {lineStart(key), lineEnd(end), {}};
    }

    // Routes move as whole blocks of text, with the comments and blank lines above them; kept
    // routes are edited inside their block; new ones are written in the file's style.
    void diffRoutes(const Entry &routes, bool inFlow, const Tree &beforeTree, const Tree &afterTree,
        std::vector<Edit> &edits)
    {
        const YamlNode &seq = routes.value;
        if (!seq.isSequence() || std::size_t(m_before->routes.size()) != seq.size())
            throw Unsupported{QStringLiteral("routes that could not all be read")};
        if (beforeTree == afterTree)
            return;
        const bool block = !json() && !inFlow && !isFlow(seq);
        const int keyColumn = column(offsetOf(routes.keyNode));
        if (!json() && !inFlow && isFlow(seq) && seq.size() == 0) {
            // `routes: []` gains its first routes: a block list, as the writer would start it.
            Span s = span(seq, false);
            while (s.begin > 0 && m_text[s.begin - 1] == ' ')
                --s.begin; // no trailing space after `routes:`
            QByteArray text = "\n";
            for (const Tree &route : afterTree.items)
                text += newBlockRoute(YamlNode(), route, keyColumn + 2);
            text.chop(1); // the line's own end follows
            edits.push_back({s.begin, s.end, text});
            return;
        }
        if (block && afterTree.items.isEmpty()) {
            // The last route goes: the list becomes `[]` on the key's line.
            const Span first = span(seq, false);
            const qsizetype colon = m_text.indexOf(':', offsetOf(routes.keyNode));
            edits.push_back({colon + 1, colon + 1, " []"});
            edits.push_back({lineEnd(colon), lineEnd(first.end), {}});
            return;
        }
        QHash<quint64, qsizetype> originIndex;
        for (qsizetype i = 0; i < m_before->routes.size(); ++i)
            originIndex.insert(m_before->routes[i].origin.uid, i);
        std::vector<qsizetype> origins; // per route to save: its index in the file, or -1
        for (const Route &route : m_after->routes)
            origins.push_back(route.origin.uid ? originIndex.value(route.origin.uid, -1) : -1);
        const NewItem newRoute = [this](const YamlNode &sample, const Tree &route, int dash) {
            return newBlockRoute(sample, route, dash);
        };
        diffItems(seq, inFlow, origins, beforeTree, afterTree, newRoute, edits);
    }

    using NewItem = std::function<QByteArray(const YamlNode &sample, const Tree &, int dash)>;

    // A list whose items are kept (origins[i]: the file's item that item i of `afterTree` was,
    // or -1 for a new one), moved, added or removed. Kept items in place are edited inside;
    // otherwise a block list is put together again from whole items, each with the comments
    // above it, and a flow list from the items' text.
    void diffItems(const YamlNode &seq, bool inFlow, const std::vector<qsizetype> &origins,
        const Tree &beforeTree, const Tree &afterTree, const NewItem &newItem,
        std::vector<Edit> &edits)
    {
        std::vector<YamlNode> items;
        for (std::size_t i = 0; i < seq.size(); ++i)
            items.push_back(seq[i]);
        bool sameOrder = origins.size() == items.size();
        for (std::size_t i = 0; sameOrder && i < origins.size(); ++i)
            sameOrder = origins[i] == qsizetype(i);
        if (sameOrder) {
            for (std::size_t i = 0; i < items.size(); ++i)
                diffValue(items[i], inFlow || isFlow(seq), beforeTree.items[qsizetype(i)],
                    afterTree.items[qsizetype(i)], edits);
            return;
        }
        if (isFlow(seq) || inFlow)
            edits.push_back(flowItems(seq, items, origins, beforeTree, afterTree));
        else
            edits.push_back(blockItems(items, origins, beforeTree, afterTree, newItem));
    }

    // Items of a list of maps that carry a `name` (a route's limits), matched to the file's:
    // an unchanged item first, then one of the same name; -1 for a new one.
    static std::vector<qsizetype> matchByName(const Tree &before, const Tree &after)
    {
        std::vector<qsizetype> origins(std::size_t(after.items.size()), -1);
        std::vector<bool> taken(std::size_t(before.items.size()), false);
        const auto match = [&](const auto &same) {
            for (qsizetype i = 0; i < after.items.size(); ++i)
                for (qsizetype o = 0; origins[std::size_t(i)] < 0 && o < before.items.size(); ++o)
                    if (!taken[std::size_t(o)] && same(before.items[o], after.items[i])) {
                        origins[std::size_t(i)] = o;
                        taken[std::size_t(o)] = true;
                    }
        };
        match([](const Tree &a, const Tree &b) { return a == b; });
        match([](const Tree &a, const Tree &b) {
            const Tree *x = findField(a, QStringLiteral("name"));
            const Tree *y = findField(b, QStringLiteral("name"));
            return x && y && *x == *y;
        });
        return origins;
    }

    // A new list item indented like the first, a flow map when the first is one.
    QByteArray newListItem(const YamlNode &sample, const Tree &item, int dashColumn) const
    {
        if (isFlow(sample) || !sample.isMap())
            return QByteArray(dashColumn, ' ') + "- "
                + flowYaml(item, !sample.valid() || spacedFlow(offsetOf(sample))) + "\n";
        return newBlockRoute(sample, item, dashColumn);
    }

    QByteArray applied(qsizetype from, qsizetype to, std::vector<Edit> edits) const
    {
        QByteArray text = m_text.mid(from, to - from);
        sortForApplying(edits);
        for (const Edit &e : edits) {
            if (e.begin < from || e.end > to)
                throw Unsupported{QStringLiteral("an edit outside its route")};
            text.replace(e.begin - from, e.end - e.begin, e.text);
        }
        return text;
    }

    static bool isNamedList(const Tree &seq)
    {
        for (const Tree &item : seq.items)
            if (item.kind != Tree::Kind::Map || !findField(item, QStringLiteral("name")))
                return false;
        return true;
    }

    Edit blockItems(const std::vector<YamlNode> &items, const std::vector<qsizetype> &origins,
        const Tree &beforeTree, const Tree &afterTree, const NewItem &newItem)
    {
        // Each item's block runs from the end of the previous one (the first: from the
        // comments directly above it) to the end of its last line.
        std::vector<qsizetype> starts, ends;
        for (const YamlNode &item : items) {
            const Span s = span(item, false);
            ends.push_back(lineEnd(s.end));
            starts.push_back(starts.empty() ? lineStart(s.begin) : ends[ends.size() - 2]);
        }
        qsizetype first = starts.front();
        while (first > 0) {
            const qsizetype previous = lineStart(first - 1);
            if (m_text.mid(previous, first - previous).trimmed().startsWith('#'))
                first = previous;
            else
                break;
        }
        starts.front() = first;
        const int dashColumn = column(offsetOf(items.front())) - 2;
        if (dashColumn < 0
            || m_text.mid(lineStart(offsetOf(items.front())) + dashColumn, 2) != "- ")
            throw Unsupported{QStringLiteral("list items not written as `- field: …`")};
        // Blank lines the file puts between routes, for new ones.
        QByteArray separator;
        if (items.size() > 1) {
            const QByteArrayList lines
                = m_text.mid(starts[1], offsetOf(items[1]) - starts[1]).split('\n');
            for (qsizetype l = 0; l + 1 < lines.size() && lines[l].trimmed().isEmpty(); ++l)
                separator += "\n";
        }
        QByteArray text;
        for (qsizetype i = 0; i < afterTree.items.size(); ++i) {
            const qsizetype origin = origins[std::size_t(i)];
            if (origin < 0) {
                text += (i == 0 ? QByteArray() : separator)
                    + newItem(items.front(), afterTree.items[i], dashColumn);
                continue;
            }
            const auto o = std::size_t(origin);
            std::vector<Edit> inner;
            diffValue(items[o], false, beforeTree.items[origin], afterTree.items[i], inner);
            QByteArray block = applied(starts[o], ends[o], inner);
            // Blank lines above an item separate it from the one before: the first item has
            // none, an item that was first gets the file's usual ones when it moves down.
            qsizetype blank = 0;
            while (blank < block.size()) {
                const qsizetype nl = block.indexOf('\n', blank);
                if (nl < 0 || !block.mid(blank, nl - blank).trimmed().isEmpty())
                    break;
                blank = nl + 1;
            }
            const QByteArray body = block.mid(blank);
            text += (i == 0 ? QByteArray() : origin == 0 ? separator : block.left(blank)) + body;
            if (!text.endsWith('\n'))
                text += '\n';
        }
        return {starts.front(), ends.back(), text};
    }

    // A new route as a `- ` item indented like the others, its maps flow or block (and flow
    // maps spaced or not) as the file's first route has them.
    QByteArray newBlockRoute(const YamlNode &sample, const Tree &route, int dashColumn) const
    {
        QByteArray out;
        const QByteArray indent(dashColumn + 2, ' ');
        for (const auto &[key, value] : route.fields) {
            out += out.isEmpty() ? QByteArray(dashColumn, ' ') + "- " : indent;
            out += yamlScalar(key, false) + ":";
            const bool collection = value.kind == Tree::Kind::Map || value.kind == Tree::Kind::Seq;
            if (!collection) {
                out += " " + scalarYaml(value, false) + "\n";
                continue;
            }
            const YamlNode theirs = sample.find(key.toStdString());
            const bool flow = theirs.isMap() || theirs.isSequence() ? isFlow(theirs) : value.flow;
            if (flow)
                out += " " + flowYaml(value, !theirs.valid() || spacedFlow(offsetOf(theirs)))
                    + "\n";
            else
                out += "\n" + indent + "  " + blockYaml(value, dashColumn + 4) + "\n";
        }
        return out;
    }

    Edit flowItems(const YamlNode &seq, const std::vector<YamlNode> &items,
        const std::vector<qsizetype> &origins, const Tree &beforeTree, const Tree &afterTree)
    {
        const Span whole = span(seq, true);
        std::vector<Span> spans;
        for (const YamlNode &item : items)
            spans.push_back(span(item, true));
        const qsizetype open = whole.begin + 1, close = whole.end - 1;
        const QByteArray lead
            = spans.empty() ? QByteArray() : m_text.mid(open, spans.front().begin - open);
        const QByteArray trail
            = spans.empty() ? QByteArray() : m_text.mid(spans.back().end, close - spans.back().end);
        const QByteArray separator = spans.size() > 1
            ? m_text.mid(spans[0].end, spans[1].begin - spans[0].end)
            : QByteArray(json() ? ",\n" + QByteArray(lineIndent(whole.begin) + 2, ' ') : ", ");
        QByteArrayList parts;
        for (qsizetype i = 0; i < afterTree.items.size(); ++i) {
            const qsizetype origin = origins[std::size_t(i)];
            if (origin >= 0) {
                std::vector<Edit> inner;
                diffValue(items[std::size_t(origin)], true, beforeTree.items[origin],
                    afterTree.items[i], inner);
                parts << applied(
                    spans[std::size_t(origin)].begin, spans[std::size_t(origin)].end, inner);
            } else {
                const int indent
                    = spans.empty() ? lineIndent(whole.begin) + 2 : column(spans.front().begin);
                parts << (json() ? jsonText(afterTree.items[i], indent / 2)
                                 : flowYaml(afterTree.items[i]));
            }
        }
        return {open, close, lead + parts.join(separator) + trail};
    }

    const QByteArray &m_text;
    PolicyFormat m_format;
    const Policy *m_before = nullptr;
    const Policy *m_after = nullptr;
};

QByteArray applyAll(QByteArray text, std::vector<Edit> edits)
{
    sortForApplying(edits);
    for (std::size_t i = 1; i < edits.size(); ++i)
        if (edits[i].end > edits[i - 1].begin)
            throw Unsupported{QStringLiteral("two edits at one place")};
    for (const Edit &e : edits)
        text.replace(e.begin, e.end - e.begin, e.text);
    return text;
}

} // namespace

TextPatch patchPolicyText(
    const QByteArray &original, const Policy &before, const Policy &after, PolicyFormat format)
{
    TextPatch out;
    try {
        const YamlDocument doc = YamlDocument::parse(original.toStdString());
        if (!doc.ok())
            throw Unsupported{QString::fromStdString(doc.error().message)};
        out.text = applyAll(original, Patcher(original, format).run(doc.root(), before, after));
        // The text must read as `after`, or, where `after` holds a value the format refuses
        // (a capacity of 0 typed a moment ago), as `after` written whole reads: the reader
        // drops such a value either way.
        PolicyReadResult saved = readPolicy(out.text, QStringLiteral("saved"));
        if (saved.policy == after
            || saved.policy
                == readPolicy(writePolicy(after, format), QStringLiteral("whole")).policy) {
            out.diagnostics = std::move(saved.diagnostics);
            return out;
        }
        out.fallback = QStringLiteral("the edited text did not read back as the policy");
    } catch (const Unsupported &u) {
        out.fallback = u.why;
    }
    out.text = writePolicy(after, format);
    return out;
}

} // namespace qs
