#pragma once
// Monitor passwords live in the system keychain (Secret Service, KWallet, macOS Keychain,
// Windows Credential Store, through qtkeychain) or nowhere: never in QSettings, never in a log.
// Without a keychain the password is simply not kept and the operator types it again; there is
// no clear-text fallback.
#include <QObject>
#include <QString>

#include <functional>

namespace qs {

class PasswordStore : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    // Callbacks run on the event loop once the keychain has answered; `error` is empty on
    // success and says, in the keychain's words, why it failed otherwise.
    using ReadDone = std::function<void(const QString &password, const QString &error)>;
    using Done = std::function<void(const QString &error)>;
    void read(const QString &profile, ReadDone done);
    void write(const QString &profile, const QString &password, Done done);
    void remove(const QString &profile, Done done = {});

private:
    static QString service();
    static QString keyOf(const QString &profile);
};

} // namespace qs
