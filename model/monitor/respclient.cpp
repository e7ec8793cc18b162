#include "model/monitor/respclient.h"

#include <QFile>
#include <QSslConfiguration>
#include <QSslKey>
#include <QVarLengthArray>

#include <hiredis/hiredis.h>

#include <vector>

namespace qs {

namespace {

RespValue fromReply(const redisReply *r)
{
    RespValue v;
    switch (r->type) {
    case REDIS_REPLY_STATUS:
        v.type = RespValue::Type::Status;
        v.text = QByteArray(r->str, qsizetype(r->len));
        break;
    case REDIS_REPLY_ERROR:
        v.type = RespValue::Type::Error;
        v.text = QByteArray(r->str, qsizetype(r->len));
        break;
    case REDIS_REPLY_INTEGER:
        v.type = RespValue::Type::Integer;
        v.integer = r->integer;
        break;
    case REDIS_REPLY_STRING:
        v.type = RespValue::Type::String;
        v.text = QByteArray(r->str, qsizetype(r->len));
        break;
    case REDIS_REPLY_ARRAY:
        v.type = RespValue::Type::Array;
        for (std::size_t i = 0; i < r->elements; ++i)
            v.elements.append(fromReply(r->element[i]));
        break;
    default:
        v.type = RespValue::Type::Nil;
    }
    return v;
}

// Encodes with hiredis and hands the bytes to `sink` without another copy (the monitor writes a
// million of these in a refresh: every allocation shows).
template <class Sink>
void encode(const QList<QByteArray> &argv, Sink sink)
{
    QVarLengthArray<const char *, 8> parts;
    QVarLengthArray<size_t, 8> lengths;
    for (const QByteArray &a : argv) {
        parts.append(a.constData());
        lengths.append(size_t(a.size()));
    }
    char *command = nullptr;
    const int length
        = redisFormatCommandArgv(&command, int(argv.size()), parts.data(), lengths.data());
    if (length > 0)
        sink(command, qint64(length));
    redisFreeCommand(command);
}

} // namespace

RespClient::RespClient(QObject *parent) : QObject(parent)
{
    m_clock.start();
    m_connectTimer.setSingleShot(true);
    m_reconnectTimer.setSingleShot(true);
    m_timeoutTimer.setInterval(100);
    connect(&m_socket, &QSslSocket::connected, this, [this] {
        if (!m_options.tls)
            onConnected(); // with TLS the handshake must finish first: encrypted()
    });
    connect(&m_socket, &QSslSocket::encrypted, this, &RespClient::onConnected);
    connect(&m_socket, &QSslSocket::sslErrors, this, &RespClient::onSslErrors);
    connect(&m_socket, &QTcpSocket::readyRead, this, &RespClient::onReadyRead);
    connect(&m_socket, &QTcpSocket::errorOccurred, this, &RespClient::onSocketError);
    connect(&m_connectTimer, &QTimer::timeout, this, [this] {
        lost(State::Unreachable,
            tr("no connection to %1:%2 within %3 ms")
                .arg(m_options.host)
                .arg(m_options.port)
                .arg(m_options.connectTimeoutMs));
    });
    connect(&m_reconnectTimer, &QTimer::timeout, this, &RespClient::connectNow);
    connect(&m_timeoutTimer, &QTimer::timeout, this, &RespClient::checkTimeouts);
}

RespClient::~RespClient()
{
    m_socket.disconnect(this);
    if (m_reader)
        redisReaderFree(m_reader);
}

void RespClient::open(const Options &options)
{
    close();
    m_options = options;
    m_backoffMs = options.reconnectMinMs;
    m_sent = 0;
    connectNow();
}

void RespClient::close()
{
    m_reconnectTimer.stop();
    m_connectTimer.stop();
    m_timeoutTimer.stop();
    m_socket.abort();
    failInFlight("connection closed");
    for (Pending &p : m_queue)
        if (p.done)
            p.done(RespValue::error("connection closed"));
    m_queue.clear();
    setState(State::Disconnected, tr("closed"));
}

void RespClient::setState(State state, const QString &text)
{
    if (state == m_state && text == m_stateText)
        return;
    m_state = state;
    m_stateText = text;
    emit stateChanged(state, text);
}

void RespClient::connectNow()
{
    if (m_reader)
        redisReaderFree(m_reader);
    m_reader = redisReaderCreate();
    m_drainQueued = false; // what the old reader held is gone with it
    m_handshakeLeft = 0;
    setState(State::Connecting, tr("connecting to %1:%2").arg(m_options.host).arg(m_options.port));
    m_connectTimer.start(m_options.connectTimeoutMs);
    if (!m_options.tls) {
        m_socket.connectToHost(m_options.host, m_options.port);
        return;
    }
    if (configureTls())
        m_socket.connectToHostEncrypted(m_options.host, m_options.port);
}

bool RespClient::configureTls()
{
    QSslConfiguration config = QSslConfiguration::defaultConfiguration();
    const auto fail = [this](const QString &text) {
        lost(State::TlsError, text);
        return false;
    };
    if (!m_options.caFile.isEmpty()) {
        const QList<QSslCertificate> cas = QSslCertificate::fromPath(m_options.caFile);
        if (cas.isEmpty())
            return fail(tr("no PEM certificate in the CA file %1").arg(m_options.caFile));
        config.setCaCertificates(cas);
    }
    if (!m_options.certFile.isEmpty()) {
        const QList<QSslCertificate> certs = QSslCertificate::fromPath(m_options.certFile);
        QFile keyFile(m_options.keyFile);
        if (certs.isEmpty())
            return fail(tr("no PEM certificate in %1").arg(m_options.certFile));
        if (!keyFile.open(QIODevice::ReadOnly))
            return fail(tr("cannot read the client key %1").arg(m_options.keyFile));
        const QByteArray pem = keyFile.readAll();
        QSslKey key(pem, QSsl::Rsa);
        if (key.isNull())
            key = QSslKey(pem, QSsl::Ec);
        if (key.isNull())
            return fail(
                tr("%1 holds no unencrypted RSA or EC private key (PEM)").arg(m_options.keyFile));
        config.setLocalCertificate(certs.first());
        config.setPrivateKey(key);
    }
    config.setPeerVerifyMode(m_options.insecure ? QSslSocket::VerifyNone : QSslSocket::VerifyPeer);
    m_socket.setSslConfiguration(config);
    m_socket.setPeerVerifyName(m_options.host);
    return true;
}

void RespClient::onSslErrors(const QList<QSslError> &errors)
{
    if (m_options.insecure) {
        m_socket.ignoreSslErrors();
        return;
    }
    QStringList texts;
    for (const QSslError &e : errors)
        texts << e.errorString();
    lost(State::TlsError, tr("TLS: %1").arg(texts.join(QStringLiteral("; "))));
}

void RespClient::onConnected()
{
    m_connectTimer.stop();
    m_timeoutTimer.start();
    // Without TCP_NODELAY a small command written while replies are due (the next SCAN) waits
    // for the server's delayed ACK: a SCAN chain ran at 100 calls/s instead of 400.
    m_socket.setSocketOption(QAbstractSocket::LowDelayOption, 1);
    // The handshake goes first in the pipeline; its replies decide the state.
    const auto step = [this](QList<QByteArray> argv, bool authentication) {
        ++m_handshakeLeft;
        write({std::move(argv),
            [this, authentication](const RespValue &reply) {
                if (m_state != State::Connecting)
                    return; // the handshake was already decided (or dropped)
                if (reply.isError()) {
                    if (authentication)
                        lost(State::AuthenticationFailed,
                            tr("authentication failed: %1").arg(QString::fromUtf8(reply.text)));
                    else if (reply.text.startsWith("LOADING"))
                        lost(State::Loading, tr("the server is loading its data"));
                    else if (reply.text.startsWith("BUSY"))
                        lost(State::Busy, tr("the server is busy running a script"));
                    else
                        lost(State::Unreachable, QString::fromUtf8(reply.text));
                    return;
                }
                if (--m_handshakeLeft == 0) {
                    m_backoffMs = m_options.reconnectMinMs;
                    setState(State::Connected,
                        tr("connected to %1:%2").arg(m_options.host).arg(m_options.port));
                    flushQueue();
                }
            },
            0});
    };
    if (!m_options.password.isEmpty()) {
        QList<QByteArray> auth{"AUTH"};
        if (!m_options.user.isEmpty())
            auth << m_options.user.toUtf8();
        auth << m_options.password.toUtf8();
        step(auth, true);
    }
    if (m_options.db != 0)
        step({"SELECT", QByteArray::number(m_options.db)}, false);
    step({"CLIENT", "SETNAME", m_options.clientName}, false);
    if (m_options.clusterReplicaReads)
        step({"READONLY"}, false);
}

void RespClient::send(const QList<QByteArray> &argv, Callback done)
{
    if (m_state == State::Connected)
        write({argv, std::move(done), 0});
    else
        m_queue.push_back({argv, std::move(done), 0});
}

void RespClient::flush()
{
    if (m_state == State::Connected)
        m_socket.flush();
}

void RespClient::write(Pending command)
{
    encode(
        command.argv, [this](const char *bytes, qint64 length) { m_socket.write(bytes, length); });
    command.argv = {}; // written: only the callback waits for the reply
    command.sentAtMs = m_clock.elapsed();
    m_inFlight.push_back(std::move(command));
    ++m_sent;
}

void RespClient::flushQueue()
{
    while (!m_queue.empty() && m_state == State::Connected) {
        Pending p = std::move(m_queue.front());
        m_queue.pop_front();
        write(std::move(p));
    }
}

void RespClient::onReadyRead()
{
    m_heardAtMs = m_clock.elapsed();
    // Into a buffer kept between reads: a fresh one per read (readAll) was megabytes allocated
    // and freed thousands of times a second at full speed, and glibc consolidated its heap on
    // every such free.
    for (;;) {
        const qint64 available = m_socket.bytesAvailable();
        if (available <= 0)
            break;
        if (m_readBuffer.size() < available)
            m_readBuffer.resize(available);
        const qint64 got = m_socket.read(m_readBuffer.data(), available);
        if (got <= 0)
            break;
        if (redisReaderFeed(m_reader, m_readBuffer.constData(), size_t(got)) != REDIS_OK) {
            lost(State::Unreachable, tr("the server sent something that is not RESP"));
            return;
        }
    }
    deliverParsed();
}

void RespClient::deliverParsed()
{
    // At most a batch of replies per turn of the event loop: one read of the socket can hold
    // tens of thousands of replies (100 000 pipelined reads), and decoding them all in one go
    // held the GUI thread for tens of milliseconds. The rest wait in the reader, in order.
    m_drainQueued = false;
    for (int delivered = 0; m_reader; ++delivered) {
        if (delivered == kRepliesPerTurn) {
            m_drainQueued = true;
            QTimer::singleShot(0, this, [this] {
                if (m_drainQueued)
                    deliverParsed();
            });
            return;
        }
        void *reply = nullptr;
        if (redisReaderGetReply(m_reader, &reply) != REDIS_OK) {
            lost(State::Unreachable, tr("the server sent something that is not RESP"));
            return;
        }
        if (!reply)
            break;
        const RespValue value = fromReply(static_cast<redisReply *>(reply));
        freeReplyObject(reply);
        deliver(value);
        if (m_socket.state() != QAbstractSocket::ConnectedState)
            return; // a reply's callback dropped the connection (authentication failed)
    }
}

void RespClient::deliver(const RespValue &reply)
{
    if (m_inFlight.empty())
        return; // nothing asked for it (cannot happen with a well-behaved server)
    Pending p = std::move(m_inFlight.front());
    m_inFlight.pop_front();
    // A server that loads its data or runs a long script answers every command with an error
    // until it is done: a state to show and wait out, not a reply about a key.
    const bool loading = reply.isError() && reply.text.startsWith("LOADING");
    const bool busy = reply.isError() && reply.text.startsWith("BUSY ");
    if ((loading || busy) && m_handshakeLeft == 0) {
        if (p.done)
            p.done(reply);
        lost(loading ? State::Loading : State::Busy,
            loading ? tr("the server is loading its data")
                    : tr("the server is busy running a script"));
        return;
    }
    if (p.done)
        p.done(reply);
}

void RespClient::checkTimeouts()
{
    if (m_inFlight.empty())
        return;
    // The server's silence, not the age of the oldest command: behind a deep pipeline the
    // oldest waits for everything before it (in our write buffer, in the server's input), and
    // the server answering all along is not a server that is gone. Replies that arrived while
    // this thread was busy are not silence either.
    if (m_drainQueued || m_socket.bytesAvailable() > 0)
        return;
    const qint64 now = m_clock.elapsed();
    const qint64 waited = now - std::max(m_heardAtMs, m_inFlight.front().sentAtMs);
    if (waited > m_options.readTimeoutMs)
        lost(State::Unreachable,
            tr("no reply within %1 ms (the server is busy or gone)").arg(m_options.readTimeoutMs));
}

void RespClient::onSocketError()
{
    if (m_state == State::AuthenticationFailed || m_state == State::Disconnected
        || m_state == State::TlsError)
        return;
    if (m_socket.error() == QAbstractSocket::SslHandshakeFailedError) {
        lost(State::TlsError, tr("TLS handshake failed: %1").arg(m_socket.errorString()));
        return;
    }
    lost(State::Unreachable, m_socket.errorString());
}

void RespClient::failInFlight(const QByteArray &why)
{
    std::deque<Pending> failed;
    failed.swap(m_inFlight);
    for (Pending &p : failed)
        if (p.done)
            p.done(RespValue::error(why));
}

void RespClient::lost(State state, const QString &text)
{
    m_connectTimer.stop();
    m_timeoutTimer.stop();
    // A wrong password or certificate does not heal by itself: wait for open() with another.
    // The retry is armed before the state is told, so that listeners can say when it comes.
    const bool retry = state != State::AuthenticationFailed && state != State::TlsError;
    if (retry) {
        m_reconnectTimer.start(m_backoffMs);
        m_backoffMs = std::min(m_backoffMs * 2, m_options.reconnectMaxMs);
    }
    setState(state, text);
    m_socket.abort();
    failInFlight(text.toUtf8());
}

} // namespace qs
