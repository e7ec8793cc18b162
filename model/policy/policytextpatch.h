#pragma once
// Saving without rewriting. An operator keeps policies in Git: a save must produce exactly the
// diff of what was edited. So the new file is the old file's own text with only the edited
// values replaced, fields added or removed in place, and routes added, removed or moved as whole
// blocks of text (their comments go with them); everything else — comments, blank lines, key
// order, quoting, flow or block style, unknown fields — stays byte for byte. New text follows
// the file's style (indentation, flow or block maps, quoting of keys in JSON).
//
// The edits are found by comparing the policy as read from the old text (`before`) with the
// one to save (`after`) in the writer's tree form, and placed by the marks of the parsed text
// (yamldocument.h). The result is read back and must equal `after`; when it does not, or the file
// uses a construct the patcher does not edit (a block scalar, an anchor), the whole file is written
// afresh and `fallback` says why, so a save is never wrong, only occasionally less tidy.
#include "model/policy/diagnostic.h"
#include "model/policy/policy.h"
#include "model/policy/policywriter.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace qs {

struct TextPatch {
    QByteArray text;
    QString fallback; // empty: the old text was edited in place; else why it was rewritten
    // The reading of `text` the patcher made to check it, when it made one: callers that
    // validate the text to save need not read it a second time.
    std::optional<Diagnostics> diagnostics;
};

TextPatch patchPolicyText(
    const QByteArray &original, const Policy &before, const Policy &after, PolicyFormat format);

} // namespace qs
