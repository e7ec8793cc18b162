#pragma once
// A redis-server of a test's own, on a free loopback port, for tests that must stop, restart or
// reconfigure the server (the shared ctest fixture must not be disturbed).
#include <string>
#include <vector>

namespace qs::test {

class RedisProcess {
public:
    explicit RedisProcess(std::vector<std::string> extraArgs = {});
    ~RedisProcess();
    RedisProcess(const RedisProcess &) = delete;
    RedisProcess &operator=(const RedisProcess &) = delete;

    bool start(); // on a fresh free port the first time, on the same port after stop()
    void stop(); // SIGKILL: a crash, not a shutdown
    int port() const { return m_port; }
    bool running() const { return m_pid > 0; }

private:
    std::vector<std::string> m_extraArgs;
    std::string m_dir;
    int m_port = 0;
    int m_pid = 0;
};

// The port of the ctest fixture's redis-server (QS_TEST_REDIS_PORT), 0 when unset.
int fixtureRedisPort();

} // namespace qs::test
