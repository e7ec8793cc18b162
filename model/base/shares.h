#pragma once
// Work split into shares, one per core: what the reader (a large policy's parts and routes) and
// the Envoy writer (its routes) use to keep both cores of a small machine busy. Each share must
// touch only what is its own; the caller joins the results in order.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace qs {

// How many shares `count` items make at no fewer than `minPerShare` each: one per core at most
// (or per `threads`, when not 0), and never 0.
inline std::size_t shareCount(std::size_t count, std::size_t minPerShare, unsigned threads = 0)
{
    const std::size_t cores
        = threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
    return std::clamp<std::size_t>(count / std::max<std::size_t>(minPerShare, 1), 1, cores);
}

// The first item of share `share` when `count` items are cut into `shares`: share s holds
// [shareBegin(s), shareBegin(s + 1)).
inline std::size_t shareBegin(std::size_t count, std::size_t shares, std::size_t share)
{
    return count * share / shares;
}

// Runs work(share) for every share: share 0 on the calling thread, the others on threads of
// their own. Returns when all are done; an exception thrown in any share (std::bad_alloc) is
// rethrown on the calling thread, as it would be without threads.
template <class Work>
void runShares(std::size_t shares, Work work)
{
    std::vector<std::exception_ptr> failures(shares);
    const auto run = [&](std::size_t share) {
        try {
            work(share);
        } catch (...) {
            failures[share] = std::current_exception();
        }
    };
    std::vector<std::thread> threads;
    for (std::size_t share = 1; share < shares; ++share)
        threads.emplace_back(run, share);
    run(0);
    for (std::thread &t : threads)
        t.join();
    for (const std::exception_ptr &failure : failures)
        if (failure)
            std::rethrow_exception(failure);
}

} // namespace qs
