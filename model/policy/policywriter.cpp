#include "model/policy/policywriter.h"
#include "model/policy/policytree.h"

#include "model/policy/limitconversion.h"
#include "model/policy/limitfields.h"
#include "model/policy/ratesyntax.h"

#include <QSaveFile>

#include "model/base/yamlemitter.h"

#include <algorithm>

namespace qs {

namespace {

// Collects fields in canonical order, then orders them as the file had them.
class Fields {
public:
    void add(const QString &key, Tree value) { m_fields.append({key, std::move(value)}); }
    Tree build(const QStringList &fileOrder, bool flow = false)
    {
        std::stable_sort(m_fields.begin(), m_fields.end(), [&](const auto &a, const auto &b) {
            const auto rank = [&](const QString &k) {
                const qsizetype i = fileOrder.indexOf(k);
                return i < 0 ? fileOrder.size() : i;
            };
            return rank(a.first) < rank(b.first);
        });
        Tree t = Tree::map(flow);
        t.fields = m_fields;
        return t;
    }

private:
    QList<QPair<QString, Tree>> m_fields;
};

Tree keyTree(const QList<KeySelector> &keys)
{
    if (keys.size() == 1)
        return Tree::text(keys.first().toString());
    Tree t = Tree::seq(true);
    for (const KeySelector &k : keys)
        t.items.append(Tree::text(k.toString()));
    return t;
}

// The algorithm's fields into `f`, and anything else of the limit's map in `extra`.
Tree limitTree(const LimitSpec &l, Fields f = {})
{
    f.add(QStringLiteral("algorithm"),
        Tree::text(QString::fromLatin1(limiter::algorithmName(l.algorithm).data())));
    for (const LimitField &field : limitFieldTable()) {
        if (!hasLimitValue(l, field))
            continue;
        switch (field.kind) {
        case LimitField::Kind::Count:
            f.add(field.name, Tree::number(*(l.*field.count)));
            break;
        case LimitField::Kind::Rate:
            f.add(field.name, Tree::text((l.*field.rate)->text));
            break;
        case LimitField::Kind::Duration:
            f.add(field.name, Tree::text((l.*field.duration)->text));
            break;
        case LimitField::Kind::LeakMode:
            f.add(field.name, Tree::text(leakModeName(*l.mode)));
            break;
        case LimitField::Kind::Calendar:
            f.add(field.name,
                Tree::text(QString::fromLatin1(limiter::calendarUnitName(*l.calendar).data())));
            break;
        case LimitField::Kind::TimeZone:
            f.add(field.name, Tree::text(*l.timeZone));
            break;
        }
    }
    return f.build(l.fieldOrder, true);
}

// `plans: { pro: { capacity: 100 }, enterprise: unlimited }`, in the file's order.
Tree limitPlansTree(const RouteLimit &l)
{
    Tree t = Tree::map(true);
    for (const PlanLimit &p : l.plans) {
        if (p.unlimited) {
            t.fields.append({p.plan, Tree::text(QStringLiteral("unlimited"))});
            continue;
        }
        Tree numbers = limitTree(p.spec);
        numbers.fields.removeIf(
            [](const auto &f) { return f.first == QLatin1String("algorithm"); });
        t.fields.append({p.plan, numbers});
    }
    return t;
}

// An item of `limits:`: the name and the limit's own route fields beside its algorithm's, in
// one map. A shadow leaky bucket polices: its `mode` says shadow (policyreader.cpp).
Tree limitItemTree(const RouteLimit &l)
{
    Fields f;
    f.add(QStringLiteral("name"), Tree::text(l.name));
    if (l.key)
        f.add(QStringLiteral("key"), keyTree(*l.key));
    if (l.missingKey)
        f.add(QStringLiteral("missing_key"), Tree::text(missingKeyModeName(*l.missingKey)));
    if (l.cost)
        f.add(QStringLiteral("cost"), Tree::number(*l.cost));
    if (l.variesByPlan())
        f.add(QStringLiteral("plans"), limitPlansTree(l));
    LimitSpec spec = l.spec;
    if (l.mode && (*l.mode == RouteMode::Shadow || !spec.mode)) {
        spec.mode.reset();
        f.add(QStringLiteral("mode"), Tree::text(routeModeName(*l.mode)));
    }
    // A limit that was the route's only one (`limit:`) is named first when it joins a list.
    if (!spec.fieldOrder.contains(QStringLiteral("name")))
        spec.fieldOrder.prepend(QStringLiteral("name"));
    return limitTree(spec, std::move(f));
}

// A route's only limit, written as `limit:`.
Tree limitOfRouteTree(const RouteLimit &l)
{
    Fields f;
    if (l.variesByPlan())
        f.add(QStringLiteral("plans"), limitPlansTree(l));
    return limitTree(l.spec, std::move(f));
}

Tree limitsTree(const Route &r)
{
    Tree t = Tree::seq();
    for (const RouteLimit &l : r.limits)
        t.items.append(limitItemTree(l));
    return t;
}

// The route's field order with its limits under the name they are written with now: a route
// that gained a second limit writes `limits:` where its `limit:` was.
QStringList routeFieldOrder(const Route &r)
{
    QStringList order = r.fieldOrder;
    const QString now = r.writtenAsList() ? QStringLiteral("limits") : QStringLiteral("limit");
    const QString was = r.writtenAsList() ? QStringLiteral("limit") : QStringLiteral("limits");
    const qsizetype at = order.indexOf(was);
    if (at >= 0 && !order.contains(now))
        order[at] = now;
    return order;
}

Tree routeTree(const Route &r)
{
    Fields match;
    if (!r.methods.isEmpty()) {
        Tree methods = Tree::seq(true);
        for (const QString &m : r.methods)
            methods.items.append(Tree::text(m));
        match.add(QStringLiteral("methods"), methods);
    }
    match.add(QStringLiteral("path"), Tree::text(r.path));

    Fields f;
    f.add(QStringLiteral("id"), Tree::text(r.id));
    if (!r.description.isEmpty())
        f.add(QStringLiteral("description"), Tree::text(r.description));
    f.add(QStringLiteral("match"), match.build(r.matchFieldOrder, true));
    if (r.key)
        f.add(QStringLiteral("key"), keyTree(*r.key));
    if (r.missingKey)
        f.add(QStringLiteral("missing_key"), Tree::text(missingKeyModeName(*r.missingKey)));
    if (r.writtenAsList())
        f.add(QStringLiteral("limits"), limitsTree(r));
    else
        f.add(QStringLiteral("limit"), limitOfRouteTree(r.limits.first()));
    if (r.cost)
        f.add(QStringLiteral("cost"), Tree::number(*r.cost));
    if (r.mode)
        f.add(QStringLiteral("mode"), Tree::text(routeModeName(*r.mode)));
    return f.build(routeFieldOrder(r));
}

Tree defaultsTree(const Defaults &d)
{
    Fields f;
    if (d.key)
        f.add(QStringLiteral("key"), keyTree(*d.key));
    if (d.missingKey)
        f.add(QStringLiteral("missing_key"), Tree::text(missingKeyModeName(*d.missingKey)));
    if (d.status)
        f.add(QStringLiteral("status"), Tree::number(*d.status));
    if (d.onStoreError)
        f.add(QStringLiteral("on_store_error"), Tree::text(storeErrorPolicyName(*d.onStoreError)));
    if (d.headers)
        f.add(QStringLiteral("headers"), Tree::text(headerStyleName(*d.headers)));
    return f.build(d.fieldOrder, true);
}

Tree redisTree(const RedisSettings &r)
{
    Fields f;
    if (r.prefix)
        f.add(QStringLiteral("prefix"), Tree::text(*r.prefix));
    if (r.metrics)
        f.add(QStringLiteral("metrics"), Tree::boolean(*r.metrics));
    if (!r.layouts.isEmpty()) {
        Tree layouts = Tree::seq();
        for (const RedisLayout &l : r.layouts) {
            Fields lf;
            lf.add(QStringLiteral("route"), Tree::text(l.routeId));
            if (l.preset)
                lf.add(QStringLiteral("preset"), Tree::text(*l.preset));
            if (!l.keyTemplate.isEmpty())
                lf.add(QStringLiteral("key"), Tree::text(l.keyTemplate));
            if (!l.fields.isEmpty()) {
                Tree fields = Tree::map(true);
                for (const auto &[ours, theirs] : l.fields)
                    fields.fields.append({ours, Tree::text(theirs)});
                lf.add(QStringLiteral("fields"), fields);
            }
            if (l.timeUnit)
                lf.add(QStringLiteral("time_unit"), Tree::text(*l.timeUnit));
            if (l.refill)
                lf.add(QStringLiteral("refill"), Tree::text(*l.refill));
            layouts.items.append(lf.build(l.fieldOrder));
        }
        f.add(QStringLiteral("layouts"), layouts);
    }
    return f.build(r.fieldOrder, r.layouts.isEmpty());
}

Tree plansTree(const PlanSettings &p)
{
    Fields f;
    Tree names = Tree::seq(true);
    for (const QString &n : p.names)
        names.items.append(Tree::text(n));
    f.add(QStringLiteral("names"), names);
    if (p.from && p.mapFile) {
        Fields from;
        from.add(QStringLiteral("key"), Tree::text(p.from->toString()));
        from.add(QStringLiteral("map"), Tree::text(*p.mapFile));
        f.add(QStringLiteral("from"), from.build(p.fromFieldOrder, true));
    } else if (p.from) {
        f.add(QStringLiteral("from"), Tree::text(p.from->toString()));
    }
    if (p.defaultPlan)
        f.add(QStringLiteral("default"), Tree::text(*p.defaultPlan));
    return f.build(p.fieldOrder);
}

Tree policyTree(const Policy &p)
{
    Fields f;
    f.add(QStringLiteral("quota_studio"), Tree::number(p.formatVersion));
    f.add(QStringLiteral("name"), Tree::text(p.name));
    if (!p.description.isEmpty())
        f.add(QStringLiteral("description"), Tree::text(p.description));
    if (p.defaultsPresent)
        f.add(QStringLiteral("defaults"), defaultsTree(p.defaults));
    if (p.redis.present)
        f.add(QStringLiteral("redis"), redisTree(p.redis));
    if (p.plans.present)
        f.add(QStringLiteral("plans"), plansTree(p.plans));
    Tree routes = Tree::seq();
    for (const Route &r : p.routes)
        routes.items.append(routeTree(r));
    f.add(QStringLiteral("routes"), routes);
    return f.build(p.fieldOrder);
}

void emitYaml(yaml::Emitter &out, const Tree &t)
{
    switch (t.kind) {
    case Tree::Kind::Map:
        if (t.flow)
            out << yaml::Flow;
        out << yaml::BeginMap;
        for (const auto &[key, value] : t.fields) {
            out << yaml::Key << key.toStdString() << yaml::Value;
            emitYaml(out, value);
        }
        out << yaml::EndMap;
        break;
    case Tree::Kind::Seq:
        if (t.flow)
            out << yaml::Flow;
        out << yaml::BeginSeq;
        for (const Tree &item : t.items)
            emitYaml(out, item);
        out << yaml::EndSeq;
        break;
    // Typed, so that the emitter writes numbers and booleans plain (and quotes only text that
    // looks like one).
    case Tree::Kind::Text:
        out << t.scalar.toStdString();
        break;
    case Tree::Kind::Number:
        out << t.scalar.toLongLong();
        break;
    case Tree::Kind::Bool:
        out << (t.scalar == QLatin1String("true"));
        break;
    case Tree::Kind::Null:
        out << yaml::Null;
        break;
    }
}

// `s` as a JSON string, appended to `out`; most strings need no escape and go in whole.
void appendJsonString(QString &out, const QString &s)
{
    out += QLatin1Char('"');
    const auto plain = [](QChar c) { return c.unicode() >= 0x20 && c != u'"' && c != u'\\'; };
    if (std::all_of(s.begin(), s.end(), plain)) {
        out += s;
        out += QLatin1Char('"');
        return;
    }
    for (const QChar c : s) {
        switch (c.unicode()) {
        case '"':
            out += QStringLiteral("\\\"");
            break;
        case '\\':
            out += QStringLiteral("\\\\");
            break;
        case '\n':
            out += QStringLiteral("\\n");
            break;
        case '\r':
            out += QStringLiteral("\\r");
            break;
        case '\t':
            out += QStringLiteral("\\t");
            break;
        default:
            if (c.unicode() < 0x20)
                out += QStringLiteral("\\u%1").arg(int(c.unicode()), 4, 16, QLatin1Char('0'));
            else
                out += c;
        }
    }
    out += QLatin1Char('"');
}

// Without a QString of spaces made per node: a Redis bundle's manifest has a few million.
void appendSpaces(QString &out, qsizetype count)
{
    static const QString spaces(64, QLatin1Char(' '));
    for (; count > 0; count -= spaces.size())
        out += QStringView(spaces).left(count);
}

void emitJson(QString &out, const Tree &t, int indent, const JsonLayout &layout)
{
    const qsizetype pad = qsizetype(indent) * layout.indentWidth;
    const qsizetype inner = pad + layout.indentWidth;
    const auto close = [&](bool empty, QChar bracket) {
        if (!empty || layout.emptyOverTwoLines) {
            out += QLatin1Char('\n');
            appendSpaces(out, pad);
        }
        out += bracket;
    };
    switch (t.kind) {
    case Tree::Kind::Map:
        out += QLatin1Char('{');
        for (qsizetype i = 0; i < t.fields.size(); ++i) {
            out += i ? QLatin1String(",\n") : QLatin1String("\n");
            appendSpaces(out, inner);
            appendJsonString(out, t.fields[i].first);
            out += QLatin1String(": ");
            emitJson(out, t.fields[i].second, indent + 1, layout);
        }
        close(t.fields.isEmpty(), QLatin1Char('}'));
        break;
    case Tree::Kind::Seq:
        out += QLatin1Char('[');
        for (qsizetype i = 0; i < t.items.size(); ++i) {
            out += i ? QLatin1String(",\n") : QLatin1String("\n");
            appendSpaces(out, inner);
            emitJson(out, t.items[i], indent + 1, layout);
        }
        close(t.items.isEmpty(), QLatin1Char(']'));
        break;
    case Tree::Kind::Text:
        appendJsonString(out, t.scalar);
        break;
    case Tree::Kind::Number:
    case Tree::Kind::Bool:
    case Tree::Kind::Null:
        out += t.scalar;
        break;
    }
}

} // namespace

Tree policyDocumentTree(const Policy &policy)
{
    return policyTree(policy);
}

Tree routeDocumentTree(const Route &route)
{
    return routeTree(route);
}

void emitTreeYaml(yaml::Emitter &out, const Tree &tree)
{
    emitYaml(out, tree);
}

void emitTreeJson(QString &out, const Tree &tree, int indent, JsonLayout layout)
{
    emitJson(out, tree, indent, layout);
}

QString jsonQuoted(const QString &text)
{
    QString out;
    appendJsonString(out, text);
    return out;
}

QByteArray writePolicy(const Policy &policy, PolicyFormat format)
{
    const Tree tree = policyTree(policy);
    if (format == PolicyFormat::Json) {
        QString out;
        emitJson(out, tree, 0, JsonLayout{});
        return (out + QLatin1Char('\n')).toUtf8();
    }
    yaml::Emitter out;
    emitYaml(out, tree);
    return out.takeDocument();
}

PolicyFormat formatForPath(const QString &path)
{
    return path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive) ? PolicyFormat::Json
                                                                       : PolicyFormat::Yaml;
}

Expected<void> savePolicyFile(const Policy &policy, const QString &path)
{
    return saveTextFile(writePolicy(policy, formatForPath(path)), path);
}

Expected<void> saveTextFile(const QByteArray &bytes, const QString &path)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    if (file.write(bytes) != bytes.size())
        return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    if (!file.commit())
        return QStringLiteral("cannot save %1: %2").arg(path, file.errorString());
    return {};
}

} // namespace qs
