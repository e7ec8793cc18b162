#pragma once
// Where a large YAML text can be cut so that each part parses on a thread of its own and the
// parts' trees join into the tree of the whole (YamlDocument::parse). A policy of 100 000 routes
// spends most of its reading time in yaml-cpp's scanner, which is sequential; the routes are one
// long block sequence, and the lines that start its items are where the text can be cut.
// Internal to model/policy.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

// The first byte of a line that starts an item of the sequence being cut.
struct YamlCut {
    std::size_t offset = 0;
    int line = 0; // 0-based
};

// Cuts in the block sequence under one top-level key (`key:` alone on a line at column 0). A part
// after a cut parses as `key:\n` followed by its slice of the text.
struct YamlCuts {
    std::string key;
    int keyLine = 0; // 0-based
    int itemColumn = 0; // the column of the sequence's dashes
    std::vector<YamlCut> cuts; // ascending, never at the sequence's first item
};

// Up to parts - 1 cuts that split `text` into parts of about equal size, in the top-level block
// sequence with the most items; none when there is no such sequence, or when the text has
// directives (a part could not resolve their tag handles).
//
// Why a cut cannot change what the text means: a line in the sequence's region (up to the first
// line indented less, or at its column without a dash, or starting with a tab) that starts with
// `- ` at the sequence's column is either the next item, or inside a quoted scalar or flow
// collection that spans lines. Block scalars cannot hold such a line: their content is indented
// deeper than the sequence. In the second case the part before the cut ends inside the quote or
// bracket and fails to parse, and the caller parses the whole text at once; so do aliases to an
// anchor in another part. The caller also checks that each part's tree has the promised shape.
YamlCuts findYamlCuts(std::string_view text, std::size_t parts);

} // namespace qs
