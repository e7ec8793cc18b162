#include "model/base/hugepages.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#ifdef __linux__
#include <unistd.h>
#endif

namespace qs {

namespace {

constexpr const char *kTunable = "glibc.malloc.hugetlb=";

bool kernelGivesHugePagesOnRequest()
{
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string modes;
    std::getline(in, modes);
    return modes.find("[madvise]") != std::string::npos;
}

} // namespace

bool mallocUsesHugePages()
{
    const char *tunables = std::getenv("GLIBC_TUNABLES");
    if (!tunables)
        return false;
    const char *at = std::strstr(tunables, kTunable);
    return at && (at[std::strlen(kTunable)] == '1' || at[std::strlen(kTunable)] == '2');
}

void restartWithHugePages(char **argv)
{
#ifdef __linux__
    // QS_HUGEPAGES marks the restarted program: a C library that dropped the variable would
    // otherwise start it again and again. Under valgrind (its preload library in LD_PRELOAD)
    // the restarted program would run outside it, unobserved: stay.
    const char *current = std::getenv("GLIBC_TUNABLES");
    const char *preload = std::getenv("LD_PRELOAD");
    if (std::getenv("QS_NO_HUGEPAGES") || std::getenv("QS_HUGEPAGES")
        || (current && std::strstr(current, kTunable))
        || (preload && std::strstr(preload, "vgpreload")) || !kernelGivesHugePagesOnRequest())
        return;
    const bool had = current != nullptr;
    const std::string before = had ? current : "";
    const std::string value = (before.empty() ? before : before + ":") + kTunable + "1";
    if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0
        || setenv("QS_HUGEPAGES", "restarted", 1) != 0)
        return;
    execv("/proc/self/exe", argv);
    // execv failed (no /proc): go on as started.
    unsetenv("QS_HUGEPAGES");
    if (had)
        setenv("GLIBC_TUNABLES", before.c_str(), 1);
    else
        unsetenv("GLIBC_TUNABLES");
#else
    (void)argv;
#endif
}

} // namespace qs
