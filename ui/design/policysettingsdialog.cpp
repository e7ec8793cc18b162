#include "ui/design/policysettingsdialog.h"

#include "model/policy/keyselectorsyntax.h"
#include "model/policy/plans.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>

namespace qs {

PolicySettingsDialog::PolicySettingsDialog(const Policy &policy, QWidget *parent)
    : QDialog(parent), m_result(policy), m_name(new QLineEdit(policy.name)),
      m_description(new QPlainTextEdit(policy.description)), m_key(new QLineEdit),
      m_prefix(new QLineEdit(policy.redis.prefix.value_or(QString()))), m_status(new QSpinBox),
      m_storeError(new QComboBox), m_headers(new QComboBox), m_missingKey(new QComboBox),
      m_metrics(new QCheckBox(tr("Count allowed and denied per route and second in Redis"))),
      m_planNames(new QLineEdit(policy.plans.names.join(QStringLiteral(", ")))),
      m_planFrom(new QLineEdit(policy.plans.from ? policy.plans.from->toString() : QString())),
      m_planMap(new QLineEdit(policy.plans.mapFile.value_or(QString()))),
      m_planDefault(new QComboBox), m_problem(new QLabel),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel))
{
    setWindowTitle(tr("Policy settings"));
    for (auto [w, name] :
        {std::pair<QWidget *, const char *>{m_name, "name"}, {m_key, "defaultKey"},
            {m_status, "status"}, {m_storeError, "onStoreError"}, {m_prefix, "redisPrefix"},
            {m_metrics, "metrics"}, {m_missingKey, "missingKey"}, {m_planNames, "planNames"},
            {m_planFrom, "planFrom"}, {m_planMap, "planMap"}, {m_planDefault, "planDefault"}})
        w->setObjectName(QString::fromLatin1(name)); // for tests and accessibility tools
    auto *form = new QFormLayout(this);
    m_name->setToolTip(tr("Shown in exports, the Envoy domain and the RateLimit-Policy header."));
    form->addRow(tr("&Name:"), m_name);
    m_description->setObjectName(QStringLiteral("description"));
    m_description->setTabChangesFocus(true); // Tab goes on to the next field, as in the others
    m_description->setFixedHeight(m_description->fontMetrics().lineSpacing() * 4 + 12);
    m_description->setToolTip(tr("What the policy is for; several lines are kept as written."));
    form->addRow(tr("&Description:"), m_description);
    m_key->setText(policy.defaults.key ? formatKeySelectorList(*policy.defaults.key) : QString());
    m_key->setPlaceholderText(QStringLiteral("ip"));
    m_key->setToolTip(tr("What routes without their own key count by: ip, header:<Name>, "
                         "query:<name>, global; several separated by commas. Empty: ip."));
    form->addRow(tr("Default &key:"), m_key);
    for (const QString &mode : missingKeyModeNames())
        m_missingKey->addItem(mode);
    m_missingKey->setCurrentIndex(int(policy.defaults.missingKey.value_or(MissingKeyMode::Shared)));
    m_missingKey->setToolTip(
        tr("What routes do with a request that lacks a header or query key part: shared (one "
           "bucket for all such requests, cannot be escaped), ip (count by client address), "
           "deny (refuse), allow (do not limit). Routes may choose their own."));
    form->addRow(tr("&Without key:"), m_missingKey);
    m_status->setRange(400, 599);
    m_status->setValue(policy.defaults.effectiveStatus());
    m_status->setToolTip(tr("The status of a rejected request. 429 Too Many Requests is what "
                            "clients and their retry logic expect."));
    form->addRow(tr("Rejection &status:"), m_status);
    m_storeError->addItem(
        tr("allow: fail open, availability first"), int(limiter::StoreErrorPolicy::Allow));
    m_storeError->addItem(
        tr("deny: fail closed, protection first"), int(limiter::StoreErrorPolicy::Deny));
    m_storeError->setCurrentIndex(
        policy.defaults.effectiveOnStoreError() == limiter::StoreErrorPolicy::Deny);
    m_storeError->setToolTip(
        tr("When Redis cannot answer: allowing keeps the API up but "
           "unlimited; denying protects the upstream but fails every request."));
    form->addRow(tr("When Redis &fails:"), m_storeError);
    for (const auto style : {limiter::HeaderStyle::Draft, limiter::HeaderStyle::XRateLimit,
             limiter::HeaderStyle::Both, limiter::HeaderStyle::None})
        m_headers->addItem(headerStyleName(style), int(style));
    m_headers->setCurrentIndex(
        m_headers->findData(int(policy.defaults.headers.value_or(limiter::HeaderStyle::Draft))));
    m_headers->setToolTip(tr("draft: IETF RateLimit-Policy / RateLimit; x-ratelimit: the older "
                             "X-RateLimit-*; Retry-After is sent on every rejection anyway."));
    form->addRow(tr("&Headers:"), m_headers);
    m_prefix->setPlaceholderText(RedisSettings::defaultPrefix());
    m_prefix->setToolTip(tr("Redis keys are <prefix>:<route id>:<client key>."));
    form->addRow(tr("Redis &prefix:"), m_prefix);
    m_metrics->setChecked(policy.redis.metrics.value_or(false));
    m_metrics->setToolTip(tr("Costs one more Redis write per decision (docs/benchmarks.md)."));
    form->addRow(QString(), m_metrics);
    // Plans: who pays for what. Their numbers are set per limit, in the route's plan table.
    m_planNames->setPlaceholderText(tr("none: every client gets the same numbers"));
    m_planNames->setToolTip(
        tr("The plans, most restricted first, separated by commas (free, pro, enterprise). Each "
           "limit's numbers per plan are set in the route's plan table; a plan without numbers "
           "of its own gets the limit's."));
    form->addRow(tr("P&lans:"), m_planNames);
    m_planFrom->setPlaceholderText(QStringLiteral("header:X-Plan"));
    m_planFrom->setToolTip(
        tr("Where a request's plan is found: a header or query parameter holding the plan's "
           "name (header:X-Plan, set by your auth layer), or, with a map file, the part whose "
           "value the map gives a plan (header:X-Api-Key, or ip)."));
    form->addRow(tr("Plan fr&om:"), m_planFrom);
    m_planMap->setPlaceholderText(tr("none: the value is the plan's name"));
    m_planMap->setToolTip(
        tr("A file of \"value plan\" lines (an API key and its plan), relative to the policy. "
           "It is read in the background when set, and again when the policy is opened."));
    form->addRow(tr("Plan &map file:"), m_planMap);
    m_planDefault->setToolTip(
        tr("The plan of a request whose plan is missing or unknown. The safe default is the "
           "most restricted plan: a client that forgets its key must not get more."));
    form->addRow(tr("Default pl&an:"), m_planDefault);
    fillDefaultPlans();
    if (policy.plans.defaultPlan)
        m_planDefault->setCurrentIndex(
            std::max(0, m_planDefault->findData(*policy.plans.defaultPlan)));
    m_problem->setWordWrap(true);
    form->addRow(m_problem);
    form->addRow(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &PolicySettingsDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_key, &QLineEdit::textChanged, this, &PolicySettingsDialog::validate);
    connect(m_name, &QLineEdit::textChanged, this, &PolicySettingsDialog::validate);
    connect(m_planNames, &QLineEdit::textChanged, this, [this] {
        fillDefaultPlans();
        validate();
    });
    for (QLineEdit *e : {m_planFrom, m_planMap})
        connect(e, &QLineEdit::textChanged, this, &PolicySettingsDialog::validate);
    validate();
}

QStringList PolicySettingsDialog::planNames() const
{
    QStringList names;
    for (const QString &n : m_planNames->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!n.trimmed().isEmpty())
            names << n.trimmed();
    return names;
}

// The default plan's choices follow the names typed: the first plan (unset), or one named.
void PolicySettingsDialog::fillDefaultPlans()
{
    const QString current = m_planDefault->currentData().toString();
    const QSignalBlocker quiet(m_planDefault);
    m_planDefault->clear();
    const QStringList names = planNames();
    m_planDefault->addItem(
        names.isEmpty() ? tr("(no plans)") : tr("the first plan (%1)").arg(names.front()),
        QString());
    for (const QString &n : names)
        m_planDefault->addItem(n, n);
    m_planDefault->setCurrentIndex(std::max(0, m_planDefault->findData(current)));
    m_planDefault->setEnabled(!names.isEmpty());
}

QString PolicySettingsDialog::planProblem() const
{
    const QStringList names = planNames();
    const QString fromText = m_planFrom->text().trimmed();
    const QString map = m_planMap->text().trimmed();
    if (names.isEmpty()) {
        // No plans: routes must not have numbers for one.
        for (const Route &r : m_result.routes)
            for (const RouteLimit &l : r.limits)
                if (l.variesByPlan())
                    return tr("Route '%1' has numbers for plan '%2': remove them in its plan "
                              "table before removing the plans.")
                        .arg(r.id, l.plans.front().plan);
        return fromText.isEmpty() && map.isEmpty()
            ? QString()
            : tr("Plans: name the plans that 'Plan from' finds (free, pro, enterprise).");
    }
    if (names.size() > PlanSettings::kMaxPlans)
        return tr("Plans: %1 plans; at most %2.").arg(names.size()).arg(PlanSettings::kMaxPlans);
    for (qsizetype i = 0; i < names.size(); ++i) {
        if (!isValidLimitName(names[i]))
            return tr("Plans: '%1' must be 1-%2 letters, digits, '_', '.' or '-', starting with a "
                      "letter or digit.")
                .arg(names[i])
                .arg(RouteLimit::kMaxNameLength);
        if (names.indexOf(names[i]) != i)
            return tr("Plans: '%1' is listed twice.").arg(names[i]);
    }
    for (const Route &r : m_result.routes)
        for (const RouteLimit &l : r.limits)
            for (const PlanLimit &own : l.plans)
                if (!names.contains(own.plan))
                    return tr("Route '%1' has numbers for plan '%2': keep the plan, or remove "
                              "them in its plan table first.")
                        .arg(r.id, own.plan);
    if (fromText.isEmpty())
        return tr("Plan from: where is a request's plan found? header:X-Plan, or with a map "
                  "file header:X-Api-Key.");
    const auto from = parseKeySelector(fromText);
    if (!from)
        return tr("Plan from: %1").arg(from.error());
    if (from->kind == KeySelector::Kind::Global)
        return tr("Plan from: global is the same for every request; use a header, a query "
                  "parameter, or ip with a map file.");
    if (from->kind == KeySelector::Kind::Ip && map.isEmpty())
        return tr("Plan from: an address is not a plan's name; give a map file that maps "
                  "addresses to plans.");
    return {};
}

void PolicySettingsDialog::applyPlans(PlanSettings &plans) const
{
    const QStringList names = planNames();
    if (names.isEmpty()) {
        plans = PlanSettings{};
        return;
    }
    const QString map = m_planMap->text().trimmed();
    const QString defaultPlan = m_planDefault->currentData().toString();
    plans.names = names;
    plans.from = *parseKeySelector(m_planFrom->text().trimmed());
    plans.mapFile = map.isEmpty() ? std::nullopt : std::optional(map);
    plans.defaultPlan = defaultPlan.isEmpty() ? std::nullopt : std::optional(defaultPlan);
    plans.present = true;
    rememberField(plans.fieldOrder, QStringLiteral("names"));
    rememberField(plans.fieldOrder, QStringLiteral("from"));
    if (plans.defaultPlan)
        rememberField(plans.fieldOrder, QStringLiteral("default"));
    else
        plans.fieldOrder.removeAll(QStringLiteral("default"));
    if (plans.mapFile)
        for (const QString &field : {QStringLiteral("key"), QStringLiteral("map")})
            rememberField(plans.fromFieldOrder, field);
}

void PolicySettingsDialog::validate()
{
    QString problem;
    if (m_name->text().trimmed().isEmpty())
        problem = tr("The policy needs a name.");
    else if (const auto keys = parseKeySelectorList(m_key->text()); !keys.hasValue())
        problem = tr("Default key: %1").arg(keys.error());
    else
        problem = planProblem();
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}

void PolicySettingsDialog::accept()
{
    Policy &p = m_result;
    p.name = m_name->text().trimmed();
    p.description = m_description->toPlainText();
    if (!p.description.isEmpty())
        rememberField(p.fieldOrder, QStringLiteral("description"),
            p.fieldOrder.indexOf(QStringLiteral("name")) + 1);
    const auto keys = *parseKeySelectorList(m_key->text());
    Defaults &d = p.defaults;
    d.key = keys.isEmpty() ? std::nullopt : std::optional(keys);
    // Defaults the file did not have stay implicit unless changed.
    if (m_status->value() != Defaults::kDefaultStatus || d.status)
        d.status = m_status->value();
    const auto storeError = limiter::StoreErrorPolicy(m_storeError->currentData().toInt());
    if (storeError != limiter::StoreErrorPolicy::Allow || d.onStoreError)
        d.onStoreError = storeError;
    const auto missingKey = MissingKeyMode(m_missingKey->currentIndex());
    if (missingKey != MissingKeyMode::Shared || d.missingKey)
        d.missingKey = missingKey;
    const auto headers = limiter::HeaderStyle(m_headers->currentData().toInt());
    if (headers != limiter::HeaderStyle::Draft || d.headers)
        d.headers = headers;
    for (const auto &[field, set] : {std::pair{QStringLiteral("key"), d.key.has_value()},
             std::pair{QStringLiteral("missing_key"), d.missingKey.has_value()},
             std::pair{QStringLiteral("status"), d.status.has_value()},
             std::pair{QStringLiteral("on_store_error"), d.onStoreError.has_value()},
             std::pair{QStringLiteral("headers"), d.headers.has_value()}})
        if (set)
            rememberField(d.fieldOrder, field);
    if (d.key || d.missingKey || d.status || d.onStoreError || d.headers) {
        p.defaultsPresent = true;
        rememberField(p.fieldOrder, QStringLiteral("defaults"),
            p.fieldOrder.indexOf(QStringLiteral("routes")));
    }
    RedisSettings &r = p.redis;
    const QString prefix = m_prefix->text().trimmed();
    r.prefix = prefix.isEmpty() ? std::nullopt : std::optional(prefix);
    if (m_metrics->isChecked() || r.metrics)
        r.metrics = m_metrics->isChecked();
    if (r.prefix)
        rememberField(r.fieldOrder, QStringLiteral("prefix"));
    if (r.metrics)
        rememberField(r.fieldOrder, QStringLiteral("metrics"));
    if (r.prefix || r.metrics || !r.layouts.isEmpty()) {
        r.present = true;
        rememberField(
            p.fieldOrder, QStringLiteral("redis"), p.fieldOrder.indexOf(QStringLiteral("routes")));
    }
    applyPlans(p.plans);
    if (p.plans.present)
        rememberField(
            p.fieldOrder, QStringLiteral("plans"), p.fieldOrder.indexOf(QStringLiteral("routes")));
    else
        p.fieldOrder.removeAll(QStringLiteral("plans"));
    QDialog::accept();
}

} // namespace qs
