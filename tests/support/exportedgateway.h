#pragma once
// A policy exported to NGINX or HAProxy and running in the real gateway on free loopback
// ports: what the live export tests and the request fuzzer send their requests to. Header
// only: qs_testsupport does not link the model.
#include "model/export/exporter.h"
#include "tests/support/livegateway.h"
#include "tests/support/testsupport.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace qs::test {

struct ExportedGateway {
    std::unique_ptr<LiveGateway> process;
    int port = 0; // 0: the gateway is not installed (outside CI) or did not start (a failure)
};

// Exports `policy` to `target` ("nginx" or "haproxy") and starts the gateway on it; a failure
// to export or start is a test failure.
inline ExportedGateway startExportedGateway(const std::string &target, const Policy &policy)
{
    const bool nginx = target == "nginx";
    const std::string tool
        = nginx ? requireTool("nginx", QS_NGINX) : requireTool("haproxy", QS_HAPROXY);
    if (tool.empty())
        return {};
    const ExportResult result = exporterById(QString::fromStdString(target))->exportPolicy(policy);
    EXPECT_FALSE(hasErrors(result.diagnostics));
    std::map<std::string, std::string> files;
    for (const ExportedFile &f : result.files)
        files[f.name.toStdString()] = f.content.toStdString();
    const std::vector<int> ports = nginx ? std::vector<int>{8080, 8081} : std::vector<int>{8090};
    ExportedGateway g;
    g.process = std::make_unique<LiveGateway>(files, ports);
    const std::string problem = nginx ? g.process->startNginx(tool, "nginx.conf")
                                      : g.process->startHaproxy(tool, "haproxy.cfg");
    EXPECT_EQ(problem, "");
    if (problem.empty())
        g.port = g.process->port(ports.front());
    return g;
}

} // namespace qs::test
