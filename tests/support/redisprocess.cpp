#include "tests/support/redisprocess.h"

#include "tests/support/testsupport.h"

#include <hiredis/hiredis.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace qs::test {

namespace {

// Whether the server on `port` is the process `pid`: its INFO says so, or (a server with
// requirepass answers NOAUTH) it answers and `pid` is still running. Another test's server that
// took the port first answers PING too; ours has then exited on "Address already in use".
bool isOurs(int port, pid_t pid)
{
    const timeval timeout{0, 200'000};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", port, timeout);
    bool ours = false;
    if (c && !c->err) {
        if (auto *r = static_cast<redisReply *>(redisCommand(c, "INFO server"))) {
            if (r->type == REDIS_REPLY_STRING) { // hiredis 0.14 speaks RESP2
                const std::string info(r->str, r->len);
                ours = info.find("process_id:" + std::to_string(pid) + "\r\n") != std::string::npos;
            } else {
                // Still running? Asked without reaping it: start() reaps it if it has exited.
                siginfo_t exited{};
                ours = ::waitid(P_PID, id_t(pid), &exited, WEXITED | WNOHANG | WNOWAIT) == 0
                    && exited.si_pid == 0;
            }
            freeReplyObject(r);
        }
    }
    if (c)
        redisFree(c);
    return ours;
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
    for (int attempt = 0; attempt < 20; ++attempt) {
        const int port = m_port ? m_port : freeLoopbackPort();
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
        // Up to 10 s: a loaded machine starts a server slowly; one that lost the port exits at
        // once.
        for (int i = 0; i < 500; ++i) {
            int status = 0;
            if (::waitpid(pid, &status, WNOHANG) == pid)
                break; // died: port taken
            if (isOurs(port, pid)) {
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
