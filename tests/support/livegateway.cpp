#include "tests/support/livegateway.h"

#include "tests/support/testsupport.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace qs::test {

namespace {

sockaddr_in loopback(int port)
{
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

// A connected socket with send/receive timeouts, or -1. `source`, when given, is the local
// address to send from.
int connectTo(int port, const std::string &source = {})
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    const timeval timeout{2, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    if (!source.empty()) {
        sockaddr_in local{};
        local.sin_family = AF_INET;
        if (::inet_pton(AF_INET, source.c_str(), &local.sin_addr) != 1
            || ::bind(fd, reinterpret_cast<const sockaddr *>(&local), sizeof local) != 0) {
            ::close(fd);
            return -1;
        }
    }
    const sockaddr_in a = loopback(port);
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&a), sizeof a) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

std::string readAll(const std::string &path)
{
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

std::string loopbackSource(unsigned n)
{
    // 127.1.0.1 on: never 127.0.0.1 (every other test's address), never .0 or .255.
    return "127." + std::to_string(1 + n / (254 * 256) % 254) + "." + std::to_string(n / 254 % 256)
        + "." + std::to_string(1 + n % 254);
}

int httpStatus(int port, const HttpRequest &request)
{
    return httpExchange(port, request).status;
}

std::string HttpResponse::header(std::string_view name) const
{
    for (const auto &[n, v] : headers)
        if (n.size() == name.size()
            && std::equal(n.begin(), n.end(), name.begin(),
                [](char a, char b) { return std::tolower(a) == std::tolower(b); }))
            return v;
    return {};
}

HttpResponse httpExchange(int port, const HttpRequest &request)
{
    HttpResponse response;
    const int fd = connectTo(port, request.source);
    if (fd < 0)
        return response;
    std::string text
        = request.method + " " + request.target + " " + request.version + "\r\nHost: localhost\r\n";
    for (const auto &[name, value] : request.headers)
        text += name + ": " + value + "\r\n";
    text += "Connection: close\r\n\r\n";
    if (::send(fd, text.data(), text.size(), MSG_NOSIGNAL) != ssize_t(text.size())) {
        ::close(fd);
        return response;
    }
    // Connection: close — the answer ends when the server closes (up to 64 KiB kept).
    std::string answer;
    char buffer[4096];
    for (ssize_t n; answer.size() < 65536 && (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;)
        answer.append(buffer, std::size_t(n));
    ::close(fd);
    if (answer.size() < 12 || answer.compare(0, 7, "HTTP/1.") != 0)
        return response;
    response.status = std::atoi(answer.c_str() + 9);
    const std::size_t end = answer.find("\r\n\r\n");
    for (std::size_t at = answer.find("\r\n"); at != std::string::npos && at < end;) {
        const std::size_t next = answer.find("\r\n", at + 2);
        const std::string line = answer.substr(at + 2, next - at - 2);
        if (const std::size_t colon = line.find(':'); colon != std::string::npos) {
            std::size_t v = colon + 1;
            while (v < line.size() && line[v] == ' ')
                ++v;
            response.headers.emplace_back(line.substr(0, colon), line.substr(v));
        }
        at = next;
    }
    return response;
}

LiveGateway::LiveGateway(
    std::map<std::string, std::string> files, const std::vector<int> &exportedPorts)
    : m_dir(makeTempDir("qs-live-gateway-"))
{
    for (int exported : exportedPorts)
        m_ports[exported] = freeLoopbackPort();
    for (auto &[name, content] : files) {
        for (const auto &[from, to] : m_ports) {
            const std::string a = "127.0.0.1:" + std::to_string(from);
            const std::string b = "127.0.0.1:" + std::to_string(to);
            for (size_t at = content.find(a); at != std::string::npos; at = content.find(a, at))
                content.replace(at, a.size(), b);
        }
        std::ofstream(m_dir + "/" + name) << content;
    }
}

LiveGateway::~LiveGateway()
{
    if (m_pid > 0) {
        // The whole group: killing only nginx's master left its workers running (and holding
        // their ports) after every test.
        ::kill(-m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
    }
    std::error_code ignored;
    std::filesystem::remove_all(m_dir, ignored);
}

std::string LiveGateway::startNginx(const std::string &nginx, const std::string &mainFile)
{
    return startProcess({nginx, "-c", m_dir + "/" + mainFile, "-p", m_dir, "-g", "daemon off;"},
        m_ports.begin()->second);
}

std::string LiveGateway::startHaproxy(const std::string &haproxy, const std::string &mainFile)
{
    return startProcess({haproxy, "-db", "-f", m_dir + "/" + mainFile}, m_ports.begin()->second);
}

std::string LiveGateway::startProcess(std::vector<std::string> args, int waitPort, int waitSeconds)
{
    for (std::string &a : args)
        if (const auto at = a.find("{dir}"); at != std::string::npos)
            a.replace(at, 5, m_dir);
    const std::string log = m_dir + "/gateway-output.log";
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::setpgid(0, 0); // its own process group: nginx's workers go down with their master
        const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ::dup2(out, 1);
        ::dup2(out, 2);
        std::vector<char *> argv;
        for (std::string &a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    m_pid = pid;
    for (int i = 0; i < waitSeconds * 20; ++i) {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) {
            m_pid = 0;
            return "the gateway exited: " + readAll(log);
        }
        const int fd = connectTo(waitPort);
        if (fd >= 0) {
            ::close(fd);
            return {};
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return "the gateway did not listen within " + std::to_string(waitSeconds)
        + " s: " + readAll(log);
}

} // namespace qs::test
