#pragma once
// What a decision does when the store cannot answer it (timeout, lost connection, a cluster
// that stays down): one choice, shared by the Redis backend, the policy file's
// `on_store_error` and every exporter that can express it.
#include <cstdint>

namespace qs::limiter {

// Allow: fail open, availability first (the decision says failedOpen). Deny: fail closed,
// protection first. A broken key (WRONGTYPE, corrupt state) denies whatever this says.
enum class StoreErrorPolicy : std::uint8_t { Allow, Deny };

} // namespace qs::limiter
