#pragma once
// The Monitor tab's top line: the connection's state always in sight (a coloured dot, words,
// what it is connected to, when it retries, the last error the server gave), a one-line summary
// of the last refresh, and the Discover and local-demo buttons.
#include "model/monitor/respclient.h"

#include <QWidget>

class QLabel;
class QPushButton;

namespace qs {

class ConnectionStatus : public QWidget {
    Q_OBJECT
public:
    struct State {
        RespClient::State state = RespClient::State::Disconnected;
        QString detail; // the client's own words, shown unless connected
        QString server; // what the monitor reads; empty: nothing
        int retryMs = -1; // when it tries again; -1: not waiting to
        QString lastError;
    };

    explicit ConnectionStatus(QWidget *parent = nullptr);

    void showState(const State &state);
    void setSummary(const QString &text, const QString &toolTip = {});
    void setDemoRunning(bool running);
    void setDiscoverEnabled(bool enabled);

signals:
    void demoToggleRequested();
    void discoverRequested();

private:
    QLabel *m_state, *m_summary;
    QPushButton *m_discover, *m_demo;
};

} // namespace qs
