#pragma once
// A real gateway (nginx or haproxy) running an exported configuration on free loopback ports,
// and a raw HTTP/1.1 client that sends the request target byte for byte (curl would normalise
// `/./x` itself and hide the bypass the test looks for).
#include "tests/support/testsupport.h"

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qs::test {

struct HttpRequest {
    using Headers = std::vector<std::pair<std::string, std::string>>;
    HttpRequest() = default;
    HttpRequest(std::string method_, std::string target_, Headers headers_ = {})
        : method(std::move(method_)), target(std::move(target_)), headers(std::move(headers_))
    {
    }
    std::string method = "GET";
    std::string target = "/";
    Headers headers;
    std::string version = "HTTP/1.1";
    // The client's address: any of 127.0.0.0/8 (all of it is this machine's loopback), so that
    // a test can be a fresh client for an `ip` key. Empty: the kernel's choice (127.0.0.1).
    std::string source;
};

// A loopback source address of its own for client `n` (up to 16 million): 127.x.y.z.
std::string loopbackSource(unsigned n);

// The response's status code; 0 when the connection failed or the answer was not HTTP.
int httpStatus(int port, const HttpRequest &request);

struct HttpResponse {
    int status = 0; // 0: the connection failed or the answer was not HTTP
    std::vector<std::pair<std::string, std::string>> headers;
    // The first header of that name (any case), or empty.
    std::string header(std::string_view name) const;
};
// The response's status and headers (the body is not kept).
HttpResponse httpExchange(int port, const HttpRequest &request);

class LiveGateway {
public:
    // The files of an export; `ports` maps each "127.0.0.1:<port>" the exporter wrote to a
    // fresh free port, so that tests run side by side.
    LiveGateway(std::map<std::string, std::string> files, const std::vector<int> &exportedPorts);
    ~LiveGateway();
    LiveGateway(const LiveGateway &) = delete;
    LiveGateway &operator=(const LiveGateway &) = delete;

    // Starts `nginx -c <main>` or `haproxy -f <main>` in the foreground and waits until the first
    // port answers. Empty on success, else what went wrong (with the gateway's output).
    std::string startNginx(const std::string &nginx, const std::string &mainFile);
    std::string startHaproxy(const std::string &haproxy, const std::string &mainFile);

    // Any other server (uvicorn serving an app): argv[0] is a full path; `{dir}` in an argument
    // is the folder holding the files. Waits up to `waitSeconds` for `waitPort` to answer.
    std::string startProcess(std::vector<std::string> argv, int waitPort, int waitSeconds = 5);

    // The free port that stands in for an exported one.
    int port(int exportedPort) const { return m_ports.at(exportedPort); }
    const std::string &dir() const { return m_dir; }

private:
    std::string m_dir;
    std::map<int, int> m_ports;
    int m_pid = 0;
};

} // namespace qs::test
