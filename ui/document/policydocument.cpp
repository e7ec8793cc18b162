#include "ui/document/policydocument.h"

#include "model/policy/policyreader.h"
#include "model/policy/policyvalidator.h"
#include "model/policy/policywriter.h"
#include "ui/document/policycommands.h"

#include <QFileInfo>

#include <algorithm>

namespace qs {

PolicyDocument::PolicyDocument(QObject *parent) : QObject(parent)
{
    connect(&m_undo, &QUndoStack::cleanChanged, this,
        [this](bool clean) { emit modifiedChanged(!clean); });
    newPolicy();
}

PolicyDocument::~PolicyDocument()
{
    // QUndoStack's destructor clears the stack and emits cleanChanged; by then the window that
    // listens (our parent) is half destroyed. Nothing may reach it.
    m_undo.blockSignals(true);
    blockSignals(true);
}

Route makeNewRoute(const Policy &policy)
{
    Route r;
    int n = policy.routes.size() + 1;
    do
        r.id = QStringLiteral("route-%1").arg(n++);
    while (policy.route(r.id));
    r.path = QStringLiteral("/%1").arg(r.id);
    r.limit.algorithm = limiter::Algorithm::TokenBucket;
    r.limit.capacity = 10;
    r.limit.refill = RateValue{QStringLiteral("1/s"), {1, limiter::kMicrosPerSecond}};
    r.limit.fieldOrder
        = {QStringLiteral("algorithm"), QStringLiteral("capacity"), QStringLiteral("refill")};
    r.fieldOrder = {QStringLiteral("id"), QStringLiteral("match"), QStringLiteral("limit")};
    r.matchFieldOrder = {QStringLiteral("path")};
    return r;
}

void PolicyDocument::newPolicy()
{
    Policy p;
    p.name = QStringLiteral("untitled");
    p.fieldOrder
        = {QStringLiteral("quota_studio"), QStringLiteral("name"), QStringLiteral("routes")};
    p.routes.append(makeNewRoute(p));
    m_policy = p;
    m_readDiagnostics.clear();
    m_undo.clear();
    setFilePath(QString());
    revalidate();
    emit reset();
}

bool PolicyDocument::load(const QString &path, QString *error)
{
    const PolicyReadResult r = readPolicyFile(path);
    const bool nothingRead = r.policy.routes.isEmpty() && r.policy.name.isEmpty()
        && std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [](const Diagnostic &d) {
               return d.severity == Diagnostic::Severity::Error && d.path.isEmpty();
           });
    if (nothingRead) {
        if (error)
            *error = r.diagnostics.isEmpty() ? tr("cannot read %1").arg(path)
                                             : r.diagnostics.first().toString();
        return false;
    }
    m_policy = r.policy;
    setFilePath(path);
    // Keep what only the reader could see (fields it could not read); the validator's part is
    // recomputed after every edit.
    const Diagnostics validation = validatePolicy(m_policy, displayName(), {});
    m_readDiagnostics.clear();
    for (const Diagnostic &d : r.diagnostics)
        if (!std::any_of(validation.begin(), validation.end(),
                [&](const Diagnostic &v) { return v.path == d.path && v.message == d.message; }))
            m_readDiagnostics.append(d);
    m_undo.clear();
    revalidate();
    emit reset();
    return true;
}

bool PolicyDocument::loadRecovered(
    const QString &copyPath, const QString &originalPath, QString *error)
{
    if (!load(copyPath, error))
        return false;
    setFilePath(originalPath);
    m_undo.resetClean(); // no state of the stack is what is on disk
    revalidate();
    emit modifiedChanged(true);
    return true;
}

QString PolicyDocument::save(const QString &path)
{
    const QString problem = savePolicyFile(m_policy, path);
    if (!problem.isEmpty())
        return problem;
    // Saved content carries no reader findings of an older file version.
    m_readDiagnostics.clear();
    setFilePath(path);
    m_undo.setClean();
    revalidate();
    return {};
}

void PolicyDocument::replaceRoute(
    qsizetype index, const Route &route, const QString &text, const QString &mergeKey)
{
    if (index < 0 || index >= m_policy.routes.size() || m_policy.routes[index] == route)
        return;
    m_undo.push(
        new ReplaceRouteCommand(this, index, m_policy.routes[index], route, text, mergeKey));
}

void PolicyDocument::replaceRoutes(const QList<Route> &routes, const QString &text)
{
    if (routes == m_policy.routes)
        return;
    m_undo.push(new ReplaceRoutesCommand(this, m_policy.routes, routes, text));
}

void PolicyDocument::setPolicyField(
    const Policy &after, const QString &text, const QString &mergeKey)
{
    if (after == m_policy)
        return;
    m_undo.push(new ReplacePolicyFieldsCommand(this, m_policy, after, text, mergeKey));
}

void PolicyDocument::applyRoute(qsizetype index, const Route &route)
{
    m_policy.routes[index] = route;
    revalidate();
    emit routeChanged(index);
}

void PolicyDocument::applyRoutes(const QList<Route> &routes)
{
    m_policy.routes = routes;
    revalidate();
    emit routesChanged();
}

void PolicyDocument::applyPolicy(const Policy &policy)
{
    const QList<Route> routes = m_policy.routes; // route edits have commands of their own
    m_policy = policy;
    m_policy.routes = routes;
    revalidate();
    emit policyFieldsChanged();
}

Diagnostics PolicyDocument::diagnosticsAt(const QString &pathPrefix) const
{
    Diagnostics out;
    for (const Diagnostic &d : m_diagnostics)
        if (d.path == pathPrefix || d.path.startsWith(pathPrefix + QLatin1Char('.'))
            || d.path.startsWith(pathPrefix + QLatin1Char('[')))
            out.append(d);
    return out;
}

int PolicyDocument::errorCount() const
{
    return int(std::count_if(m_diagnostics.begin(), m_diagnostics.end(),
        [](const Diagnostic &d) { return d.severity == Diagnostic::Severity::Error; }));
}

int PolicyDocument::warningCount() const
{
    return int(m_diagnostics.size()) - errorCount();
}

void PolicyDocument::revalidate()
{
    m_diagnostics = m_readDiagnostics;
    m_diagnostics += validatePolicy(m_policy, displayName(), m_readDiagnostics);
    std::stable_sort(
        m_diagnostics.begin(), m_diagnostics.end(), [](const Diagnostic &a, const Diagnostic &b) {
            if (a.severity != b.severity)
                return a.severity == Diagnostic::Severity::Error;
            return a.line < b.line;
        });
    emit diagnosticsChanged();
}

QString PolicyDocument::displayName() const
{
    return m_filePath.isEmpty() ? tr("untitled") : QFileInfo(m_filePath).fileName();
}

void PolicyDocument::setFilePath(const QString &path)
{
    if (path == m_filePath)
        return;
    m_filePath = path;
    emit filePathChanged(path);
}

} // namespace qs
