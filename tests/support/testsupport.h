#pragma once
// Helpers shared by the test programs.
#include <string>

namespace qs::test {

// Path of an external program found at configure time (nginx, haproxy), or empty. When it is
// missing the calling test fails under CI=true (CI must have everything) and skips otherwise.
// Use as: `auto nginx = requireTool("nginx", QS_NGINX); if (nginx.empty()) GTEST_SKIP();`
std::string requireTool(const char *name, const char *configuredPath);

bool runningInCi();

// Runs a shell command, returns its exit status and appends its output to `output`.
int run(const std::string &command, std::string *output = nullptr);

// A fresh directory under the system temp dir, removed by the caller when done.
std::string makeTempDir(const char *prefix);

// A loopback TCP port nothing listens on now (the kernel's pick). Another process may take it
// before the caller binds it: a caller that starts a server checks that its own server answers.
int freeLoopbackPort();

} // namespace qs::test
