#include "ui/monitor/passwordstore.h"

#include <qt6keychain/keychain.h>

namespace qs {

QString PasswordStore::service()
{
    return QStringLiteral("Quota Studio");
}

QString PasswordStore::keyOf(const QString &profile)
{
    return QStringLiteral("monitor/%1").arg(profile);
}

void PasswordStore::read(const QString &profile, ReadDone done)
{
    auto *job = new QKeychain::ReadPasswordJob(service(), this);
    job->setInsecureFallback(false);
    job->setKey(keyOf(profile));
    connect(job, &QKeychain::Job::finished, this, [done](QKeychain::Job *j) {
        auto *read = static_cast<QKeychain::ReadPasswordJob *>(j);
        if (read->error() == QKeychain::NoError)
            done(read->textData(), QString());
        else
            done(QString(), read->errorString());
    });
    job->start();
}

void PasswordStore::write(const QString &profile, const QString &password, Done done)
{
    auto *job = new QKeychain::WritePasswordJob(service(), this);
    job->setInsecureFallback(false);
    job->setKey(keyOf(profile));
    job->setTextData(password);
    connect(job, &QKeychain::Job::finished, this, [done](QKeychain::Job *j) {
        if (done)
            done(j->error() == QKeychain::NoError ? QString() : j->errorString());
    });
    job->start();
}

void PasswordStore::remove(const QString &profile, Done done)
{
    auto *job = new QKeychain::DeletePasswordJob(service(), this);
    job->setInsecureFallback(false);
    job->setKey(keyOf(profile));
    connect(job, &QKeychain::Job::finished, this, [done](QKeychain::Job *j) {
        if (done)
            done(j->error() == QKeychain::NoError || j->error() == QKeychain::EntryNotFound
                    ? QString()
                    : j->errorString());
    });
    job->start();
}

} // namespace qs
