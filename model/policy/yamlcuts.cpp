#include "model/policy/yamlcuts.h"

#include <algorithm>

namespace qs {

namespace {

bool isKeyChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
        || c == '-';
}

// The key of a line `key:` at column 0 with nothing after the colon but spaces and a comment,
// which opens a block value; empty for any other line.
std::string_view blockKey(std::string_view line)
{
    std::size_t i = 0;
    while (i < line.size() && isKeyChar(line[i]))
        ++i;
    if (i == 0 || line[0] == '-' || i >= line.size() || line[i] != ':')
        return {};
    std::size_t rest = i + 1;
    while (rest < line.size() && line[rest] == ' ')
        ++rest;
    if (rest < line.size() && (line[rest] != '#' || rest == i + 1))
        return {}; // a value on the line, or `key:#` (not a comment)
    return line.substr(0, i);
}

// A block sequence found while scanning, with the lines that start its items.
struct Sequence {
    std::string_view key;
    int keyLine = 0;
    int itemColumn = -1; // unknown until its first item
    std::vector<YamlCut> items;
};

} // namespace

YamlCuts findYamlCuts(std::string_view text, std::size_t parts)
{
    if (parts < 2)
        return {};
    Sequence best, current;
    bool inRegion = false; // `current` is a key's sequence and its region has not ended
    int lineNo = 0;
    for (std::size_t start = 0; start < text.size(); ++lineNo) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        const std::size_t lineStart = start;
        start = end + 1;

        if (!line.empty() && line[0] == '%')
            return {}; // a directive
        const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
        if (indent == line.size() || line[indent] == '#')
            continue; // blank or a comment: neither an item nor the end of one
        if (inRegion) {
            const bool dash = line[indent] == '-'
                && (indent + 1 == line.size() || line[indent + 1] == ' '
                    || line[indent + 1] == '\t');
            if (current.itemColumn < 0 && dash)
                current.itemColumn = int(indent);
            if (current.itemColumn >= 0 && int(indent) == current.itemColumn && dash) {
                current.items.push_back({lineStart, lineNo});
                continue;
            }
            if (current.itemColumn >= 0 && int(indent) > current.itemColumn && line[indent] != '\t')
                continue; // inside an item
            inRegion = false; // the region ends here (or the key's value is no block sequence)
            if (current.items.size() > best.items.size())
                best = current;
        }
        if (const std::string_view key = blockKey(line); !key.empty()) {
            current = Sequence{key, lineNo, -1, {}};
            inRegion = true;
        }
    }
    if (inRegion && current.items.size() > best.items.size())
        best = current;
    if (best.items.size() < 2)
        return {};

    // The item nearest to each k/parts of the text, never the first (the first part holds the key
    // with at least one item) and never the same twice.
    YamlCuts out{std::string(best.key), best.keyLine, best.itemColumn, {}};
    auto from = best.items.begin() + 1;
    for (std::size_t k = 1; k < parts && from != best.items.end(); ++k) {
        const std::size_t target = text.size() * k / parts;
        auto it = std::lower_bound(from, best.items.end(), target,
            [](const YamlCut &c, std::size_t offset) { return c.offset < offset; });
        if (it != from
            && (it == best.items.end() || it->offset - target > target - (it - 1)->offset))
            --it;
        out.cuts.push_back(*it);
        from = it + 1;
    }
    return out;
}

} // namespace qs
