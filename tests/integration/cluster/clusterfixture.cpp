#include "clusterfixture.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace qs::test {

Cluster::Cluster()
{
    const char *state = std::getenv("QS_TEST_CLUSTER_STATE");
    if (!state)
        return;
    m_state = state;
    std::ifstream seeds(m_state + "/seeds"), ports(m_state + "/ports");
    std::string line;
    std::getline(seeds, line);
    m_seeds = limiter::parseRedisAddresses(line).addresses;
    for (int p; ports >> p;)
        m_ports.push_back(p);
}

limiter::RedisEndpoint Cluster::endpoint() const
{
    limiter::RedisEndpoint e;
    e.setSeeds(m_seeds);
    return e;
}

Context connectTo(int port)
{
    timeval timeout{2, 0};
    return Context(redisConnectWithTimeout("127.0.0.1", port, timeout));
}

std::string command(redisContext *c, const std::vector<std::string> &args, long long *integer)
{
    std::vector<const char *> argv;
    std::vector<size_t> lens;
    for (const auto &a : args) {
        argv.push_back(a.data());
        lens.push_back(a.size());
    }
    auto *r = static_cast<redisReply *>(
        redisCommandArgv(c, int(argv.size()), argv.data(), lens.data()));
    std::string text;
    if (r) {
        if (r->str)
            text.assign(r->str, r->len);
        if (integer)
            *integer = r->integer;
        freeReplyObject(r);
    }
    return text;
}

std::vector<ClusterNode> Cluster::nodes(int port) const
{
    if (port == 0)
        port = m_seeds.empty() ? 0 : m_seeds.front().port;
    Context c = connectTo(port);
    std::vector<ClusterNode> out;
    if (!c || c->err)
        return out;
    std::istringstream lines(command(c.get(), {"CLUSTER", "NODES"}));
    // <id> <ip:port@bus> <flags> <master> <ping> <pong> <epoch> <link> <slot> <slot> …
    for (std::string line; std::getline(lines, line);) {
        std::istringstream f(line);
        ClusterNode n;
        std::string address, flags, skip;
        f >> n.id >> address >> flags;
        for (int i = 0; i < 5; ++i)
            f >> skip;
        const auto parsed = limiter::parseRedisAddresses(address.substr(0, address.find('@')));
        if (parsed.addresses.empty())
            continue;
        n.address = parsed.addresses.front();
        n.master = flags.find("master") != std::string::npos;
        n.failed = flags.find("fail") != std::string::npos;
        for (std::string range; f >> range;) {
            if (range.front() == '[')
                continue; // a migrating / importing slot
            const auto dash = range.find('-');
            const int first = std::stoi(range.substr(0, dash));
            n.slots.emplace_back(
                first, dash == std::string::npos ? first : std::stoi(range.substr(dash + 1)));
        }
        out.push_back(n);
    }
    return out;
}

const ClusterNode *Cluster::masterOf(int slot, int port) const
{
    m_lastNodes = nodes(port);
    for (const ClusterNode &n : m_lastNodes)
        if (n.master && !n.failed)
            for (const auto &[first, last] : n.slots)
                if (slot >= first && slot <= last)
                    return &n;
    return nullptr;
}

bool Cluster::ok(int port) const
{
    Context c = connectTo(port);
    return c && !c->err
        && command(c.get(), {"CLUSTER", "INFO"}).find("cluster_state:ok") != std::string::npos;
}

bool Cluster::allOk() const
{
    for (int p : m_ports)
        if (!ok(p))
            return false;
    return true;
}

bool Cluster::agrees(int timeoutMs) const
{
    // Every node names the same master, with the same slots, for each node id: what
    // `redis-cli --cluster reshard` checks before it moves anything.
    const auto view = [this](int port) {
        std::vector<std::pair<std::string, std::vector<std::pair<int, int>>>> owners;
        for (const ClusterNode &n : nodes(port))
            if (n.master && !n.failed)
                owners.emplace_back(n.id, n.slots);
        std::sort(owners.begin(), owners.end());
        return owners;
    };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    do {
        bool same = !m_ports.empty();
        const auto first = view(m_ports.front());
        for (size_t i = 1; i < m_ports.size() && same; ++i)
            same = view(m_ports[i]) == first;
        if (same)
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    } while (std::chrono::steady_clock::now() < deadline);
    return false;
}

std::string Cluster::reshard(const ClusterNode &from, const ClusterNode &to, int slots) const
{
    const std::string log = m_state + "/reshard.log";
    const auto cli = [&log](const std::string &arguments) {
        const std::string command
            = std::string(QS_REDIS_CLI) + " --cluster " + arguments + " >>" + log + " 2>&1";
        return std::system(command.c_str()) == 0;
    };
    std::remove(log.c_str());
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (attempt > 0)
            cli("fix " + from.address.text() + " --cluster-yes");
        agrees();
        if (cli("reshard " + from.address.text() + " --cluster-from " + from.id + " --cluster-to "
                + to.id + " --cluster-slots " + std::to_string(slots) + " --cluster-yes")) {
            // redis-cli tells the two masters; the others learn by gossip, which on a loaded
            // machine took more than 10 s (a test that resharded next found slots uncovered).
            // The next caller gets a cluster every node agrees on.
            agrees(30'000);
            return {};
        }
    }
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    const std::string all = text.str();
    return "redis-cli --cluster reshard failed twice; its last 3000 characters:\n"
        + all.substr(all.size() > 3000 ? all.size() - 3000 : 0);
}

bool Cluster::kill(int port) const
{
    const std::string cmd = std::string(QS_CLUSTER_FIXTURE) + " kill " + m_state + " "
        + std::to_string(port) + " >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
}

bool Cluster::revive(int port) const
{
    const std::string cmd = std::string(QS_CLUSTER_FIXTURE) + " revive " + m_state + " "
        + std::to_string(port) + " >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
}

bool Cluster::makeMaster(int port) const
{
    const auto isMasterSeenBy = [&](int by) {
        for (const ClusterNode &n : nodes(by))
            if (n.address.port == port)
                return n.master && !n.failed;
        return false;
    };
    const auto isMaster = [&] { return isMasterSeenBy(port); };
    // Every node must have learnt the new roles: tests ask any of them for the slot map.
    const auto everyoneAgrees = [&] {
        for (int p : m_ports)
            if (!isMasterSeenBy(p))
                return false;
        return allOk();
    };
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    auto nextAsk = Clock::now();
    while (Clock::now() < deadline) {
        if (everyoneAgrees())
            return true;
        Context c = connectTo(port);
        // A replica takes over only once it is in sync with its master; asked again every 5 s
        // in case a failover attempt timed out.
        if (Clock::now() >= nextAsk && !isMaster() && c && !c->err
            && command(c.get(), {"INFO", "replication"}).find("master_link_status:up")
                != std::string::npos
            && command(c.get(), {"CLUSTER", "FAILOVER"}) == "OK")
            nextAsk = Clock::now() + std::chrono::seconds(5);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
}

} // namespace qs::test
