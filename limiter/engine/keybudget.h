#pragma once
// The shared bound on keys across all of an engine's rules (Engine::Options::maxKeys): every
// rule table takes a key from it before inserting and gives keys back when it sweeps.
// Internal to the engine; not installed.
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace qs::limiter::detail {

class KeyBudget {
public:
    explicit KeyBudget(std::size_t maxKeys) : m_max(maxKeys) { }
    bool tryTake();
    void release(std::size_t n) { m_used.fetch_sub(n, std::memory_order_relaxed); }
    std::size_t used() const { return m_used.load(std::memory_order_relaxed); }
    void countDenial() { m_denials.fetch_add(1, std::memory_order_relaxed); }
    std::uint64_t denials() const { return m_denials.load(std::memory_order_relaxed); }

private:
    const std::size_t m_max; // 0: unbounded
    std::atomic<std::size_t> m_used{0};
    std::atomic<std::uint64_t> m_denials{0};
};

} // namespace qs::limiter::detail
