#pragma once
// Writes YAML the way the exporters and the policy writer need it: block maps and sequences
// indented by two, flow `{a: 1}` / `[x, y]` on request, strings plain when that reads back as
// the same string and double-quoted otherwise. Streamed like yaml-cpp's emitter (whose manipulator
// names it keeps, so that the writers read the same), but about twenty times faster: yaml-cpp's
// emitter checked every scalar with its regex engine and was most of an Envoy export's time
// (see "Route count" in docs/benchmarks.md).
//
// Stricter than yaml-cpp where that matters to a gateway: a string that a YAML 1.1 reader (Go's
// yaml.v2, read by Traefik and Kong) would take for a boolean, a number or null is quoted.
#include "model/base/shares.h"

#include <QByteArray>

#include <concepts>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qs::yaml {

enum Manip {
    BeginMap,
    EndMap,
    BeginSeq,
    EndSeq,
    Key, // the next node is a key: checked, the position in the map decides
    Value, // the next node is a value: idem
    Flow, // the next container is written on one line
    DoubleQuoted, // the next string is quoted whatever it holds
    Null, // a null value
};

// A `# text` line; only before the document's first node.
struct Comment {
    explicit Comment(std::string_view t) : text(t) { }
    std::string_view text;
};

class Emitter {
public:
    Emitter &operator<<(Manip manip);
    Emitter &operator<<(const Comment &comment);
    Emitter &operator<<(std::string_view text);
    Emitter &operator<<(const std::string &text) { return *this << std::string_view(text); }
    Emitter &operator<<(const char *text) { return *this << std::string_view(text); }
    Emitter &operator<<(bool value);
    template <std::integral T>
    requires(!std::same_as<T, bool> && !std::same_as<T, char>) Emitter &operator<<(T value)
    {
        m_nextQuoted = false;
        writeScalar(std::to_string(value), true);
        return *this;
    }

    // Room for `bytes` of output, for a writer that can estimate its size: without it a large
    // export grows the buffer a few dozen times, each time copying everything so far into fresh
    // pages (a fifth of an Envoy export's time at 100 000 routes, 170 MB).
    void reserve(qsizetype bytes) { m_out.reserve(bytes); }
    // The finished document with its final newline; the emitter is left empty. A QByteArray
    // because that is what the export's files are: the output is copied no more.
    QByteArray takeDocument()
    {
        m_out += '\n';
        return std::move(m_out);
    }

    // An emitter that writes more items of the collection this one is in, on another thread:
    // it starts as if `itemsBefore` more items had been written here, with room for `bytes`,
    // and append() takes back what it wrote. For writers whose output is one long sequence
    // (emitItemsInParallel).
    Emitter continuation(int itemsBefore, qsizetype bytes = 0) const;
    // Bytes reserved and not written yet.
    qsizetype room() const { return m_out.capacity() - m_out.size(); }
    // Appends a continuation's output, which must close every collection it opened; the
    // continuations of one collection are appended in the order of their items.
    void append(const Emitter &continuation);

    // The document so far, without a final newline.
    const QByteArray &bytes() const { return m_out; }
    std::string str() const { return m_out.toStdString(); }

private:
    struct Frame {
        bool map = false;
        bool flow = false;
        int indent = 0; // column of a block map's keys or a block sequence's dashes
        int count = 0; // nodes written: a map's keys and values alike
        bool inlineFirst = false; // the first entry goes on the current line (after "- ")
    };

    enum class NodeKind { Scalar, FlowContainer, BlockContainer };
    void placeNode(NodeKind kind);
    void newLine(int indent);
    void begin(bool map);
    void end(bool map);
    void writeScalar(std::string_view text, bool plainAllowed);
    bool inFlow() const { return !m_stack.empty() && m_stack.back().flow; }
    // Whether anything was written before: a continuation's text follows another's.
    bool started() const { return m_continued || !m_out.isEmpty(); }

    QByteArray m_out;
    std::vector<Frame> m_stack;
    bool m_nextFlow = false;
    bool m_nextQuoted = false;
    bool m_continued = false;
};

// Writes `count` items into the collection `out` is in, item i by write(emitter, i), in
// order, split over `threads` threads (0: one per core) when there are at least minPerThread
// items for each: an Envoy configuration of 100 000 routes is 170 MB of YAML. write() runs on
// several threads at once.
template <class Write>
void emitItemsInParallel(Emitter &out, std::size_t count, Write write,
    std::size_t minPerThread = 5000, unsigned threads = 0)
{
    const std::size_t shares = shareCount(count, minPerThread, threads);
    // The first share is written into `out` itself, the others into continuations made before
    // it starts, each with its part of the room reserved in `out`.
    std::vector<Emitter> continuations(shares);
    for (std::size_t s = 1; s < shares; ++s)
        continuations[s]
            = out.continuation(int(shareBegin(count, shares, s)), out.room() / qsizetype(shares));
    runShares(shares, [&](std::size_t s) {
        Emitter &to = s == 0 ? out : continuations[s];
        for (std::size_t i = shareBegin(count, shares, s); i < shareBegin(count, shares, s + 1);
             ++i)
            write(to, i);
    });
    for (std::size_t s = 1; s < shares; ++s)
        out.append(continuations[s]);
}

// Whether `text` can be written as a plain scalar and read back as the same string, in a flow
// collection or in block context. Exposed for the tests.
bool isSafePlainScalar(std::string_view text, bool inFlow);

// `text` as a YAML double-quoted scalar (controls, quotes and backslashes escaped).
std::string doubleQuoted(std::string_view text);

} // namespace qs::yaml
