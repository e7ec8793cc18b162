#pragma once
// What the local demo's child processes share: a free loopback port, and a QProcess that dies
// with the app, also when the app is killed (on Linux).
#include <QProcess>

namespace qs {

quint16 freeLoopbackPort();
// A port p with p + 10000 free too (a Redis Cluster node's bus port), both below 65536.
quint16 freeClusterPort();
// The kernel sends the child SIGKILL when the thread that started it (the GUI thread, which
// lives as long as the app) ends; the parent is checked again, it may have died before.
void dieWithTheApp(QProcess &process);

} // namespace qs
