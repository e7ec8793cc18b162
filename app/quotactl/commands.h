#pragma once
#include "model/policy/policy.h"

#include <QStringList>

#include <atomic>
#include <optional>

#include <span>
#include <string_view>

namespace qs::cli {

// One quotactl subcommand. `run` gets the arguments after the subcommand's name and returns
// the process exit code (0 success, 1 findings such as lint errors, 2 usage or not available).
struct Command {
    std::string_view name;
    std::string_view summary;
    int (*run)(const QStringList &args);
};

std::span<const Command> commands();

// Reads a policy for a command that needs a sound one: prints its errors to stderr and
// returns nullopt when it has any (warnings are `lint`'s business).
std::optional<qs::Policy> readPolicyOrReport(const QString &file);

// Installs the SIGINT/SIGTERM handlers of a long-running command and returns the flag they set:
// Ctrl-C asks the command to stop cleanly and report, not to die.
const std::atomic<bool> &stopOnSignals();

// Prints "quotactl <command>: <message>" and the pointer to --help; returns 2 (usage error).
int usageError(const char *command, const QString &message);

int runLint(const QStringList &args);
int runLoadgen(const QStringList &args);
int runSimulate(const QStringList &args);
int runExport(const QStringList &args);
int runMonitor(const QStringList &args);
int runProbe(const QStringList &args);

} // namespace qs::cli
