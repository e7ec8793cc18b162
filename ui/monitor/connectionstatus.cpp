#include "ui/monitor/connectionstatus.h"

#include "model/redis/localdemo.h"
#include "ui/common/icons.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

#include <cmath>

namespace qs {

namespace {

// Colour and words for a connection state: green when reading, amber while it may heal by
// itself, red when the operator has to act, grey when closed.
QString stateColor(RespClient::State state)
{
    switch (state) {
    case RespClient::State::Connected:
        return QStringLiteral("#009e73");
    case RespClient::State::Connecting:
    case RespClient::State::Loading:
    case RespClient::State::Busy:
        return QStringLiteral("#e69f00");
    case RespClient::State::Unreachable:
    case RespClient::State::AuthenticationFailed:
    case RespClient::State::TlsError:
        return QStringLiteral("#d55e00");
    case RespClient::State::Disconnected:
        break;
    }
    return QStringLiteral("#888888");
}

QString stateWords(RespClient::State state)
{
    switch (state) {
    case RespClient::State::Disconnected:
        return QObject::tr("Not connected");
    case RespClient::State::Connecting:
        return QObject::tr("Connecting");
    case RespClient::State::Connected:
        return QObject::tr("Connected");
    case RespClient::State::AuthenticationFailed:
        return QObject::tr("Authentication failed");
    case RespClient::State::Unreachable:
        return QObject::tr("Unreachable");
    case RespClient::State::Loading:
        return QObject::tr("Server loading");
    case RespClient::State::Busy:
        return QObject::tr("Server busy");
    case RespClient::State::TlsError:
        return QObject::tr("TLS error");
    }
    return {};
}

} // namespace

ConnectionStatus::ConnectionStatus(QWidget *parent)
    : QWidget(parent), m_state(new QLabel), m_summary(new QLabel),
      m_discover(new QPushButton(icon(QStringLiteral("filter")), tr("D&iscover…"))),
      m_demo(new QPushButton(icon(QStringLiteral("run")), tr("Start local &demo")))
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_state->setObjectName(QStringLiteral("connectionState"));
    m_state->setTextFormat(Qt::RichText);
    m_state->setToolTip(tr("The connection's state, the last error and when it retries. "
                           "The monitor reconnects by itself after a drop."));
    m_summary->setObjectName(QStringLiteral("summary"));
    m_discover->setObjectName(QStringLiteral("discover"));
    m_discover->setToolTip(tr("Sample the server's keys (read-only, within the read "
                              "budget) and offer the layout of the key families found"));
    m_demo->setObjectName(QStringLiteral("demo"));
    layout->addWidget(m_state, 1);
    layout->addWidget(m_summary);
    layout->addWidget(m_discover);
    layout->addWidget(m_demo);
    connect(m_discover, &QPushButton::clicked, this, &ConnectionStatus::discoverRequested);
    connect(m_demo, &QPushButton::clicked, this, &ConnectionStatus::demoToggleRequested);
    showState({});
    setDemoRunning(false);
}

void ConnectionStatus::showState(const State &s)
{
    QString html = QStringLiteral("<span style='color:%1; font-size:large'>●</span> <b>%2</b>")
                       .arg(stateColor(s.state), stateWords(s.state).toHtmlEscaped());
    if (!s.server.isEmpty())
        html += QStringLiteral(" — %1").arg(s.server.toHtmlEscaped());
    if (s.state != RespClient::State::Connected && !s.detail.isEmpty())
        html += QStringLiteral(": %1").arg(s.detail.toHtmlEscaped());
    if (s.retryMs >= 0)
        html += tr(" · retrying in %1 s").arg(std::max(1, int(std::ceil(s.retryMs / 1000.0))));
    if (!s.lastError.isEmpty())
        html += QStringLiteral(" · <span style='color:#d55e00'>%1</span>")
                    .arg(tr("last error: %1").arg(s.lastError).toHtmlEscaped());
    m_state->setText(html);
}

void ConnectionStatus::setSummary(const QString &text, const QString &toolTip)
{
    m_summary->setText(text);
    m_summary->setToolTip(toolTip);
}

void ConnectionStatus::setDemoRunning(bool running)
{
    if (LocalDemo::redisServerPath().isEmpty()) {
        m_demo->setEnabled(false);
        m_demo->setText(tr("Local demo: redis-server not installed"));
        m_demo->setToolTip(tr("The demo starts a redis-server of its own. Install it "
                              "(Debian: apt install redis-server) and restart."));
        return;
    }
    m_demo->setText(running ? tr("Stop local &demo") : tr("Start local &demo"));
    m_demo->setIcon(icon(running ? QStringLiteral("cancel") : QStringLiteral("run")));
    m_demo->setToolTip(running
            ? tr("Stop the demo's traffic and its redis-server")
            : tr("Start a redis-server of its own on a free loopback port (no persistence) and "
                 "traffic for the open policy's routes, and monitor it"));
}

void ConnectionStatus::setDiscoverEnabled(bool enabled)
{
    m_discover->setEnabled(enabled);
}

} // namespace qs
