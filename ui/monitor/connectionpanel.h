#pragma once
// Where the Monitor tab connects: host, port, db, ACL user, password, TLS files and the read
// budget, in named profiles. A profile is kept in QSettings without its password; the password
// goes to the system keychain when the operator asks for it, else nowhere (PasswordStore).
#include "model/monitor/respclient.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace qs {

class PasswordStore;

class ConnectionPanel : public QWidget {
    Q_OBJECT
public:
    explicit ConnectionPanel(QWidget *parent = nullptr);

    RespClient::Options options() const;
    // A Redis Cluster's further seeds (host:port, comma-separated) and whether to read its
    // replicas; `seedsProblem` says what is wrong with the list (empty: nothing).
    QList<QPair<QString, quint16>> moreSeeds() const;
    QString seedsProblem() const;
    bool readReplicas() const;
    qint64 budgetPerSecond() const;
    // Where the options point, for messages: "127.0.0.1:6379 db 0".
    QString serverName() const;
    QString profile() const; // empty: not a saved profile

    // Profiles: saved under `name` (the password to the keychain when "keep" is ticked).
    void saveProfile(const QString &name);
    void loadProfile(const QString &name);
    void deleteProfile(const QString &name);
    QStringList profiles() const;
    // The local demo's server: filled in and the fields locked while it runs.
    void showDemo(quint16 port);
    void endDemo();
    // Connected or not: which of Connect / Disconnect applies.
    void setConnected(bool connected);

signals:
    void connectRequested();
    void disconnectRequested();
    void budgetChanged(qint64 perSecond);

private:
    QWidget *buildFields();
    void browse(QLineEdit *edit, const QString &title, const QString &filter);
    void setFieldsEnabled(bool enabled);
    void keychainSaid(const QString &error);

    PasswordStore *m_passwords;
    QComboBox *m_profile;
    QLineEdit *m_host, *m_seeds, *m_user, *m_password, *m_caFile, *m_certFile, *m_keyFile;
    QSpinBox *m_port, *m_db, *m_budget;
    QCheckBox *m_replicas, *m_tls, *m_keepPassword;
    QPushButton *m_connect, *m_disconnect, *m_save, *m_delete;
    QLabel *m_keychainNote;
    QList<QWidget *> m_fields; // what the demo locks
};

} // namespace qs
