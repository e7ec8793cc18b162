#pragma once
// A Redis client for the Qt event loop, for the monitor: a QTcpSocket, hiredis' redisReader to
// parse replies and redisFormatCommandArgv to encode commands (no RESP parser of our own, as
// hiredis keeps its reader apart from any transport). Commands are pipelined: send() queues,
// replies come back in order to their callbacks. The connection says what state it is in, in
// terms an operator can act on, and comes back by itself with a capped backoff.
//
// Why a second client beside limiter/RedisBackend: that one is synchronous, Qt-free and sits on
// a gateway's request path; the monitor needs a client that never blocks a GUI thread and
// reports connection trouble as states (docs/monitoring.md).
#include "model/monitor/respvalue.h"

#include <QElapsedTimer>
#include <QObject>
#include <QSslSocket>
#include <QString>
#include <QTimer>

#include <deque>
#include <functional>

struct redisReader;

namespace qs {

class RespClient : public QObject {
    Q_OBJECT
public:
    enum class State {
        Disconnected, // not opened, or closed
        Connecting,
        Connected, // handshake done: commands flow
        AuthenticationFailed, // wrong password or ACL user: not retried until open() again
        Unreachable, // refused, reset, timed out: retried with backoff
        Loading, // the server is loading its dataset: retried
        Busy, // the server is running a long script (BUSY): retried
        TlsError, // the certificate or host name did not verify: not retried until open()
    };
    Q_ENUM(State)

    struct Options {
        QString host = QStringLiteral("127.0.0.1");
        quint16 port = 6379;
        QString user; // ACL user; empty: the default user
        QString password; // never logged, never in a state text
        int db = 0;
        int connectTimeoutMs = 2000;
        int readTimeoutMs = 2000;
        int reconnectMinMs = 250;
        int reconnectMaxMs = 10'000;
        QByteArray clientName = "quota-studio-monitor";
        // A Redis Cluster replica answers reads only after READONLY (else: MOVED to its master).
        bool clusterReplicaReads = false;
        // TLS: the server's certificate must chain to `caFile` (the system's CAs when empty)
        // and name `host`. A client certificate and key (PEM) when the server asks for one.
        bool tls = false;
        QString caFile, certFile, keyFile;
        bool insecure = false; // skip verification: the CLI's loud --insecure only, never the UI
    };

    using Callback = std::function<void(const RespValue &)>;

    explicit RespClient(QObject *parent = nullptr);
    ~RespClient() override;

    void open(const Options &options);
    void close();

    State state() const { return m_state; }
    QString stateText() const { return m_stateText; }

    // Queues a command; its reply, or an error value when the connection is lost or the server
    // says nothing for the read timeout while replies are due, goes to `done` (on the event
    // loop, in order).
    void send(const QList<QByteArray> &argv, Callback done = {});
    // Writes what send() queued now rather than when the event loop next turns: for a command
    // that others wait for (the next SCAN of a chain) sent while many replies are handled.
    void flush();
    // Milliseconds until the next connection attempt; -1 when none is planned (connected,
    // closed, or a state that waits for open() with other credentials).
    int retryInMs() const
    {
        return m_reconnectTimer.isActive() ? m_reconnectTimer.remainingTime() : -1;
    }
    // Commands written to the server since open() (the handshake included).
    quint64 commandsSent() const { return m_sent; }

signals:
    void stateChanged(qs::RespClient::State state, const QString &text);

private:
    struct Pending {
        QList<QByteArray> argv;
        Callback done;
        qint64 sentAtMs = 0;
    };

    void setState(State state, const QString &text);
    void connectNow();
    void onConnected();
    bool configureTls(); // false: the files could not be read (state says which)
    void onSslErrors(const QList<QSslError> &errors);
    void onReadyRead();
    void deliverParsed(); // hands parsed replies to their callbacks, a batch per turn
    void onSocketError();
    void checkTimeouts();
    void write(Pending command);
    void flushQueue();
    void failInFlight(const QByteArray &why);
    void lost(State state, const QString &text); // drop the connection, retry later
    void deliver(const RespValue &reply);

    Options m_options;
    QSslSocket m_socket;
    redisReader *m_reader = nullptr;
    QTimer m_connectTimer, m_reconnectTimer, m_timeoutTimer;
    QElapsedTimer m_clock;
    std::deque<Pending> m_queue; // not written yet
    std::deque<Pending> m_inFlight; // written, waiting for replies, in order
    int m_handshakeLeft = 0; // replies of AUTH / SELECT / CLIENT SETNAME still due
    bool m_drainQueued = false; // parsed replies wait for the next turn of the event loop
    static constexpr int kRepliesPerTurn = 2000;
    int m_backoffMs = 0;
    quint64 m_sent = 0;
    qint64 m_heardAtMs = 0; // when the server last sent bytes (m_clock)
    QByteArray m_readBuffer; // what the socket had, on its way to the reader
    State m_state = State::Disconnected;
    QString m_stateText;
};

} // namespace qs
