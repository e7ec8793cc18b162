#pragma once
// Transparent huge pages for the command-line tools. On a kernel that gives them only on request
// (transparent_hugepage/enabled = madvise, as on this project's VM), every 4 KiB page a process
// touches for the first time costs a page fault; reading and exporting a 100 000-route policy
// touches about a gigabyte, and the faults were a third to a half of the time (docs/benchmarks.md,
// "Route count"). glibc's malloc asks for huge pages when GLIBC_TUNABLES holds
// glibc.malloc.hugetlb=1, a setting it reads only when the program starts.

namespace qs {

// Starts the program again with glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES, when the kernel
// gives huge pages on request, the variable does not set hugetlb already and QS_NO_HUGEPAGES is
// not set; returns (and the program goes on as it is) otherwise or when that fails. Call first in
// main(), before any thread or file is opened: the process image is replaced.
void restartWithHugePages(char **argv);

// Whether this process's malloc asks for huge pages (GLIBC_TUNABLES holds hugetlb=1 or 2).
bool mallocUsesHugePages();

} // namespace qs
