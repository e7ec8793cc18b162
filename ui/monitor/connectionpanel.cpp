#include "ui/monitor/connectionpanel.h"

#include "limiter/redis/redisaddress.h"

#include "ui/common/icons.h"
#include "ui/monitor/passwordstore.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

namespace qs {

namespace {

const QString kProfiles = QStringLiteral("monitor/profiles");

QString settingsGroup(const QString &profile)
{
    // QSettings treats '/' as a group separator: keep the name one level deep.
    return kProfiles + QLatin1Char('/')
        + QString(profile).replace(QLatin1Char('/'), QLatin1Char('_'));
}

} // namespace

ConnectionPanel::ConnectionPanel(QWidget *parent)
    : QWidget(parent), m_passwords(new PasswordStore(this)), m_profile(new QComboBox),
      m_host(new QLineEdit(QStringLiteral("127.0.0.1"))), m_seeds(new QLineEdit),
      m_user(new QLineEdit), m_password(new QLineEdit), m_caFile(new QLineEdit),
      m_certFile(new QLineEdit), m_keyFile(new QLineEdit), m_port(new QSpinBox), m_db(new QSpinBox),
      m_budget(new QSpinBox), m_replicas(new QCheckBox(tr("Read the cluster's re&plicas"))),
      m_tls(new QCheckBox(tr("Use &TLS"))),
      m_keepPassword(new QCheckBox(tr("&Keep in the system keychain"))),
      m_connect(new QPushButton(icon(QStringLiteral("run")), tr("&Connect"))),
      m_disconnect(new QPushButton(icon(QStringLiteral("cancel")), tr("&Disconnect"))),
      m_save(new QPushButton(tr("Save…"))), m_delete(new QPushButton(tr("Delete"))),
      m_keychainNote(new QLabel)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *profileRow = new QHBoxLayout;
    m_profile->setObjectName(QStringLiteral("profile"));
    m_profile->setToolTip(tr("Saved connections. A profile keeps everything but the password, "
                             "which only the system keychain may keep."));
    m_profile->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_profile->setMinimumContentsLength(10);
    profileRow->addWidget(m_profile, 1);
    profileRow->addWidget(m_save);
    profileRow->addWidget(m_delete);
    m_save->setToolTip(tr("Save these settings as a profile"));
    m_delete->setToolTip(tr("Delete this profile (and its password in the keychain)"));
    layout->addLayout(profileRow);
    layout->addWidget(buildFields());
    auto *buttons = new QHBoxLayout;
    m_connect->setObjectName(QStringLiteral("connect"));
    m_disconnect->setObjectName(QStringLiteral("disconnect"));
    m_connect->setToolTip(tr("Connect and start reading (read-only: no command that writes)"));
    buttons->addWidget(m_connect);
    buttons->addWidget(m_disconnect);
    layout->addLayout(buttons);
    m_keychainNote->setWordWrap(true);
    m_keychainNote->setObjectName(QStringLiteral("keychainNote"));
    m_keychainNote->hide();
    layout->addWidget(m_keychainNote);
    layout->addStretch(1);
    setConnected(false);

    m_profile->addItem(tr("(not saved)"));
    m_profile->addItems(profiles());
    connect(m_profile, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index > 0)
            loadProfile(m_profile->itemText(index));
    });
    connect(m_save, &QPushButton::clicked, this, [this] {
        bool ok = false;
        const QString name
            = QInputDialog::getText(this, tr("Save connection profile"), tr("Profile name:"),
                QLineEdit::Normal, profile().isEmpty() ? m_host->text() : profile(), &ok)
                  .trimmed();
        if (ok && !name.isEmpty())
            saveProfile(name);
    });
    connect(m_delete, &QPushButton::clicked, this, [this] {
        if (!profile().isEmpty())
            deleteProfile(profile());
    });
    connect(m_connect, &QPushButton::clicked, this, &ConnectionPanel::connectRequested);
    connect(m_disconnect, &QPushButton::clicked, this, &ConnectionPanel::disconnectRequested);
    connect(
        m_budget, &QSpinBox::valueChanged, this, [this](int v) { emit budgetChanged(qint64(v)); });
}

QWidget *ConnectionPanel::buildFields()
{
    auto *box = new QWidget;
    auto *form = new QFormLayout(box);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_host->setObjectName(QStringLiteral("host"));
    m_host->setToolTip(tr("The Redis server's host name or address"));
    m_port->setObjectName(QStringLiteral("port"));
    m_port->setRange(1, 65535);
    m_port->setValue(6379);
    m_seeds->setObjectName(QStringLiteral("seeds"));
    m_seeds->setPlaceholderText(tr("none (host:port, …)"));
    m_seeds->setToolTip(
        tr("Other nodes of a Redis Cluster, host:port separated by commas, tried in turn when "
           "Host:Port does not answer. Whether the server is a cluster is found out by itself: "
           "on a cluster every master is read, the budget split across them."));
    m_replicas->setObjectName(QStringLiteral("replicas"));
    m_replicas->setToolTip(
        tr("On a cluster, read each master's replica (READONLY) and leave the masters alone. "
           "Replicas may lag by a few milliseconds; a key reset still needs a master."));
    m_db->setObjectName(QStringLiteral("db"));
    m_db->setRange(0, 15);
    m_db->setToolTip(tr("The database (SELECT) the deployment keeps its keys in"));
    m_user->setObjectName(QStringLiteral("user"));
    m_user->setPlaceholderText(tr("default"));
    m_user->setToolTip(
        tr("ACL user. For production use a read-only user: docs/monitoring.md "
           "gives the ACL line (+get +hmget +scan +time … and nothing that writes)."));
    m_password->setObjectName(QStringLiteral("password"));
    m_password->setEchoMode(QLineEdit::Password);
    m_password->setToolTip(tr("Never written to the settings or a log"));
    m_keepPassword->setObjectName(QStringLiteral("keepPassword"));
    m_keepPassword->setToolTip(tr("When the profile is saved, the password goes to the system "
                                  "keychain. Unticked, or without a keychain, it is not kept."));
    m_tls->setObjectName(QStringLiteral("tls"));
    m_tls->setToolTip(tr("The server's certificate must chain to the CA file (or the system's "
                         "CAs) and name the host. There is no way to skip the check here."));
    form->addRow(tr("&Host:"), m_host);
    form->addRow(tr("P&ort:"), m_port);
    form->addRow(tr("More &seeds:"), m_seeds);
    form->addRow(QString(), m_replicas);
    form->addRow(tr("&Database:"), m_db);
    form->addRow(tr("&User:"), m_user);
    form->addRow(tr("Pass&word:"), m_password);
    form->addRow(QString(), m_keepPassword);
    form->addRow(QString(), m_tls);
    const auto fileRow = [this, form](const QString &label, QLineEdit *edit, const char *name,
                             const QString &tip) {
        edit->setObjectName(QString::fromLatin1(name));
        edit->setToolTip(tip);
        auto *row = new QHBoxLayout;
        row->addWidget(edit, 1);
        auto *browse = new QToolButton;
        browse->setText(QStringLiteral("…"));
        browse->setToolTip(tr("Choose the file"));
        connect(browse, &QToolButton::clicked, this, [this, edit, label] {
            this->browse(edit, label, tr("PEM files (*.pem *.crt *.key);;All files (*)"));
        });
        row->addWidget(browse);
        form->addRow(label, row);
        m_fields << edit << browse;
    };
    fileRow(
        tr("CA file:"), m_caFile, "caFile", tr("PEM: the CA that signed the server's certificate"));
    fileRow(tr("Client cert:"), m_certFile, "certFile",
        tr("PEM: a client certificate, when the server asks for one (tls-auth-clients)"));
    fileRow(tr("Client key:"), m_keyFile, "keyFile", tr("PEM: the client certificate's key"));
    m_budget->setObjectName(QStringLiteral("budget"));
    m_budget->setRange(0, 1'000'000);
    m_budget->setSingleStep(500);
    m_budget->setValue(5000);
    m_budget->setSuffix(tr(" commands/s"));
    m_budget->setSpecialValueText(tr("no limit"));
    m_budget->setToolTip(tr("The most commands the monitor sends in any second (SCAN, reads, "
                            "metrics), as the server counts them. A SCAN counts what it costs "
                            "Redis in reads (about 1000 on a large keyspace), so discovery is "
                            "slow at a small budget. Lower it on a busy production server: a "
                            "smaller budget reads the long tail of keys less often, never the "
                            "hottest less."));
    form->addRow(tr("&Read budget:"), m_budget);
    m_fields << m_host << m_port << m_seeds << m_replicas << m_db << m_user << m_password
             << m_keepPassword << m_tls << m_profile << m_save << m_delete;
    return box;
}

void ConnectionPanel::browse(QLineEdit *edit, const QString &title, const QString &filter)
{
    const QString path = QFileDialog::getOpenFileName(this, title, edit->text(), filter);
    if (!path.isEmpty())
        edit->setText(path);
}

RespClient::Options ConnectionPanel::options() const
{
    RespClient::Options o;
    o.host = m_host->text().trimmed();
    o.port = quint16(m_port->value());
    o.db = m_db->value();
    o.user = m_user->text().trimmed();
    o.password = m_password->text();
    o.tls = m_tls->isChecked();
    o.caFile = m_caFile->text().trimmed();
    o.certFile = m_certFile->text().trimmed();
    o.keyFile = m_keyFile->text().trimmed();
    return o;
}

QList<QPair<QString, quint16>> ConnectionPanel::moreSeeds() const
{
    QList<QPair<QString, quint16>> seeds;
    const QString text = m_seeds->text().trimmed();
    if (text.isEmpty())
        return seeds;
    for (const limiter::RedisAddress &a :
        limiter::parseRedisAddresses(text.toStdString()).addresses)
        seeds.append({QString::fromStdString(a.host), quint16(a.port)});
    return seeds;
}

QString ConnectionPanel::seedsProblem() const
{
    const QString text = m_seeds->text().trimmed();
    if (text.isEmpty())
        return {};
    const limiter::RedisAddressList parsed = limiter::parseRedisAddresses(text.toStdString());
    return parsed.error.empty() ? QString()
                                : tr("More seeds: %1").arg(QString::fromStdString(parsed.error));
}

bool ConnectionPanel::readReplicas() const
{
    return m_replicas->isChecked();
}

qint64 ConnectionPanel::budgetPerSecond() const
{
    return m_budget->value();
}

QString ConnectionPanel::serverName() const
{
    return tr("%1:%2 db %3").arg(m_host->text().trimmed()).arg(m_port->value()).arg(m_db->value());
}

QString ConnectionPanel::profile() const
{
    return m_profile->currentIndex() > 0 ? m_profile->currentText() : QString();
}

QStringList ConnectionPanel::profiles() const
{
    QSettings settings;
    settings.beginGroup(kProfiles);
    return settings.childGroups();
}

void ConnectionPanel::saveProfile(const QString &name)
{
    QSettings settings;
    settings.beginGroup(settingsGroup(name));
    settings.setValue(QStringLiteral("host"), m_host->text().trimmed());
    settings.setValue(QStringLiteral("port"), m_port->value());
    settings.setValue(QStringLiteral("seeds"), m_seeds->text().trimmed());
    settings.setValue(QStringLiteral("replicas"), m_replicas->isChecked());
    settings.setValue(QStringLiteral("db"), m_db->value());
    settings.setValue(QStringLiteral("user"), m_user->text().trimmed());
    settings.setValue(QStringLiteral("tls"), m_tls->isChecked());
    settings.setValue(QStringLiteral("caFile"), m_caFile->text().trimmed());
    settings.setValue(QStringLiteral("certFile"), m_certFile->text().trimmed());
    settings.setValue(QStringLiteral("keyFile"), m_keyFile->text().trimmed());
    settings.setValue(QStringLiteral("budget"), m_budget->value());
    settings.setValue(QStringLiteral("keepPassword"), m_keepPassword->isChecked());
    settings.endGroup();
    if (m_keepPassword->isChecked() && !m_password->text().isEmpty())
        m_passwords->write(
            name, m_password->text(), [this](const QString &error) { keychainSaid(error); });
    else
        m_passwords->remove(name);
    const QSignalBlocker quiet(m_profile);
    if (m_profile->findText(name) < 0)
        m_profile->addItem(name);
    m_profile->setCurrentIndex(m_profile->findText(name));
}

void ConnectionPanel::loadProfile(const QString &name)
{
    QSettings settings;
    settings.beginGroup(settingsGroup(name));
    m_host->setText(settings.value(QStringLiteral("host"), QStringLiteral("127.0.0.1")).toString());
    m_port->setValue(settings.value(QStringLiteral("port"), 6379).toInt());
    m_seeds->setText(settings.value(QStringLiteral("seeds")).toString());
    m_replicas->setChecked(settings.value(QStringLiteral("replicas"), false).toBool());
    m_db->setValue(settings.value(QStringLiteral("db"), 0).toInt());
    m_user->setText(settings.value(QStringLiteral("user")).toString());
    m_tls->setChecked(settings.value(QStringLiteral("tls"), false).toBool());
    m_caFile->setText(settings.value(QStringLiteral("caFile")).toString());
    m_certFile->setText(settings.value(QStringLiteral("certFile")).toString());
    m_keyFile->setText(settings.value(QStringLiteral("keyFile")).toString());
    m_budget->setValue(settings.value(QStringLiteral("budget"), 5000).toInt());
    const bool keep = settings.value(QStringLiteral("keepPassword"), false).toBool();
    m_keepPassword->setChecked(keep);
    m_password->clear();
    {
        const QSignalBlocker quiet(m_profile);
        m_profile->setCurrentIndex(std::max(0, m_profile->findText(name)));
    }
    if (keep)
        m_passwords->read(name, [this, name](const QString &password, const QString &error) {
            if (profile() != name)
                return; // another profile was chosen meanwhile
            if (error.isEmpty())
                m_password->setText(password);
            keychainSaid(error);
        });
}

void ConnectionPanel::deleteProfile(const QString &name)
{
    QSettings settings;
    settings.remove(settingsGroup(name));
    m_passwords->remove(name);
    if (const int i = m_profile->findText(name); i > 0)
        m_profile->removeItem(i);
    m_profile->setCurrentIndex(0);
}

void ConnectionPanel::keychainSaid(const QString &error)
{
    m_keychainNote->setVisible(!error.isEmpty());
    m_keychainNote->setText(
        tr("<small>System keychain: %1. The password is not kept; type it when you connect."
           "</small>")
            .arg(error.toHtmlEscaped()));
}

void ConnectionPanel::showDemo(quint16 port)
{
    m_host->setText(QStringLiteral("127.0.0.1"));
    m_port->setValue(port);
    m_seeds->clear();
    m_replicas->setChecked(false);
    m_db->setValue(0);
    m_user->clear();
    m_password->clear();
    m_tls->setChecked(false);
    m_caFile->clear();
    m_certFile->clear();
    m_keyFile->clear();
    m_profile->setCurrentIndex(0);
    setFieldsEnabled(false);
}

void ConnectionPanel::endDemo()
{
    setFieldsEnabled(true);
}

void ConnectionPanel::setFieldsEnabled(bool enabled)
{
    for (QWidget *w : std::as_const(m_fields))
        w->setEnabled(enabled);
    m_connect->setEnabled(enabled);
}

void ConnectionPanel::setConnected(bool connected)
{
    // Connect stays available while connected: after a wrong password or to apply other
    // settings, it starts afresh with what the fields say now.
    m_connect->setEnabled(m_host->isEnabled());
    m_connect->setText(connected ? tr("Re&connect") : tr("&Connect"));
    m_disconnect->setEnabled(connected);
}

} // namespace qs
