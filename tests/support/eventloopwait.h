#pragma once
// Waiting on the Qt event loop in tests without Qt Test (not part of every build).
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

namespace qs::test {

// Runs the event loop for `ms`.
inline void spin(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

// Runs the event loop until `done()` holds or `ms` pass; returns done().
template <class Predicate>
bool waitUntil(Predicate done, int ms = 5000)
{
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < ms)
        spin(10);
    return done();
}

} // namespace qs::test
