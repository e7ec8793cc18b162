#include "ui/design/policysettingsdialog.h"

#include "model/policy/keyselectorsyntax.h"

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
      m_problem(new QLabel),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel))
{
    setWindowTitle(tr("Policy settings"));
    for (auto [w, name] : {std::pair<QWidget *, const char *>{m_name, "name"},
             {m_key, "defaultKey"}, {m_status, "status"}, {m_storeError, "onStoreError"},
             {m_prefix, "redisPrefix"}, {m_metrics, "metrics"}, {m_missingKey, "missingKey"}})
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
    m_problem->setWordWrap(true);
    form->addRow(m_problem);
    form->addRow(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &PolicySettingsDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_key, &QLineEdit::textChanged, this, &PolicySettingsDialog::validate);
    connect(m_name, &QLineEdit::textChanged, this, &PolicySettingsDialog::validate);
    validate();
}

void PolicySettingsDialog::validate()
{
    QString problem;
    if (m_name->text().trimmed().isEmpty())
        problem = tr("The policy needs a name.");
    else if (const auto keys = parseKeySelectorList(m_key->text()); !keys.hasValue())
        problem = tr("Default key: %1").arg(keys.error());
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
    QDialog::accept();
}

} // namespace qs
