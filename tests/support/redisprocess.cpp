#include "tests/support/redisprocess.h"

#include "tests/support/testsupport.h"

#include <hiredis/hiredis.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <random>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace qs::test {

namespace {

bool answersPing(int port)
{
    const timeval timeout{0, 200'000};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", port, timeout);
    bool ok = false;
    if (c && !c->err) {
        auto *r = static_cast<redisReply *>(redisCommand(c, "PING"));
        // A server with requirepass answers NOAUTH: it is up all the same.
        ok = r != nullptr;
        if (r)
            freeReplyObject(r);
    }
    if (c)
        redisFree(c);
    return ok;
}

} // namespace

int fixtureRedisPort()
{
    const char *port = std::getenv("QS_TEST_REDIS_PORT");
    return port ? std::atoi(port) : 0;
}

RedisProcess::RedisProcess(std::vector<std::string> extraArgs)
    : m_extraArgs(std::move(extraArgs)), m_dir(makeTempDir("qs-redis-"))
{
}

RedisProcess::~RedisProcess()
{
    stop();
    std::error_code ignored;
    std::filesystem::remove_all(m_dir, ignored);
}

bool RedisProcess::start()
{
    std::mt19937 rng(std::random_device{}());
    for (int attempt = 0; attempt < 20; ++attempt) {
        const int port = m_port ? m_port : 30000 + int(rng() % 30000);
        std::vector<std::string> args{"redis-server", "--port", std::to_string(port), "--bind",
            "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", m_dir, "--loglevel",
            "warning"};
        args.insert(args.end(), m_extraArgs.begin(), m_extraArgs.end());
        const pid_t pid = ::fork();
        if (pid == 0) {
            std::vector<char *> argv;
            for (auto &a : args)
                argv.push_back(a.data());
            argv.push_back(nullptr);
            ::setsid();
            // A test that crashes must not leave its server behind holding ctest's pipes open.
#ifdef __linux__
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
            ::execvp("redis-server", argv.data());
            ::_exit(127);
        }
        for (int i = 0; i < 100; ++i) {
            int status = 0;
            if (::waitpid(pid, &status, WNOHANG) == pid)
                break; // died: port taken
            if (answersPing(port)) {
                m_pid = pid;
                m_port = port;
                return true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        if (m_port) // restart on a fixed port failed: the port is gone
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
}

void RedisProcess::stop()
{
    if (m_pid <= 0)
        return;
    ::kill(m_pid, SIGKILL);
    ::waitpid(m_pid, nullptr, 0);
    m_pid = 0;
}

} // namespace qs::test
