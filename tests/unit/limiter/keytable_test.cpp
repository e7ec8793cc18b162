// The engine's key table below the engine: its two slot layouts and the thread numbers its
// lock-free readers use.
#include "limiter/engine/keytable.h"
#include "limiter/engine/readerregistry.h"
#include "limiter/engine/keyhash.h"
#include "limiter/algorithms/tokenbucket.h"

#include "trace.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace qs::limiter;
using namespace qs::limiter::detail;
using qs::limiter::test::numbered;

namespace {

using Table = KeyTable<TokenBucketState>;

std::uint64_t hashOf(std::string_view key)
{
    return hashKey(key, 42);
}

// Inserts as RuleTable does: rebuild when the next insert needs room, keeping every entry.
void insert(Table &table, const std::string &key, double tokens)
{
    if (table.needsRebuild(key))
        table.rebuild([](const TokenBucketState &) { return true; }, hashOf, key);
    table.insert(hashOf(key), key)->state.tokens = tokens;
}

TEST(KeyTable, SmallTablesPadEachSlotToALinePairAndLargeTablesPackThem)
{
    Table table;
    insert(table, "first", 1);
    ASSERT_TRUE(table.padded());
    // Two lines per slot plus a 2-byte tag per slot in the tag array; load <= 0.25 after a
    // rebuild.
    constexpr std::size_t kPerSlot = kLinePair + sizeof(std::uint16_t);
    EXPECT_EQ(table.bytes() % kPerSlot, 0u);
    EXPECT_GE(table.bytes() / kPerSlot, 4u);

    // Past 128 padded slots the table packs: bytes per slot drop to sizeof(Slot).
    std::size_t i = 0;
    while (table.padded()) {
        ++i;
        insert(table, numbered("key-", i), double(i));
    }
    EXPECT_GT(table.size(), 20u); // padded while its slots fit kPaddedBytes
    EXPECT_LT(table.bytes(), table.size() * kCacheLine * 2); // at most 0.8 / 0.53 load, packed
    // Packed: the slots and a filter of one byte per slot.
    EXPECT_LE(table.bytes(), (table.size() + 1) * 15 / 8 * (sizeof(Table::Slot) + 1) + 8);
}

TEST(KeyTable, FilterNeverRulesOutAKeyItHoldsAndRulesOutMostOthers)
{
    Table table;
    const std::size_t n = 5000; // packed, so filtered
    for (std::size_t i = 0; i < n; ++i)
        insert(table, numbered("client-", i), double(i));
    ASSERT_FALSE(table.padded());
    for (std::size_t i = 0; i < n; ++i)
        ASSERT_TRUE(table.mayContain(hashOf(numbered("client-", i)))) << i;
    std::size_t falsePositives = 0;
    for (std::size_t i = 0; i < n; ++i)
        falsePositives += table.mayContain(hashOf(numbered("absent-", i)));
    // One bit per key among 8 per slot, at a load of 0.53-0.8: about 7-10% in theory.
    EXPECT_LT(falsePositives, n / 6);
    EXPECT_FALSE(Table().mayContain(hashOf("anything")));
}

TEST(KeyTable, EveryKeySurvivesTheSwitchBetweenLayouts)
{
    Table table;
    const std::size_t n = 5000; // well past the padded limit
    for (std::size_t i = 0; i < n; ++i)
        insert(table, numbered("client-", i), double(i));
    ASSERT_FALSE(table.padded());
    for (std::size_t i = 0; i < n; ++i) {
        const std::string key = numbered("client-", i);
        const Table::Slot *slot = table.find(hashOf(key), key);
        ASSERT_NE(slot, nullptr) << key;
        EXPECT_EQ(slot->state.tokens, double(i)) << key;
    }
    EXPECT_EQ(table.find(hashOf("absent"), "absent"), nullptr);

    // Shrinking back below the limit pads again, with the survivors intact.
    table.rebuild([](const TokenBucketState &s) { return s.tokens < 10; }, hashOf);
    EXPECT_TRUE(table.padded());
    EXPECT_EQ(table.size(), 10u);
    for (std::size_t i = 0; i < 10; ++i) {
        const std::string key = numbered("client-", i);
        ASSERT_NE(table.find(hashOf(key), key), nullptr) << key;
    }
}

// Every key shares one hash here, so tags always match and only the key comparison tells the
// keys apart: keys of every length (inline and in the arena) that differ in exactly one byte, at
// every position, or are a prefix of another, must be different entries.
TEST(KeyTable, KeysThatDifferInOneByteAreDifferentEntriesAtEveryLength)
{
    constexpr std::uint64_t kOneHash = 0x0123456789abcdefULL;
    for (std::size_t length = 1; length <= 28; ++length) {
        Table table;
        const std::string base(length, 'k');
        std::vector<std::string> keys{base};
        for (std::size_t at = 0; at < length; ++at) {
            std::string variant = base;
            variant[at] = 'x';
            keys.push_back(variant);
        }
        keys.push_back(base.substr(0, length - 1)); // a prefix: same bytes, shorter
        for (std::size_t i = 0; i < keys.size(); ++i) {
            if (table.needsRebuild(keys[i]))
                table.rebuild([](const TokenBucketState &) { return true; },
                    [&](std::string_view) { return kOneHash; }, keys[i]);
            ASSERT_EQ(table.find(kOneHash, keys[i]), nullptr) << length << " " << keys[i];
            table.insert(kOneHash, keys[i])->state.tokens = double(i);
        }
        for (std::size_t i = 0; i < keys.size(); ++i) {
            auto *slot = table.find(kOneHash, keys[i]);
            ASSERT_NE(slot, nullptr) << length << " " << keys[i];
            EXPECT_EQ(slot->state.tokens, double(i)) << length << " " << keys[i];
        }
    }
}

TEST(ThreadIndexLease, ThreadsThatComeAndGoReuseTheirNumbers)
{
    // Far more threads over the process's life than the registry has slots, never more than
    // two alive at once: every one of them must still get a slot (the lock-free path).
    ReaderRegistry registry;
    std::set<std::size_t> indices;
    for (std::size_t t = 0; t < 3 * ReaderRegistry::kSlots; ++t) {
        bool hasSlot = false;
        std::thread([&] {
            hasSlot = registry.slotOfThisThread() != nullptr;
            ThreadIndexLease probe; // the next free number, returned at once
            indices.insert(probe.index());
        }).join();
        ASSERT_TRUE(hasSlot) << "thread " << t << " fell back to the shard lock";
    }
    EXPECT_LE(indices.size(), 4u) << "numbers were not reused";
}

TEST(ThreadIndexLease, AnEndedLeaseRetiresItsHoldersNumber)
{
    std::size_t held = ThreadIndexLease::kNone;
    {
        ThreadIndexLease lease(&held);
        held = lease.index();
        EXPECT_LT(held, ReaderRegistry::kSlots);
    }
    // Returned to the pool, so another thread may take it: the holder must not use it.
    EXPECT_EQ(held, ThreadIndexLease::kRetired);
    EXPECT_GE(ThreadIndexLease::kRetired, ReaderRegistry::kSlots);
}

TEST(ThreadIndexLease, LiveThreadsHoldDistinctNumbers)
{
    std::vector<ThreadIndexLease> leases(16);
    std::set<std::size_t> distinct;
    for (const auto &l : leases)
        distinct.insert(l.index());
    EXPECT_EQ(distinct.size(), leases.size());
}

} // namespace
