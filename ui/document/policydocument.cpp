#include "ui/document/policydocument.h"

#include "model/policy/policytextpatch.h"

#include "model/policy/policyreader.h"
#include "model/policy/policyvalidator.h"
#include "model/policy/policywriter.h"
#include "ui/document/policycommands.h"

#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace qs {

namespace {

// The findings of the text a save would write: the patcher's own check reading when it made
// one (the text is read once per edit, not twice), else a reading of the text; and those of the
// plan map file as it was read when the policy was opened (edits never read files).
Diagnostics readingOf(const TextPatch &patch, const QString &fileName, const Diagnostics &planMap)
{
    Diagnostics found
        = patch.diagnostics ? *patch.diagnostics : readPolicy(patch.text, fileName).diagnostics;
    for (Diagnostic &d : found)
        d.file = fileName;
    return found + planMap;
}

} // namespace

PolicyDocument::PolicyDocument(QObject *parent) : QObject(parent)
{
    connect(&m_undo, &QUndoStack::cleanChanged, this,
        [this](bool clean) { emit modifiedChanged(!clean); });
    m_validateLater.setSingleShot(true);
    m_validateLater.setInterval(300);
    connect(&m_validateLater, &QTimer::timeout, this, [this] {
        const PolicyFormat format
            = m_filePath.isEmpty() ? PolicyFormat::Yaml : formatForPath(m_filePath);
        const int generation = m_validationGeneration;
        m_validation.setProperty("generation", generation);
        m_validation.setFuture(
            QtConcurrent::run([savedText = m_savedText, saved = m_savedPolicy, policy = m_policy,
                                  savedFormat = m_savedFormat, format, name = displayName(),
                                  planMap = m_planMapDiagnostics] {
                return readingOf(!savedText.isEmpty() && format == savedFormat
                        ? patchPolicyText(savedText, saved, policy, format)
                        : TextPatch{writePolicy(policy, format), QString(), std::nullopt},
                    name, planMap);
            }));
    });
    connect(&m_validation, &QFutureWatcher<Diagnostics>::finished, this, [this] {
        if (m_validation.property("generation").toInt() == m_validationGeneration)
            applyDiagnostics(m_validation.result());
    });
    connect(&m_planMapRead, &QFutureWatcher<PlanMapReadResult>::finished, this, [this] {
        if (m_planMapRead.property("key").toString() != m_planMapKey)
            return; // read for names or a file the policy no longer has
        const PlanMapReadResult read = m_planMapRead.result();
        m_policy.plans.map = read.map;
        m_planMapDiagnostics = read.diagnostics;
        revalidate();
        emit planMapRead();
    });
    newPolicy();
}

QString PolicyDocument::planMapKey() const
{
    const PlanSettings &p = m_policy.plans;
    if (!p.fromMap() || p.mapFile->isEmpty() || p.names.isEmpty() || m_filePath.isEmpty())
        return {};
    return planMapPath(m_filePath, *p.mapFile) + QLatin1Char('\n') + p.names.join(QLatin1Char(','));
}

void PolicyDocument::refreshPlanMap()
{
    const QString key = planMapKey();
    if (key == m_planMapKey)
        return;
    // Until the file is read, no map: a stale one would put clients on the wrong plans.
    m_planMapKey = key;
    m_policy.plans.map.reset();
    m_planMapDiagnostics.clear();
    if (key.isEmpty())
        return;
    m_planMapRead.setProperty("key", key);
    m_planMapRead.setFuture(QtConcurrent::run(
        [path = planMapPath(m_filePath, *m_policy.plans.mapFile), names = m_policy.plans.names] {
            return readPlanMapFile(path, names);
        }));
}

PolicyDocument::~PolicyDocument()
{
    // QUndoStack's destructor clears the stack and emits cleanChanged; by then the window that
    // listens (our parent) is half destroyed. Nothing may reach it.
    m_undo.blockSignals(true);
    blockSignals(true);
    m_validation.waitForFinished(); // a worker reading a copy: let it end before we go
    m_planMapRead.waitForFinished();
}

Route makeNewRoute(const Policy &policy)
{
    Route r;
    int n = policy.routes.size() + 1;
    do
        r.id = QStringLiteral("route-%1").arg(n++);
    while (policy.route(r.id));
    r.path = QStringLiteral("/%1").arg(r.id);
    r.limit().algorithm = limiter::Algorithm::TokenBucket;
    r.limit().capacity = 10;
    r.limit().refill = RateValue{QStringLiteral("1/s"), {1, limiter::kMicrosPerSecond}};
    r.limit().fieldOrder
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
    m_savedText.clear(); // nothing on disk yet: the first save writes the whole file
    m_planMapDiagnostics.clear();
    m_planMapKey.clear();
    m_undo.clear();
    setFilePath(QString());
    revalidate();
    emit reset();
}

Expected<void> PolicyDocument::load(const QString &path)
{
    QByteArray text;
    // The plan map (up to 64 MB) is read in the background, below: not on the GUI thread.
    const PolicyReadResult r = readPolicyFile(path, &text, false);
    const bool nothingRead = r.policy.routes.isEmpty() && r.policy.name.isEmpty()
        && std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [](const Diagnostic &d) {
               return d.severity == Diagnostic::Severity::Error && d.path.isEmpty();
           });
    if (nothingRead)
        return r.diagnostics.isEmpty() ? tr("cannot read %1").arg(path)
                                       : r.diagnostics.first().toString();
    m_policy = r.policy;
    m_savedText = text;
    m_savedPolicy = r.policy;
    m_savedFormat = formatForPath(path);
    setFilePath(path);
    m_planMapDiagnostics.clear();
    m_planMapKey.clear();
    refreshPlanMap(); // planMapRead() when the map is in
    m_undo.clear();
    // Unedited, the text Save would write is the file itself: its reading is the validation.
    ++m_validationGeneration;
    m_validateLater.stop();
    Diagnostics found = r.diagnostics;
    for (Diagnostic &d : found)
        d.file = displayName();
    applyDiagnostics(std::move(found));
    emit reset();
    return {};
}

Expected<void> PolicyDocument::loadRecovered(const QString &copyPath, const QString &originalPath)
{
    if (Expected<void> loaded = load(copyPath); !loaded)
        return loaded;
    // Save edits the original's text, not the copy's: routes the original has (by id) keep
    // their text there.
    QByteArray originalText;
    const PolicyReadResult original
        = originalPath.isEmpty() ? PolicyReadResult{} : readPolicyFile(originalPath, &originalText);
    if (!originalText.isEmpty() && !hasErrors(original.diagnostics)) {
        for (Route &r : m_policy.routes) {
            r.origin.uid = 0; // the copy's own numbering means nothing in the original
            for (const Route &o : original.policy.routes)
                if (o.id == r.id)
                    r.origin.uid = o.origin.uid;
        }
        m_savedText = originalText;
        m_savedPolicy = original.policy;
        m_savedFormat = formatForPath(originalPath);
    } else {
        m_savedText.clear();
    }
    setFilePath(originalPath);
    refreshPlanMap();
    m_undo.resetClean(); // no state of the stack is what is on disk
    revalidate();
    emit modifiedChanged(true);
    return {};
}

Expected<void> PolicyDocument::save(const QString &path)
{
    const PolicyFormat format = formatForPath(path);
    const TextPatch patch = textToSave(format);
    const QByteArray &bytes = patch.text;
    m_lastSaveRewrite = patch.fallback;
    if (Expected<void> saved = saveTextFile(bytes, path); !saved)
        return saved;
    rememberSaved(bytes, format);
    setFilePath(path);
    refreshPlanMap(); // a new folder: the map's relative path may name another file
    m_undo.setClean();
    revalidate();
    return {};
}

void PolicyDocument::rememberSaved(const QByteArray &text, PolicyFormat format)
{
    // Routes written for the first time get an origin now, so that the next save keeps the
    // text this one gave them. Not an edit: nothing in the content changes.
    for (Route &r : m_policy.routes)
        if (!r.origin.uid)
            r.origin.uid = nextRouteUid();
    m_savedText = text;
    m_savedPolicy = m_policy;
    m_savedFormat = format;
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
    m_undo.push(new ReplaceRoutesCommand(this, {}, m_policy.routes, routes, text));
}

void PolicyDocument::setPolicyField(
    const Policy &after, const QString &text, const QString &mergeKey)
{
    if (after == m_policy)
        return;
    m_undo.push(new ReplacePolicyFieldsCommand(this, {}, m_policy, after, text, mergeKey));
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
    refreshPlanMap();
    revalidate();
    emit policyFieldsChanged();
}

Diagnostics PolicyDocument::diagnosticsOfRoute(qsizetype route) const
{
    Diagnostics out;
    for (const Diagnostic &d : m_diagnostics)
        if (d.route == route)
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

TextPatch PolicyDocument::textToSave(PolicyFormat format) const
{
    if (!m_savedText.isEmpty() && format == m_savedFormat)
        return patchPolicyText(m_savedText, m_savedPolicy, m_policy, format);
    return TextPatch{writePolicy(m_policy, format), QString(), std::nullopt};
}

// One validation for everything that shows problems: the text Save would write, read and
// validated exactly as `quotactl lint` reads the saved file. So the form, the diagnostics
// list, the status bar and Export agree with lint, a fixed value clears its message at once,
// and line numbers are those of that text (after adds, moves, recovery).
void PolicyDocument::revalidate()
{
    const PolicyFormat format
        = m_filePath.isEmpty() ? PolicyFormat::Yaml : formatForPath(m_filePath);
    // Reading a policy of thousands of routes takes a noticeable part of a second (docs/
    // benchmarks.md, "Route count"):
    // those are validated on a worker once typing pauses, the rest at once.
    constexpr qsizetype kValidateNowRoutes = 500;
    ++m_validationGeneration;
    if (m_policy.routes.size() <= kValidateNowRoutes) {
        m_validateLater.stop();
        applyDiagnostics(readingOf(textToSave(format), displayName(), m_planMapDiagnostics));
        return;
    }
    m_validateLater.start();
}

void PolicyDocument::applyDiagnostics(Diagnostics diagnostics)
{
    m_diagnostics = std::move(diagnostics);
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
