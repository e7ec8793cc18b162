#include "model/redis/childprocess.h"

#include <QHostAddress>
#include <QTcpServer>

#ifdef Q_OS_LINUX
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>
#endif

namespace qs {

quint16 freeLoopbackPort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort();
}

quint16 freeClusterPort()
{
    for (int attempt = 0; attempt < 50; ++attempt) {
        QTcpServer port, bus;
        if (!port.listen(QHostAddress::LocalHost, 0))
            return 0;
        if (port.serverPort() < 55536
            && bus.listen(QHostAddress::LocalHost, port.serverPort() + 10000))
            return port.serverPort();
    }
    return 0;
}

void dieWithTheApp(QProcess &process)
{
#ifdef Q_OS_LINUX
    const pid_t app = ::getpid();
    process.setChildProcessModifier([app] {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != app)
            ::_exit(1);
    });
#else
    Q_UNUSED(process);
#endif
}

} // namespace qs
