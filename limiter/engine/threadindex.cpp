#include "limiter/engine/threadindex.h"

#include <mutex>
#include <vector>

namespace qs::limiter::detail {

namespace {

// Taken once per thread start and exit, never on the hot path: a mutex is plenty.
struct IndexPool {
    std::mutex mutex;
    std::vector<std::size_t> returned; // descending, so the lowest is at the back
    std::size_t next = 0;
};

IndexPool &pool()
{
    // Leaked on purpose: threads may exit (and return their index) during static destruction.
    static IndexPool *p = new IndexPool;
    return *p;
}

} // namespace

ThreadIndexLease::ThreadIndexLease(std::size_t *holder) : m_holder(holder)
{
    IndexPool &p = pool();
    std::lock_guard lock(p.mutex);
    if (p.returned.empty()) {
        m_index = p.next++;
    } else {
        m_index = p.returned.back(); // the lowest returned index (the vector is kept descending)
        p.returned.pop_back();
    }
}

ThreadIndexLease::~ThreadIndexLease()
{
    if (m_holder)
        *m_holder = kRetired;
    IndexPool &p = pool();
    std::lock_guard lock(p.mutex);
    auto at = p.returned.begin();
    while (at != p.returned.end() && *at > m_index)
        ++at;
    p.returned.insert(at, m_index);
}

} // namespace qs::limiter::detail
