#include "ui/design/routeeditor.h"

#include "ui/design/limitlistbar.h"

#include "model/policy/keyselectorsyntax.h"
#include "model/policy/limitconversion.h"
#include "model/policy/limitfields.h"
#include "model/policy/pathpattern.h"
#include "model/policy/plans.h"
#include "model/policy/ratesyntax.h"
#include "model/policy/routeresolver.h"
#include "ui/design/limitvalueedit.h"
#include "ui/design/plantableview.h"
#include "ui/document/policydocument.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTimeZone>
#include <QVBoxLayout>

namespace qs {

namespace {

const QStringList kMethods{QStringLiteral("GET"), QStringLiteral("POST"), QStringLiteral("PUT"),
    QStringLiteral("PATCH"), QStringLiteral("DELETE"), QStringLiteral("HEAD"),
    QStringLiteral("OPTIONS")};

// The label and the trade-off each limit field's editor shows; which fields exist, their
// bounds and their order come from limitfields.h.
struct LimitFieldText {
    const char *name, *label, *tooltip;
};
const LimitFieldText kLimitFieldTexts[] = {
    {"capacity", QT_TRANSLATE_NOOP("qs::RouteEditor", "Ca&pacity:"),
        QT_TRANSLATE_NOOP("qs::RouteEditor",
            "The most requests a client can send at once after being idle. Larger: kinder to "
            "bursty clients, weaker protection against a sudden flood.")},
    {"refill", QT_TRANSLATE_NOOP("qs::RouteEditor", "&Refill:"),
        QT_TRANSLATE_NOOP("qs::RouteEditor",
            "Tokens added back over time: the long-run rate a client can sustain.")},
    {"rate", QT_TRANSLATE_NOOP("qs::RouteEditor", "Ra&te:"),
        QT_TRANSLATE_NOOP("qs::RouteEditor", "The sustained rate: one request per 1/rate.")},
    {"queue", QT_TRANSLATE_NOOP("qs::RouteEditor", "&Queue:"),
        QT_TRANSLATE_NOOP("qs::RouteEditor",
            "How many requests may wait (shape) or be absorbed (police) beyond the one in "
            "service. Larger queues mean longer delays in shape mode.")},
    {"mode", QT_TRANSLATE_NOOP("qs::RouteEditor", "Leak &mode:"),
        QT_TRANSLATE_NOOP("qs::RouteEditor",
            "Shape smooths traffic for the upstream but holds connections open; police "
            "answers at once. Most gateways can only police.")},
    {"limit", QT_TRANSLATE_NOOP("qs::RouteEditor", "&Limit:"),
        QT_TRANSLATE_NOOP("qs::RouteEditor", "Requests allowed per window.")},
    {"window", QT_TRANSLATE_NOOP("qs::RouteEditor", "&Window:"),
        QT_TRANSLATE_NOOP("qs::RouteEditor",
            "The window length. Long windows make quotas people can read on an invoice; "
            "short ones react faster.")},
    {"burst", QT_TRANSLATE_NOOP("qs::RouteEditor", "&Burst:"),
        QT_TRANSLATE_NOOP("qs::RouteEditor", "How many requests may arrive back to back.")},
    {"calendar", QT_TRANSLATE_NOOP("qs::RouteEditor", "Calen&dar:"),
        QT_TRANSLATE_NOOP("qs::RouteEditor",
            "Reset the count at local midnight, on Mondays, on the 1st or on January 1st: the "
            "quota an invoice states (\"10 000 a month\"). Like any fixed window, a client can "
            "spend it at the end of one month and again at the start of the next. Rolling: "
            "windows of the Window's length instead.")},
    {"time_zone", QT_TRANSLATE_NOOP("qs::RouteEditor", "Time &zone:"),
        QT_TRANSLATE_NOOP("qs::RouteEditor",
            "Whose midnight the calendar follows: an IANA name such as Europe/Berlin; empty is "
            "UTC. Days are 23 or 25 hours long where the clocks change. Gateways without time "
            "zones (Kong, envoyproxy/ratelimit) count in UTC: the export says what that moves.")},
};

const LimitFieldText &textOf(const LimitField &field)
{
    for (const LimitFieldText &t : kLimitFieldTexts)
        if (field.name == QLatin1String(t.name))
            return t;
    Q_UNREACHABLE();
}

void setTextKeepingCursor(QLineEdit *edit, const QString &text)
{
    if (edit->text() != text) {
        const QSignalBlocker block(edit);
        edit->setText(text);
    }
}

QSpinBox *makeSpin(int minimum, int maximum)
{
    auto *spin = new QSpinBox;
    spin->setRange(minimum, maximum);
    spin->setAccelerated(true);
    return spin;
}

} // namespace

RouteEditor::RouteEditor(PolicyDocument *doc, QWidget *parent) : QWidget(parent), m_doc(doc)
{
    build();
    connect(doc, &PolicyDocument::routeChanged, this, [this](qsizetype i) {
        if (i == m_index)
            load();
    });
    connect(doc, &PolicyDocument::diagnosticsChanged, this, &RouteEditor::showMessages);
    connect(doc, &PolicyDocument::diagnosticsChanged, this, &RouteEditor::updatePathTest);
    setRouteIndex(-1);
}

QWidget *RouteEditor::withMessage(const QString &field, QWidget *editor, const QString &tooltip)
{
    auto *row = new QWidget;
    auto *box = new QVBoxLayout(row);
    box->setContentsMargins(0, 0, 0, 0);
    box->setSpacing(2);
    box->addWidget(editor);
    auto *message = new QLabel;
    message->setWordWrap(true);
    message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    message->setVisible(false);
    box->addWidget(message);
    editor->setToolTip(tooltip);
    m_fields.insert(field, editor);
    m_rows.insert(field, row);
    m_messages.insert(field, message);
    return row;
}

QWidget *RouteEditor::makeLimitEditor(const LimitField &field)
{
    const QString name = field.name;
    const auto edited = [this, name] { onLimitEdited(name); };
    switch (field.kind) {
    case LimitField::Kind::Count: {
        // 0 is below every bound: the spin box shows an invalid or missing value there.
        QSpinBox *spin = makeSpin(0, int(field.max));
        connect(spin, &QSpinBox::valueChanged, this, edited);
        return spin;
    }
    case LimitField::Kind::Rate:
    case LimitField::Kind::Duration: {
        auto *edit = new LimitValueEdit(field.kind == LimitField::Kind::Rate
                ? LimitValueEdit::Kind::Rate
                : LimitValueEdit::Kind::Duration);
        connect(edit, &LimitValueEdit::edited, this, edited);
        return edit;
    }
    case LimitField::Kind::Calendar:
        m_calendar = new QComboBox;
        m_calendar->addItem(tr("rolling: windows of the Window's length"), -1);
        for (int i = 0; i < calendarUnitNames().size(); ++i)
            m_calendar->addItem(calendarUnitNames()[i], i);
        connect(m_calendar, &QComboBox::activated, this, edited);
        return m_calendar;
    case LimitField::Kind::TimeZone: {
        m_timeZone = new QComboBox;
        m_timeZone->setEditable(true);
        m_timeZone->setInsertPolicy(QComboBox::NoInsert);
        m_timeZone->lineEdit()->setPlaceholderText(QStringLiteral("UTC"));
        for (const std::string &zone : limiter::calendar::TimeZone::installedNames())
            m_timeZone->addItem(QString::fromStdString(zone));
        m_timeZone->setCurrentIndex(-1);
        connect(m_timeZone, &QComboBox::activated, this, edited);
        connect(m_timeZone->lineEdit(), &QLineEdit::editingFinished, this, edited);
        return m_timeZone;
    }
    case LimitField::Kind::LeakMode:
        m_leakMode = new QComboBox;
        m_leakMode->addItem(tr("police: reject what does not fit"), int(limiter::LeakMode::Police));
        m_leakMode->addItem(tr("shape: delay until its turn"), int(limiter::LeakMode::Shape));
        connect(m_leakMode, &QComboBox::activated, this, edited);
        return m_leakMode;
    }
    return nullptr;
}

void RouteEditor::buildLimitRows()
{
    for (const LimitField &field : limitFieldTable()) {
        const LimitFieldText &text = textOf(field);
        m_form->addRow(
            tr(text.label), withMessage(field.path(), makeLimitEditor(field), tr(text.tooltip)));
        if (field.kind == LimitField::Kind::TimeZone) {
            // Under the zone: when the quota next resets, so that the operator sees the zone's
            // midnight, the month's length and a DST day for what they are.
            m_nextResets = new QLabel;
            m_nextResets->setObjectName(QStringLiteral("nextResets"));
            m_nextResets->setWordWrap(true);
            m_nextResets->setTextInteractionFlags(Qt::TextSelectableByMouse);
            m_nextResets->setToolTip(tr("The next three times this quota starts again, in its "
                                        "time zone, from this computer's clock."));
            m_form->addRow(tr("Next resets:"), m_nextResets);
        }
    }
}

// The next three window starts of a calendar limit, in its zone's local time.
QString RouteEditor::nextResetsText(const LimitSpec &spec)
{
    if (!spec.calendar)
        return {};
    const auto config = toAlgorithmConfig(spec);
    const auto *fixed = config ? std::get_if<limiter::FixedWindowConfig>(&*config) : nullptr;
    if (!fixed || !fixed->calendar)
        return {};
    const QTimeZone zone(spec.timeZone.value_or(QStringLiteral("UTC")).toUtf8());
    QStringList resets;
    limiter::Micros t = QDateTime::currentMSecsSinceEpoch() * limiter::kMicrosPerMilli;
    for (int i = 0; i < 3; ++i) {
        t = fixed->windowAt(t).end;
        resets << QDateTime::fromMSecsSinceEpoch(t / limiter::kMicrosPerMilli, zone)
                      .toString(QStringLiteral("ddd d MMM yyyy HH:mm t"));
    }
    return resets.join(QStringLiteral(" · "));
}

void RouteEditor::build()
{
    m_form = new QFormLayout(this);
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_form->setRowWrapPolicy(QFormLayout::DontWrapRows);

    // Findings about the route as a whole or a field the form has no place for (an unknown
    // field in the file): above the fields, not under one that is fine.
    auto *routeMessage = new QLabel;
    routeMessage->setWordWrap(true);
    routeMessage->setTextInteractionFlags(Qt::TextSelectableByMouse);
    routeMessage->setVisible(false);
    m_form->addRow(routeMessage);
    m_messages.insert(QStringLiteral("route"), routeMessage);

    addMatchRows();
    addKeyRows();
    addLimitRows();
    connect(m_id, &QLineEdit::textEdited, this, &RouteEditor::onIdEdited);
    connect(m_description, &QLineEdit::textEdited, this, &RouteEditor::onDescriptionEdited);
    connect(m_path, &QLineEdit::textEdited, this, &RouteEditor::onPathEdited);
    connect(m_key, &QLineEdit::textEdited, this, &RouteEditor::onKeyEdited);
    connect(m_algorithm, &QComboBox::activated, this, &RouteEditor::onAlgorithmChosen);
    connect(m_cost, &QSpinBox::valueChanged, this, &RouteEditor::onCostEdited);
    connect(m_mode, &QComboBox::activated, this, &RouteEditor::onModeChosen);
    connect(m_missingKey, &QComboBox::activated, this, &RouteEditor::onMissingKeyChosen);
    // A row's label names the editor, not the widget that holds the editor and its message: a
    // label's mnemonic (Alt+K) moves the focus to its buddy only when the buddy takes focus.
    for (auto it = m_rows.cbegin(); it != m_rows.cend(); ++it)
        if (auto *label = qobject_cast<QLabel *>(m_form->labelForField(it.value())))
            if (label->buddy() == it.value())
                label->setBuddy(m_fields.value(it.key()));
}

// Id, description, methods, path and its tester.
void RouteEditor::addMatchRows()
{
    m_id = new QLineEdit;
    m_form->addRow(tr("&Id:"),
        withMessage(QStringLiteral("id"), m_id,
            tr("Unique name of the route: 1-64 letters, digits, '_', '.', '-'. It becomes zone, "
               "table and Redis key names in exported configs.")));
    m_description = new QLineEdit;
    m_description->setPlaceholderText(tr("Why this limit exists (optional)"));
    m_form->addRow(tr("Desc&ription:"),
        withMessage(QStringLiteral("description"), m_description,
            tr("Free text for the people who read the policy.")));

    auto *methods = new QWidget;
    auto *methodsLayout = new QGridLayout(methods); // two rows: fits a narrow editor column
    methodsLayout->setContentsMargins(0, 0, 0, 0);
    for (int i = 0; i < kMethods.size(); ++i) {
        auto *box = new QCheckBox(kMethods[i]);
        m_methods << box;
        methodsLayout->addWidget(box, i / 4, i % 4);
        connect(box, &QCheckBox::toggled, this, &RouteEditor::onMethodsEdited);
    }
    methodsLayout->setColumnStretch(4, 1);
    m_form->addRow(tr("Methods:"),
        withMessage(QStringLiteral("match.methods"), methods,
            tr("Which HTTP methods the route limits. None checked: every method.")));

    m_path = new QLineEdit;
    m_path->setPlaceholderText(QStringLiteral("/v1/orders/{id}"));
    m_form->addRow(tr("&Path:"),
        withMessage(QStringLiteral("match.path"), m_path,
            tr("Path pattern: literal segments, {name} or * for one segment, ** for any rest. "
               "When several routes match, the most specific wins.")));

    auto *tester = new QWidget;
    auto *testerLayout = new QHBoxLayout(tester);
    testerLayout->setContentsMargins(0, 0, 0, 0);
    m_pathTest = new QLineEdit;
    m_pathTest->setObjectName(QStringLiteral("pathTest"));
    m_pathTest->setToolTip(tr("Type a request path to see whether this route would limit it. "
                              "It starts as a path the route's pattern matches."));
    m_pathTestResult = new QLabel;
    m_pathTestResult->setWordWrap(true);
    testerLayout->addWidget(m_pathTest, 1);
    testerLayout->addWidget(m_pathTestResult, 2);
    m_form->addRow(tr("Does &this match?"), tester);
    connect(m_pathTest, &QLineEdit::textChanged, this, &RouteEditor::updatePathTest);
    connect(m_pathTest, &QLineEdit::textEdited, this,
        [this](const QString &text) { m_pathTestTyped = !text.isEmpty(); });
}

// The key and what a request without it gets.
void RouteEditor::addKeyRows()
{
    m_key = new QLineEdit;
    m_form->addRow(tr("&Key:"),
        withMessage(QStringLiteral("key"), m_key,
            tr("Who the limit counts: ip, header:<Name>, query:<name> or global; several, "
               "separated by commas, count each combination. Empty: the policy's default.")));

    m_missingKey = new QComboBox;
    m_missingKey->addItem(QString(), -1); // the policy's default; text set in load()
    m_missingKey->addItem(
        tr("shared: one bucket for all such requests"), int(MissingKeyMode::Shared));
    m_missingKey->addItem(tr("ip: count them by client address"), int(MissingKeyMode::Ip));
    m_missingKey->addItem(tr("deny: refuse them"), int(MissingKeyMode::Deny));
    m_missingKey->addItem(tr("allow: do not limit them"), int(MissingKeyMode::Allow));
    m_form->addRow(tr("&Without key:"),
        withMessage(QStringLiteral("missing_key"), m_missingKey,
            tr("What happens to a request that lacks the key's header or query parameter (or "
               "sends it empty). shared can never be escaped by leaving the key out; ip trusts "
               "the client address; deny suits keys every client must send; allow leaves such "
               "requests unlimited.")));
}

// The algorithm, its fields, the cost and the mode.
void RouteEditor::addLimitRows()
{
    // A route with several limits: the rows below edit its first; the others are kept as the
    // file has them and saved unchanged. Said, so that nobody takes the first for the whole.
    m_limitsNotice = new QLabel;
    m_limitsNotice->setObjectName(QStringLiteral("limitsNotice"));
    m_limitsNotice->setWordWrap(true);
    m_limitsNotice->setVisible(false);
    m_form->addRow(m_limitsNotice);
    m_limitBar = new LimitListBar;
    auto *limitsLabel = new QLabel(tr("Li&mits:"));
    limitsLabel->setBuddy(m_limitBar->picker());
    m_form->addRow(limitsLabel,
        withMessage(QStringLiteral("limits"), m_limitBar,
            tr("Several limits on one route: a burst per client and a daily quota per API key, "
               "say. Every enforced limit must admit a request; a denied request takes from "
               "none.")));
    addActions(m_limitBar->keyActions());
    connect(m_limitBar, &LimitListBar::picked, this, &RouteEditor::onLimitPicked);
    connect(m_limitBar, &LimitListBar::renamed, this, &RouteEditor::onLimitRenamed);
    connect(m_limitBar, &LimitListBar::addRequested, this, &RouteEditor::onAddLimit);
    connect(m_limitBar, &LimitListBar::duplicateRequested, this, &RouteEditor::onDuplicateLimit);
    connect(m_limitBar, &LimitListBar::removeRequested, this, &RouteEditor::onRemoveLimit);
    connect(m_limitBar, &LimitListBar::moveRequested, this, &RouteEditor::onMoveLimit);
    m_algorithm = new QComboBox;
    for (const limiter::Algorithm a : limiter::kAllAlgorithms)
        m_algorithm->addItem(algorithmDisplayName(a), int(a));
    m_form->addRow(tr("&Algorithm:"),
        withMessage(QStringLiteral("limit.algorithm"), m_algorithm,
            tr("Switching keeps the long-run rate and the burst where it can. The panel on the "
               "right explains the trade-offs.")));

    buildLimitRows();
    addOwnLimitRows();
    addPlanRows();

    m_cost = makeSpin(1, int(Route::kMaxCost));
    m_form->addRow(tr("&Cost:"),
        withMessage(QStringLiteral("cost"), m_cost,
            tr("Units one request takes from the quota: weigh expensive endpoints higher. "
               "Most gateways count requests only (the export warns).")));
    m_mode = new QComboBox;
    m_mode->addItem(tr("enforce: reject over the limit"), int(RouteMode::Enforce));
    m_mode->addItem(tr("shadow: count and report, never reject"), int(RouteMode::Shadow));
    m_form->addRow(tr("M&ode:"),
        withMessage(QStringLiteral("mode"), m_mode,
            tr("Shadow mode lets you watch a new limit in production before it bites.")));
}

// Each unset shows and means "the route's": a limit of a list overrides only what it says.
void RouteEditor::addOwnLimitRows()
{
    m_limitKey = new QLineEdit;
    m_form->addRow(tr("Limit's ow&n key:"),
        withMessage(QStringLiteral("limit.key"), m_limitKey,
            tr("Who this limit counts, when not the route's key: a burst per client address (ip) "
               "beside a daily quota per API key, say. Empty: the route's.")));
    connect(m_limitKey, &QLineEdit::textEdited, this, &RouteEditor::onLimitKeyEdited);

    m_limitMissingKey = new QComboBox;
    m_limitMissingKey->addItem(QString(), -1); // the route's; text set in load()
    for (const MissingKeyMode mode :
        {MissingKeyMode::Shared, MissingKeyMode::Ip, MissingKeyMode::Deny, MissingKeyMode::Allow})
        m_limitMissingKey->addItem(missingKeyModeName(mode), int(mode));
    m_form->addRow(tr("Limit's missin&g key:"),
        withMessage(QStringLiteral("limit.missing_key"), m_limitMissingKey,
            tr("What this limit does with a request that lacks its key; as Without key above.")));
    connect(m_limitMissingKey, &QComboBox::activated, this, &RouteEditor::onLimitMissingKeyChosen);

    // 0, below every cost, shows and means the route's.
    m_limitCost = makeSpin(0, int(Route::kMaxCost));
    m_form->addRow(tr("Limit's cost (&units):"),
        withMessage(QStringLiteral("limit.cost"), m_limitCost,
            tr("Units one request takes from this limit, when not the route's cost: a daily "
               "quota of 1000 units charged 10 for an export, say.")));
    connect(m_limitCost, &QSpinBox::valueChanged, this, &RouteEditor::onLimitCostEdited);

    m_limitMode = new QComboBox;
    m_limitMode->addItem(QString(), -1); // the route's; text set in load()
    m_limitMode->addItem(tr("enforce"), int(RouteMode::Enforce));
    m_limitMode->addItem(tr("shadow: count and report, never reject"), int(RouteMode::Shadow));
    // No mnemonic left that neither a tab, a menu nor another row uses: Tab from the cost.
    m_form->addRow(tr("Limit's mode:"),
        // Not "limit.mode": a leaky bucket's police|shape row has that name (limitfields.h).
        withMessage(QStringLiteral("limit.own_mode"), m_limitMode,
            tr("A shadow limit is a candidate: counted and reported beside the enforced ones, it "
               "never rejects, and like them keeps what it took only when the request is "
               "admitted.")));
    connect(m_limitMode, &QComboBox::activated, this, &RouteEditor::onLimitModeChosen);
}

const Route *RouteEditor::route() const
{
    const auto &routes = m_doc->policy().routes;
    return m_index >= 0 && m_index < routes.size() ? &routes[m_index] : nullptr;
}

void RouteEditor::setRouteIndex(qsizetype index)
{
    if (index != m_index)
        m_limit = 0;
    m_index = index;
    m_keyProblem.clear();
    m_limitKeyProblem.clear();
    setEnabled(route() != nullptr);
    // The tester starts at a path this route matches (unless the operator typed one).
    if (const Route *r = route(); r && !m_pathTestTyped)
        if (const auto pattern = PathPattern::parse(r->path); pattern.hasValue())
            m_pathTest->setText(pattern->example());
    load();
}

void RouteEditor::load()
{
    const Route *r = route();
    const Route empty;
    if (!r)
        r = &empty;
    setTextKeepingCursor(m_id, r->id);
    setTextKeepingCursor(m_description, r->description);
    for (QCheckBox *box : m_methods) {
        const QSignalBlocker block(box);
        box->setChecked(r->methods.contains(box->text()));
    }
    setTextKeepingCursor(m_path, r->path);
    if (m_keyProblem.isEmpty()) // keep what the operator is typing until it parses
        setTextKeepingCursor(m_key, r->key ? formatKeySelectorList(*r->key) : QString());
    m_key->setPlaceholderText(
        tr("policy default: %1").arg(formatKeySelectorList(m_doc->policy().keyOf(Route{}))));
    // What the file says but could not be read is shown as written, marked invalid: never a
    // made-up value that Save or a glance would take for the operator's.
    const QHash<QString, QString> &invalid = r->origin.invalidText;
    if (!r->key && invalid.contains(QStringLiteral("key")) && m_keyProblem.isEmpty())
        setTextKeepingCursor(m_key, invalid.value(QStringLiteral("key")));
    {
        const QSignalBlocker block(m_algorithm);
        const int unknown = m_algorithm->findData(-1);
        if (unknown >= 0)
            m_algorithm->removeItem(unknown);
        if (invalid.contains(limitKey(*r, QStringLiteral("algorithm")))) {
            m_algorithm->addItem(tr("%1 (unknown algorithm)")
                                     .arg(invalid.value(limitKey(*r, QStringLiteral("algorithm")))),
                -1);
            m_algorithm->setCurrentIndex(m_algorithm->count() - 1);
        } else {
            m_algorithm->setCurrentIndex(
                m_algorithm->findData(int(r->limits[limitIndex(*r)].spec.algorithm)));
        }
    }
    QStringList names;
    for (const RouteLimit &limit : r->limits)
        names << limit.name;
    m_limitBar->show(names, limitIndex(*r), r->writtenAsList());
    if (r->hasSeveralLimits())
        m_limitsNotice->setText(
            tr("<b>This route has %1 limits</b> (%2): a request is admitted only if every "
               "enforced one admits it. The fields below edit '%3'; Key, Cost and Mode are the "
               "route's, and the Limit's rows override them for '%3' alone.")
                .arg(r->limits.size())
                .arg(names.join(QStringLiteral(", ")).toHtmlEscaped(),
                    r->limits[limitIndex(*r)].name.toHtmlEscaped()));
    m_limitsNotice->setVisible(r->hasSeveralLimits());
    loadOwnLimitRows(*r);
    {
        const PlanSettings &plans = m_doc->policy().plans;
        m_rows.value(QStringLiteral("limit.plans"))->setVisible(!plans.names.isEmpty());
        m_form->labelForField(m_rows.value(QStringLiteral("limit.plans")))
            ->setVisible(!plans.names.isEmpty());
        if (!plans.names.isEmpty())
            m_planTable->show(*r, plans);
    }
    const LimitSpec &l = r->limits[limitIndex(*r)].spec;
    // Where the file's unreadable text of an editor's field is kept: "limit.capacity" is the
    // chosen limit's ("limits[1].capacity" in a list).
    const auto stored = [&](const QString &field) {
        return field.startsWith(QStringLiteral("limit."))
            ? limitKey(*r, field.mid(QStringLiteral("limit.").size()))
            : field;
    };
    const auto setSpin = [&](QSpinBox *spin, const std::optional<qint64> &v, const QString &field) {
        const QSignalBlocker block(spin);
        // A spin box cannot hold "-5" or "ten": its special text, shown at the minimum, can.
        const QString raw = v ? QString() : invalid.value(stored(field));
        spin->setSpecialValueText(raw.isEmpty() ? QString() : tr("%1 (invalid)").arg(raw));
        spin->setValue(v ? int(*v) : spin->minimum());
    };
    const auto written = [&](const auto &value, const QString &field) {
        return value ? value->text : invalid.value(stored(field));
    };
    for (const LimitField &field : limitFieldTable()) {
        QWidget *editor = m_fields.value(field.path());
        if (field.kind == LimitField::Kind::Count)
            setSpin(static_cast<QSpinBox *>(editor), l.*field.count, field.path());
        else if (field.kind == LimitField::Kind::Rate)
            static_cast<LimitValueEdit *>(editor)->setText(written(l.*field.rate, field.path()));
        else if (field.kind == LimitField::Kind::Duration)
            static_cast<LimitValueEdit *>(editor)->setText(
                written(l.*field.duration, field.path()));
    }
    {
        const QSignalBlocker block(m_leakMode);
        m_leakMode->setCurrentIndex(
            l.mode.value_or(limiter::LeakMode::Police) == limiter::LeakMode::Shape);
    }
    {
        const QSignalBlocker calendar(m_calendar), zone(m_timeZone);
        m_calendar->setCurrentIndex(l.calendar ? int(*l.calendar) + 1 : 0);
        m_timeZone->setEditText(
            l.timeZone.value_or(invalid.value(stored(QStringLiteral("limit.time_zone")))));
        m_nextResets->setText(nextResetsText(l));
    }
    setSpin(m_cost,
        r->cost || !invalid.contains(QStringLiteral("cost")) ? std::optional(r->effectiveCost())
                                                             : std::nullopt,
        QStringLiteral("cost"));
    {
        const QSignalBlocker block(m_mode);
        m_mode->setCurrentIndex(r->effectiveMode() == RouteMode::Shadow);
    }
    {
        const QSignalBlocker block(m_missingKey);
        const Policy &policy = m_doc->policy();
        m_missingKey->setItemText(0,
            tr("policy default (%1)")
                .arg(missingKeyModeName(
                    policy.defaults.missingKey.value_or(MissingKeyMode::Shared))));
        m_missingKey->setCurrentIndex(r->missingKey ? int(*r->missingKey) + 1 : 0);
        m_missingKey->setEnabled(keyCanBeMissing(policy.keyOf(*r)));
    }
    updateParameterRows();
    showMessages();
    updatePathTest();
}

void RouteEditor::updateParameterRows()
{
    const auto algorithm = limiter::Algorithm(m_algorithm->currentData().toInt());
    // A calendar replaces the window's length; the zone matters only with a calendar.
    const bool calendar = m_calendar->currentData().toInt() >= 0;
    for (const LimitField &field : limitFieldTable()) {
        bool shown = field.appliesTo(algorithm);
        if (field.kind == LimitField::Kind::TimeZone) {
            shown = shown && calendar;
            m_form->setRowVisible(m_nextResets, shown);
        } else if (field.kind == LimitField::Kind::Duration
            && algorithm == limiter::Algorithm::FixedWindow)
            shown = !calendar;
        m_form->setRowVisible(m_rows.value(field.path()), shown);
    }
}

void RouteEditor::showMessages()
{
    QHash<QString, QStringList> errors, warnings;
    if (route()) {
        for (const Diagnostic &d : m_doc->diagnosticsOfRoute(m_index)) {
            QString field = d.fieldInRoute();
            QString message = d.message;
            // A limit of a list: the chosen one's fields are the editors'; another's messages
            // go above the form, with its name.
            static const QRegularExpression item(
                QStringLiteral("^limits\\[(\\d+)\\](?:\\.(.*))?$"));
            if (const auto m = item.match(field); m.hasMatch()) {
                const int index = m.captured(1).toInt();
                if (index == limitIndex(*route())) {
                    field = QStringLiteral("limit.")
                        + (m.captured(2).isEmpty() ? QStringLiteral("algorithm") : m.captured(2));
                    // `mode` is the leaky bucket's police|shape, or else the limit's own mode.
                    if (field == QLatin1String("limit.mode")
                        && route()->limits[index].spec.algorithm != limiter::Algorithm::LeakyBucket)
                        field = QStringLiteral("limit.own_mode");
                } else {
                    message
                        = tr("limit '%1': %2").arg(route()->limits.value(index).name, d.message);
                    field = QStringLiteral("route");
                }
            }
            if (field.isEmpty())
                field = QStringLiteral("id");
            else if (field == QLatin1String("limit") || field == QLatin1String("match"))
                field = field == QLatin1String("limit") ? QStringLiteral("limit.algorithm")
                                                        : QStringLiteral("match.path");
            while (!m_messages.contains(field) && field.contains(QLatin1Char('.')))
                field.truncate(field.lastIndexOf(QLatin1Char('.')));
            if (!m_messages.contains(field)) // an unknown field, or the route as a whole
                field = QStringLiteral("route");
            (d.severity == Diagnostic::Severity::Error ? errors : warnings)[field] << message;
        }
    }
    if (!m_keyProblem.isEmpty())
        errors[QStringLiteral("key")].prepend(m_keyProblem);
    if (!m_limitKeyProblem.isEmpty())
        errors[QStringLiteral("limit.key")].prepend(m_limitKeyProblem);
    if (!m_planProblem.isEmpty())
        errors[QStringLiteral("limit.plans")].prepend(m_planProblem);
    const QColor errorColor = palette().color(QPalette::Active, QPalette::Text).lightness() > 128
        ? QColor(0xff, 0x80, 0x80)
        : QColor(0xb0, 0x20, 0x20);
    const QColor warningColor = palette().color(QPalette::Active, QPalette::Text).lightness() > 128
        ? QColor(0xf0, 0xc0, 0x60)
        : QColor(0x8a, 0x5a, 0x00);
    for (auto it = m_messages.begin(); it != m_messages.end(); ++it) {
        const QStringList e = errors.value(it.key()), w = warnings.value(it.key());
        QLabel *label = it.value();
        label->setVisible(!e.isEmpty() || !w.isEmpty());
        const bool isError = !e.isEmpty();
        label->setText((isError ? e : w).join(QLatin1Char('\n')));
        QPalette p = label->palette();
        p.setColor(QPalette::WindowText, isError ? errorColor : warningColor);
        label->setPalette(p);
        label->setAccessibleDescription(isError ? tr("error") : tr("warning"));
    }
}

void RouteEditor::updatePathTest()
{
    const Route *r = route();
    if (!r) {
        m_pathTestResult->clear();
        return;
    }
    const auto parsed = PathPattern::parse(r->path);
    if (!parsed.hasValue()) {
        m_pathTestResult->setText(tr("(fix the pattern first)"));
        return;
    }
    const QString target = m_pathTest->text();
    const bool matches = parsed->matches(normalizeRequestPath(target));
    if (!matches) {
        m_pathTestResult->setText(tr("✗ not limited by this route"));
        return;
    }
    const QString method = r->methods.isEmpty() ? QStringLiteral("GET") : r->methods.first();
    const auto winner = RouteResolver(m_doc->policy()).resolve(method, target);
    if (winner && *winner != m_index)
        m_pathTestResult->setText(tr("matches, but route '%1' is more specific and takes it")
                                      .arg(m_doc->policy().routes[*winner].id));
    else
        m_pathTestResult->setText(tr("✓ %1 %2 is limited by this route").arg(method, target));
}

bool RouteEditor::focusField(const QString &fieldInRoute)
{
    if (!route())
        return false;
    QString field = fieldInRoute;
    static const QRegularExpression item(QStringLiteral("^limits\\[(\\d+)\\](?:\\.(.*))?$"));
    if (const auto m = item.match(field); m.hasMatch()) {
        onLimitPicked(m.captured(1).toInt());
        field = QStringLiteral("limit.") + m.captured(2);
    }
    while (!m_fields.contains(field) && field.contains(QLatin1Char('.')))
        field.truncate(field.lastIndexOf(QLatin1Char('.')));
    if (field == QLatin1String("limit"))
        field = QStringLiteral("limit.algorithm");
    QWidget *w = m_fields.value(field, m_id);
    w->setFocus(Qt::OtherFocusReason);
    return true;
}

void RouteEditor::commit(const Route &after, const QString &text, const QString &field)
{
    m_doc->replaceRoute(
        m_index, after, text, routePath(m_index, field)); // the merge key: one field of one route
}

void RouteEditor::onIdEdited()
{
    edit(tr("Edit route id"), QStringLiteral("id"), [&](Route &r) { r.id = m_id->text(); });
}

void RouteEditor::onDescriptionEdited()
{
    edit(tr("Edit description"), QStringLiteral("description"), [&](Route &r) {
        r.description = m_description->text();
        rememberField(r.fieldOrder, QStringLiteral("description"), 1); // right after the id
    });
}

void RouteEditor::onMethodsEdited()
{
    // Each click is its own step: no merge key.
    edit(tr("Change methods"), QString(), [&](Route &r) {
        r.methods.clear();
        for (QCheckBox *box : m_methods)
            if (box->isChecked())
                r.methods << box->text();
        rememberField(r.matchFieldOrder, QStringLiteral("methods"), 0);
    });
}

void RouteEditor::onPathEdited()
{
    edit(tr("Edit path"), QStringLiteral("match.path"), [&](Route &r) { r.path = m_path->text(); });
}

void RouteEditor::onKeyEdited()
{
    const Route *r = route();
    if (!r)
        return;
    Route after = *r;
    after.origin.invalidText.remove(QStringLiteral("key"));
    m_keyProblem.clear();
    const QString text = m_key->text().trimmed();
    if (text.isEmpty()) {
        after.key.reset();
    } else {
        const auto parsed = parseKeySelectorList(text);
        if (!parsed) {
            m_keyProblem = parsed.error();
            showMessages(); // not committed: the file can only hold valid selectors
            return;
        }
        after.key = *parsed;
        if (after.key->isEmpty()) // only commas: as good as empty
            after.key.reset();
        else // before the limit, where it reads best (at the end when there is none)
            rememberField(after.fieldOrder, QStringLiteral("key"),
                after.fieldOrder.indexOf(QStringLiteral("limit")));
    }
    commit(after, tr("Edit key"), QStringLiteral("key"));
    showMessages();
}

void RouteEditor::onAlgorithmChosen()
{
    if (m_algorithm->currentData().toInt() < 0)
        return; // the file's unknown algorithm, chosen again: nothing to do
    const auto algorithm = limiter::Algorithm(m_algorithm->currentData().toInt());
    edit(tr("Switch to %1").arg(algorithmDisplayName(algorithm)), QString(), [&](Route &r) {
        RouteLimit &limit = r.limits[limitIndex(r)];
        LimitSpec spec = switchAlgorithm(limit.spec, algorithm);
        if (r.writtenAsList())
            rememberField(spec.fieldOrder, QStringLiteral("name"), 0);
        setLimitSpec(limit, spec); // its plans' numbers follow
        r.origin.invalidText.remove(limitKey(r, QStringLiteral("algorithm")));
    });
    emit algorithmChanged(algorithm);
}

void RouteEditor::onLimitEdited(const QString &field)
{
    edit(tr("Edit %1").arg(field), limitKey(*route(), field), [&](Route &r) {
        r.origin.invalidText.remove(limitKey(r, field));
        LimitSpec &l = r.limits[limitIndex(r)].spec;
        const LimitField &f = *limitField(field);
        QWidget *editor = m_fields.value(f.path());
        switch (f.kind) {
        case LimitField::Kind::Count:
            l.*f.count = static_cast<QSpinBox *>(editor)->value();
            break;
        case LimitField::Kind::Rate: {
            const auto *edit = static_cast<LimitValueEdit *>(editor);
            l.*f.rate = RateValue{edit->text(), *edit->rate()};
            break;
        }
        case LimitField::Kind::Duration: {
            const auto *edit = static_cast<LimitValueEdit *>(editor);
            l.*f.duration = DurationValue{edit->text(), *edit->duration()};
            break;
        }
        case LimitField::Kind::LeakMode:
            l.mode = limiter::LeakMode(m_leakMode->currentData().toInt());
            break;
        case LimitField::Kind::Calendar:
            setCalendar(l, m_calendar->currentData().toInt());
            return;
        case LimitField::Kind::TimeZone: {
            const QString zone = m_timeZone->currentText().trimmed();
            if (zone.isEmpty() || zone == QLatin1String("UTC")) {
                l.timeZone.reset();
                l.fieldOrder.removeAll(field);
                return;
            }
            l.timeZone = zone;
            break;
        }
        }
        rememberField(l.fieldOrder, field);
    });
}

// A calendar unit (index into calendarUnitNames) or -1 for rolling windows: the calendar and
// the window's length exclude each other, so choosing one removes the other from the limit.
void RouteEditor::setCalendar(LimitSpec &l, int unit)
{
    const QString calendar = QStringLiteral("calendar"), window = QStringLiteral("window");
    if (unit < 0) {
        if (l.calendar && !l.window) {
            const limiter::Micros length = limiter::nominalLength(*l.calendar);
            l.window = DurationValue{formatDuration(length), length};
            l.fieldOrder.replace(l.fieldOrder.indexOf(calendar), window);
        }
        l.calendar.reset();
        l.timeZone.reset();
        l.fieldOrder.removeAll(calendar);
        l.fieldOrder.removeAll(QStringLiteral("time_zone"));
        return;
    }
    l.calendar = limiter::CalendarUnit(unit);
    if (const qsizetype at = l.fieldOrder.indexOf(window); at >= 0)
        l.fieldOrder.replace(at, calendar);
    l.window.reset();
    rememberField(l.fieldOrder, calendar);
}

void RouteEditor::onCostEdited()
{
    edit(tr("Edit cost"), QStringLiteral("cost"), [&](Route &r) {
        r.origin.invalidText.remove(QStringLiteral("cost"));
        r.cost = m_cost->value();
        rememberField(r.fieldOrder, QStringLiteral("cost"));
    });
}

void RouteEditor::onModeChosen()
{
    edit(tr("Change mode"), QString(), [&](Route &r) {
        r.mode = RouteMode(m_mode->currentData().toInt());
        rememberField(r.fieldOrder, QStringLiteral("mode"));
    });
}

void RouteEditor::onMissingKeyChosen()
{
    edit(tr("Change missing key"), QString(), [&](Route &r) {
        const int mode = m_missingKey->currentData().toInt();
        if (mode < 0) {
            r.missingKey.reset();
            r.fieldOrder.removeAll(QStringLiteral("missing_key"));
            return;
        }
        r.missingKey = MissingKeyMode(mode);
        // Beside the key it qualifies, as a person would write it.
        const qsizetype key = r.fieldOrder.indexOf(QStringLiteral("key"));
        rememberField(r.fieldOrder, QStringLiteral("missing_key"),
            key >= 0 ? key + 1 : r.fieldOrder.indexOf(QStringLiteral("limit")));
    });
}

void RouteEditor::addPlanRows()
{
    m_planTable = new PlanTableView;
    m_form->addRow(tr("Plan num&bers:"),
        withMessage(QStringLiteral("limit.plans"), m_planTable, m_planTable->toolTip()));
    connect(m_planTable, &PlanTableView::cellEdited, this, &RouteEditor::onPlanCellEdited);
}

// A cell of the plan table: the plan's numbers for that limit, `unlimited`, or empty for the
// limit's own. Text that does not parse is not committed: the cell goes back and says why.
void RouteEditor::onPlanCellEdited(const QString &plan, int limit, const QString &text)
{
    const Route *r = route();
    if (!r || limit < 0 || limit >= r->limits.size())
        return;
    const auto parsed = parsePlanCell(text, r->limits[limit], plan);
    if (!parsed) {
        m_planProblem = tr("plan %1 of %2: %3").arg(plan, r->limits[limit].name, parsed.error());
        load();
        return;
    }
    m_planProblem.clear();
    const QString name = r->limits[limit].name;
    edit(tr("Edit plan %1 of %2").arg(plan, name), QString(), [&](Route &after) {
        RouteLimit &l = after.limits[limit];
        const auto at = std::find_if(
            l.plans.begin(), l.plans.end(), [&](const PlanLimit &p) { return p.plan == plan; });
        if (!*parsed) {
            if (at != l.plans.end())
                l.plans.erase(at);
        } else if (at != l.plans.end()) {
            *at = **parsed;
        } else {
            l.plans.append(**parsed);
        }
        // The limit's map gains or loses its `plans` field (written last when new).
        if (l.plans.isEmpty())
            l.spec.fieldOrder.removeAll(QStringLiteral("plans"));
        else
            rememberField(l.spec.fieldOrder, QStringLiteral("plans"));
    });
}

void RouteEditor::loadOwnLimitRows(const Route &r)
{
    // Only a list has items to write them in: a route's only `limit:` uses the route's rows.
    const bool shown = r.writtenAsList();
    for (const char *field : {"limit.key", "limit.missing_key", "limit.cost", "limit.own_mode"})
        m_form->setRowVisible(m_rows.value(QLatin1String(field)), shown);
    const RouteLimit &limit = r.limits[limitIndex(r)];
    const Policy &policy = m_doc->policy();
    const QHash<QString, QString> &invalid = r.origin.invalidText;
    if (m_limitKeyProblem.isEmpty()) {
        const QString written = invalid.value(limitKey(r, QStringLiteral("key")));
        setTextKeepingCursor(m_limitKey, limit.key ? formatKeySelectorList(*limit.key) : written);
    }
    m_limitKey->setPlaceholderText(tr("route's: %1").arg(formatKeySelectorList(policy.keyOf(r))));
    {
        const QSignalBlocker block(m_limitMissingKey);
        m_limitMissingKey->setItemText(0,
            tr("route's (%1)")
                .arg(missingKeyModeName(r.missingKey.value_or(
                    policy.defaults.missingKey.value_or(MissingKeyMode::Shared)))));
        m_limitMissingKey->setCurrentIndex(
            limit.missingKey ? m_limitMissingKey->findData(int(*limit.missingKey)) : 0);
        m_limitMissingKey->setEnabled(keyCanBeMissing(policy.keyOf(r, limit)));
    }
    {
        const QSignalBlocker block(m_limitCost);
        m_limitCost->setSpecialValueText(tr("route's (%1)").arg(r.effectiveCost()));
        m_limitCost->setValue(limit.cost ? int(*limit.cost) : 0);
    }
    {
        const QSignalBlocker block(m_limitMode);
        m_limitMode->setItemText(0, tr("route's (%1)").arg(routeModeName(r.effectiveMode())));
        m_limitMode->setCurrentIndex(limit.mode ? m_limitMode->findData(int(*limit.mode)) : 0);
    }
}

// A limit's own field goes after its name and the own fields written before it in the order
// the format lists them (key, missing_key, cost), where a reader looks for what sets it apart.
static void rememberOwnField(RouteLimit &limit, const QString &field)
{
    static const QStringList order{QStringLiteral("name"), QStringLiteral("key"),
        QStringLiteral("missing_key"), QStringLiteral("cost")};
    qsizetype at = 0;
    for (const QString &before : order) {
        if (before == field)
            break;
        if (const qsizetype i = limit.spec.fieldOrder.indexOf(before); i >= 0)
            at = std::max(at, i + 1);
    }
    rememberField(limit.spec.fieldOrder, field, at);
}

void RouteEditor::onLimitKeyEdited()
{
    const Route *r = route();
    if (!r)
        return;
    Route after = *r;
    RouteLimit &limit = after.limits[limitIndex(after)];
    after.origin.invalidText.remove(limitKey(after, QStringLiteral("key")));
    m_limitKeyProblem.clear();
    const QString text = m_limitKey->text().trimmed();
    const auto parsed = parseKeySelectorList(text);
    if (!text.isEmpty() && !parsed) {
        m_limitKeyProblem = parsed.error();
        showMessages(); // not committed: the file can only hold valid selectors
        return;
    }
    if (text.isEmpty() || parsed->isEmpty()) {
        limit.key.reset();
        limit.spec.fieldOrder.removeAll(QStringLiteral("key"));
    } else {
        limit.key = *parsed;
        rememberOwnField(limit, QStringLiteral("key"));
    }
    commit(after, tr("Edit limit's key"), limitKey(after, QStringLiteral("key")));
    showMessages();
}

void RouteEditor::onLimitMissingKeyChosen()
{
    edit(tr("Change limit's missing key"), QString(), [&](Route &r) {
        RouteLimit &limit = r.limits[limitIndex(r)];
        const int mode = m_limitMissingKey->currentData().toInt();
        if (mode < 0) {
            limit.missingKey.reset();
            limit.spec.fieldOrder.removeAll(QStringLiteral("missing_key"));
            return;
        }
        limit.missingKey = MissingKeyMode(mode);
        rememberOwnField(limit, QStringLiteral("missing_key"));
    });
}

void RouteEditor::onLimitCostEdited()
{
    edit(tr("Edit limit's cost"), limitKey(*route(), QStringLiteral("cost")), [&](Route &r) {
        RouteLimit &limit = r.limits[limitIndex(r)];
        r.origin.invalidText.remove(limitKey(r, QStringLiteral("cost")));
        if (m_limitCost->value() == 0) {
            limit.cost.reset();
            limit.spec.fieldOrder.removeAll(QStringLiteral("cost"));
            return;
        }
        limit.cost = m_limitCost->value();
        rememberOwnField(limit, QStringLiteral("cost"));
    });
}

void RouteEditor::onLimitModeChosen()
{
    edit(tr("Change limit's mode"), QString(), [&](Route &r) {
        RouteLimit &limit = r.limits[limitIndex(r)];
        const int mode = m_limitMode->currentData().toInt();
        // A leaky bucket's own `mode` (police|shape) shares the field: it stays in the order.
        const bool leakModeWritten = limit.spec.mode.has_value();
        if (mode < 0) {
            limit.mode.reset();
            if (!leakModeWritten)
                limit.spec.fieldOrder.removeAll(QStringLiteral("mode"));
            return;
        }
        limit.mode = RouteMode(mode);
        if (!leakModeWritten)
            rememberField(limit.spec.fieldOrder, QStringLiteral("mode"));
    });
}

int RouteEditor::limitIndex(const Route &r) const
{
    return std::clamp(m_limit, 0, int(r.limits.size()) - 1);
}

QString RouteEditor::limitKey(const Route &r, const QString &field) const
{
    return r.limitPath(limitIndex(r)) + QLatin1Char('.') + field;
}

void RouteEditor::onLimitPicked(int index)
{
    if (index < 0 || index == m_limit)
        return;
    m_limit = index;
    m_limitKeyProblem.clear();
    load();
    emit limitPicked();
}

void RouteEditor::onLimitRenamed(const QString &name)
{
    edit(tr("Rename limit"), limitKey(*route(), QStringLiteral("name")), [&](Route &r) {
        RouteLimit &limit = r.limits[limitIndex(r)];
        limit.name = name;
        rememberField(limit.spec.fieldOrder, QStringLiteral("name"), 0);
    });
}

namespace {

// `base`, or base2, base3 … : a name no limit of the route has.
QString unusedLimitName(const Route &r, const QString &base)
{
    QString name = base;
    for (int n = 2; r.findLimit(name); ++n)
        name = base + QString::number(n);
    return name;
}

// A route's limits are named once they are a list: the first keeps `default` unless renamed.
void nameForList(Route &r)
{
    for (RouteLimit &l : r.limits)
        rememberField(l.spec.fieldOrder, QStringLiteral("name"), 0);
}

} // namespace

void RouteEditor::onAddLimit()
{
    const Route *current = route();
    if (!current || current->limits.size() >= RouteLimit::kMaxLimits)
        return;
    m_limit = int(current->limits.size());
    edit(tr("Add limit"), QString(), [&](Route &r) {
        RouteLimit added;
        added.name = unusedLimitName(r, QStringLiteral("limit"));
        added.spec.algorithm = limiter::Algorithm::FixedWindow;
        added.spec.limit = 1000;
        added.spec.window = DurationValue{QStringLiteral("1d"), limiter::kMicrosPerDay};
        added.spec.fieldOrder = {QStringLiteral("name"), QStringLiteral("algorithm"),
            QStringLiteral("limit"), QStringLiteral("window")};
        r.limits.append(added);
        nameForList(r);
    });
}

void RouteEditor::onDuplicateLimit()
{
    const Route *current = route();
    if (!current || current->limits.size() >= RouteLimit::kMaxLimits)
        return;
    const int at = limitIndex(*current);
    m_limit = at + 1;
    edit(tr("Duplicate limit"), QString(), [&](Route &r) {
        RouteLimit copy = r.limits[at];
        copy.name = unusedLimitName(r, copy.name + QStringLiteral("-copy"));
        r.limits.insert(at + 1, copy);
        nameForList(r);
    });
}

void RouteEditor::onRemoveLimit()
{
    const Route *current = route();
    if (!current || current->limits.size() < 2)
        return;
    const int at = limitIndex(*current);
    m_limit = std::max(0, at - 1);
    edit(tr("Remove limit"), QString(), [&](Route &r) { r.limits.removeAt(at); });
}

void RouteEditor::onMoveLimit(int by)
{
    const Route *current = route();
    const int at = current ? limitIndex(*current) : 0;
    if (!current || at + by < 0 || at + by >= current->limits.size())
        return;
    m_limit = at + by;
    edit(tr("Move limit"), QString(), [&](Route &r) { r.limits.swapItemsAt(at, at + by); });
}

} // namespace qs
