#include "commands.h"

#include "model/policy/policyreader.h"

#include <QTextStream>

#include <array>
#include <csignal>

namespace qs::cli {

namespace {

constexpr char kLint[] = "lint";
constexpr char kExport[] = "export";
constexpr char kSimulate[] = "simulate";
constexpr char kLoadgen[] = "loadgen";
constexpr char kMonitor[] = "monitor";
constexpr char kProbe[] = "probe";

constexpr std::array kCommands = {
    Command{kLint, "check policy files; diagnostics as file:line:col", runLint},
    Command{kExport, "write gateway configs (nginx, envoy, kong, traefik, haproxy, redis-bundle)",
        runExport},
    Command{kSimulate, "run a traffic pattern through the embedded engine", runSimulate},
    Command{kLoadgen, "drive the Redis backend like a fleet of gateways", runLoadgen},
    Command{kMonitor, "follow live quota keys in Redis", runMonitor},
    Command{kProbe, "check that a running gateway enforces the policy", runProbe},
};

} // namespace

namespace {

std::atomic<bool> g_stop{false};

extern "C" void onStopSignal(int)
{
    g_stop.store(true);
}

} // namespace

const std::atomic<bool> &stopOnSignals()
{
    std::signal(SIGINT, onStopSignal);
    std::signal(SIGTERM, onStopSignal);
    return g_stop;
}

std::optional<Policy> readPolicyOrReport(const QString &file)
{
    const PolicyReadResult read = readPolicyFile(file);
    if (!hasErrors(read.diagnostics))
        return read.policy;
    QTextStream err(stderr);
    for (const Diagnostic &d : read.diagnostics)
        if (d.severity == Diagnostic::Severity::Error)
            err << d.toString() << '\n';
    return std::nullopt;
}

int usageError(const char *command, const QString &message)
{
    QTextStream(stderr) << "quotactl " << command << ": " << message << "\n(see quotactl "
                        << command << " --help)\n";
    return 2;
}

std::span<const Command> commands()
{
    return kCommands;
}

} // namespace qs::cli
