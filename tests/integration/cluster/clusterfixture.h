#pragma once
// The Redis Cluster the ctest fixture started (tests/integration/cluster-fixture): its seeds,
// its nodes, and small admin helpers on plain hiredis connections.
#include "limiter/redis/redisaddress.h"
#include "limiter/redis/redisbackend.h"

#include <hiredis/hiredis.h>

#include <memory>
#include <string>
#include <vector>

namespace qs::test {

struct ClusterNode {
    std::string id;
    limiter::RedisAddress address;
    bool master = false;
    bool failed = false;
    std::vector<std::pair<int, int>> slots; // ranges it serves (masters)
};

class Cluster {
public:
    // Reads QS_TEST_CLUSTER_STATE (set by with-cluster-env); empty seeds when it is missing.
    Cluster();
    const std::vector<limiter::RedisAddress> &seeds() const { return m_seeds; }
    limiter::RedisEndpoint endpoint() const;
    // CLUSTER NODES, as the node on `port` (a seed by default) sees it.
    std::vector<ClusterNode> nodes(int port = 0) const;
    const ClusterNode *masterOf(int slot, int port = 0) const;
    bool ok(int port) const; // cluster_state:ok
    bool allOk() const; // on every node of the fixture
    // True once every node's CLUSTER NODES names the same masters with the same slots (gossip
    // after a reshard or failover has reached them all), within `timeoutMs`.
    bool agrees(int timeoutMs = 10'000) const;
    // `redis-cli --cluster reshard` of `slots` slots from one master to another, once every
    // node agrees on the slot map. A reshard that fails on a loaded machine (a MIGRATE timing
    // out, say) leaves a slot open: `--cluster fix` closes it and the reshard runs once more.
    // Empty when done; else what redis-cli printed, for the test's failure message.
    std::string reshard(const ClusterNode &from, const ClusterNode &to, int slots) const;
    // The fixture script's kill / revive of the node on `port`; true when it worked.
    bool kill(int port) const;
    bool revive(int port) const;
    // Makes the node on `port` a master again when a failover left it a replica (CLUSTER
    // FAILOVER once its replication link is up); true when it is a master within 20 s. The
    // failover tests leave the cluster as they found it with it.
    bool makeMaster(int port) const;
    std::vector<int> ports() const { return m_ports; }

private:
    std::string m_state;
    std::vector<limiter::RedisAddress> m_seeds;
    std::vector<int> m_ports;
    mutable std::vector<ClusterNode> m_lastNodes;
};

struct ContextDeleter {
    void operator()(redisContext *c) const { redisFree(c); }
};
using Context = std::unique_ptr<redisContext, ContextDeleter>;
Context connectTo(int port);
// One command; the reply as text (bulk, status or error) and, when asked, its integer.
std::string command(
    redisContext *c, const std::vector<std::string> &args, long long *integer = nullptr);

} // namespace qs::test
