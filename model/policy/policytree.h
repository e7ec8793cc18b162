#pragma once
// The policy as a typed, ordered tree of maps, sequences and scalars: what the writer emits as
// YAML or JSON, and what the text patcher (policytextpatch.h) compares to find the edited
// values. The Redis bundle's manifest.json is written from one too.
#include "model/policy/policy.h"

#include <QList>
#include <QPair>
#include <QString>

namespace qs::yaml {
class Emitter;
}

namespace qs {

// A typed, ordered document tree: YAML needs the order, JSON also needs the types.
struct Tree {
    enum class Kind { Map, Seq, Text, Number, Bool, Null };
    Kind kind = Kind::Map;
    QString scalar;
    QList<QPair<QString, Tree>> fields;
    QList<Tree> items;
    bool flow = false; // YAML: `{ a: 1 }` / `[x, y]` on one line

    static Tree text(const QString &s) { return Tree{Kind::Text, s, {}, {}, false}; }
    static Tree number(qint64 n) { return Tree{Kind::Number, QString::number(n), {}, {}, false}; }
    static Tree boolean(bool b)
    {
        return Tree{
            Kind::Bool, b ? QStringLiteral("true") : QStringLiteral("false"), {}, {}, false};
    }
    static Tree null() { return Tree{Kind::Null, QStringLiteral("null"), {}, {}, false}; }
    static Tree map(bool flow = false) { return Tree{Kind::Map, {}, {}, {}, flow}; }
    static Tree seq(bool flow = false) { return Tree{Kind::Seq, {}, {}, {}, flow}; }

    // Content equality: the flow/block preference is style, not content.
    friend bool operator==(const Tree &a, const Tree &b)
    {
        return a.kind == b.kind && a.scalar == b.scalar && a.fields == b.fields
            && a.items == b.items;
    }
};

Tree policyDocumentTree(const Policy &policy);
Tree routeDocumentTree(const Route &route);
void emitTreeYaml(yaml::Emitter &out, const Tree &tree);
// How JSON is laid out: the policy's own files indent by two and write `{}` / `[]`; files that
// QJsonDocument::Indented wrote before (the Redis bundle's manifest) indent by four and open an
// empty collection over two lines, and keep doing so byte for byte.
struct JsonLayout {
    int indentWidth = 2;
    bool emptyOverTwoLines = false;
    static JsonLayout qtIndented() { return {4, true}; }
};
void emitTreeJson(QString &out, const Tree &tree, int indent, JsonLayout layout = {});
QString jsonQuoted(const QString &text);

} // namespace qs
