#include "model/policy/pathpatternindex.h"

namespace qs {

using Kind = PathPattern::SegmentKind;

PathPatternIndex::PathPatternIndex() : m_nodes(1) { }

int PathPatternIndex::child(int node, const PathPattern::Segment &segment)
{
    if (segment.kind == Kind::Literal) {
        if (const auto it = m_nodes[node].literal.constFind(segment.text);
            it != m_nodes[node].literal.cend())
            return *it;
        m_nodes.emplace_back();
        const int created = int(m_nodes.size() - 1);
        m_nodes[node].literal.insert(segment.text, created);
        return created;
    }
    if (m_nodes[node].single < 0) {
        m_nodes.emplace_back();
        m_nodes[node].single = int(m_nodes.size() - 1);
    }
    return m_nodes[node].single;
}

void PathPatternIndex::add(int id, const PathPattern &pattern)
{
    int node = 0;
    for (const PathPattern::Segment &s : pattern.segments()) {
        if (s.kind == Kind::DoubleStar) { // always the last segment
            m_nodes[node].rest.push_back(id);
            return;
        }
        node = child(node, s);
    }
    m_nodes[node].ends.push_back(id);
}

void PathPatternIndex::forEachOverlapping(
    const PathPattern &pattern, const std::function<void(int)> &found) const
{
    walk(pattern.segments(), 0, 0, found);
}

// Every pattern a path continuing from `node` can reach: the query ended in `**`.
void PathPatternIndex::everyBelow(int node, const std::function<void(int)> &found) const
{
    std::vector<int> stack{node};
    while (!stack.empty()) {
        const Node &n = m_nodes[std::size_t(stack.back())];
        stack.pop_back();
        for (const int id : n.ends)
            found(id);
        for (const int id : n.rest)
            found(id);
        for (const int c : n.literal)
            stack.push_back(c);
        if (n.single >= 0)
            stack.push_back(n.single);
    }
}

void PathPatternIndex::walk(const QList<PathPattern::Segment> &segments, qsizetype i, int node,
    const std::function<void(int)> &found) const
{
    const Node &n = m_nodes[std::size_t(node)];
    if (i < segments.size() && segments[i].kind == Kind::DoubleStar) {
        everyBelow(node, found);
        return;
    }
    // A stored `**` here takes whatever the query still requires, even nothing.
    for (const int id : n.rest)
        found(id);
    if (i == segments.size()) {
        for (const int id : n.ends)
            found(id);
        return;
    }
    const PathPattern::Segment &s = segments[i];
    if (s.kind == Kind::Literal) {
        if (const auto it = n.literal.constFind(s.text); it != n.literal.cend())
            walk(segments, i + 1, *it, found);
    } else {
        for (const int c : n.literal)
            walk(segments, i + 1, c, found);
    }
    if (n.single >= 0)
        walk(segments, i + 1, n.single, found);
}

} // namespace qs
