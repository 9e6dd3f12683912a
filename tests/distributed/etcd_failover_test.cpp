// Members die under load: kill -9 of the leader, of a follower, and their
// restart. Writers keep committing chains of head compares; afterwards every
// acknowledged commit is there exactly once (the chains are dense and end at
// the head), and writers went on after the failure.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>

#include "distributed/etcd_store_fixture.h"
#include "store/error.h"
#include "store/etcd/etcd_store.h"
#include "store/key.h"

namespace moraine::test {
namespace {

using Clock = std::chrono::steady_clock;

struct ChainResult {
  std::vector<uint64_t> acknowledged;
  uint64_t after_failure = 0;  // commits acknowledged after the member was killed
  double longest_ms = 0;       // the longest single commit (the stall)
  std::vector<std::string> errors;
};

std::string Anchor(int writer) {
  return store::Key::Current(store::Kind::kTable, {uint64_t(writer)}).Encode();
}
std::string Entry(int writer, uint64_t n) {
  return store::Key::Current(store::Kind::kColumn, {uint64_t(writer), n}).Encode();
}

// Each writer extends its own chain: anchor n -> n + 1 with entry n + 1.
ChainResult WriteChain(store::KvStore& store, int writer, Clock::time_point stop,
                       const std::atomic<bool>& failed) {
  ChainResult result;
  uint64_t n = 0;
  while (Clock::now() < stop) {
    store::WriteBatch batch;
    batch.Put(Anchor(writer), std::to_string(n + 1));
    batch.Put(Entry(writer, n + 1), "w" + std::to_string(writer));
    const auto begin = Clock::now();
    try {
      const std::optional<std::string> expected =
          n == 0 ? std::nullopt : std::optional<std::string>(std::to_string(n));
      if (!store.WriteIfHeadUnchanged(Anchor(writer), expected, batch)) {
        result.errors.push_back("lost a compare on its own anchor at " + std::to_string(n));
        return result;
      }
      ++n;
      result.acknowledged.push_back(n);
      if (failed.load()) ++result.after_failure;
    } catch (const store::Error& error) {
      // Outcome unknown: stop this chain, the check allows its last link.
      result.errors.push_back(error.what());
      return result;
    }
    result.longest_ms = std::max(
        result.longest_ms, std::chrono::duration<double, std::milli>(Clock::now() - begin).count());
  }
  return result;
}

class EtcdFailoverTest : public EtcdStoreFixture {
 protected:
  void RunLoadThroughFailure(bool kill_leader);
};

void EtcdFailoverTest::RunLoadThroughFailure(bool kill_leader) {
  EtcdCluster& cluster = this->cluster();
  constexpr int kWriters = 4;
  std::atomic<bool> failed{false};
  std::vector<ChainResult> results(kWriters);
  std::vector<std::thread> threads;
  const auto start = Clock::now();
  const auto stop = start + std::chrono::seconds(5);
  std::vector<std::unique_ptr<store::KvStore>> stores;
  for (int w = 0; w < kWriters; ++w) stores.push_back(Open());
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] { results[w] = WriteChain(*stores[w], w, stop, failed); });
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const int leader = cluster.Leader();
  ASSERT_GE(leader, 0);
  const int victim = kill_leader ? leader : (leader + 1) % cluster.size();
  cluster.Kill(victim);
  failed = true;
  std::this_thread::sleep_for(std::chrono::seconds(2));
  cluster.Restart(victim);
  for (auto& thread : threads) thread.join();
  ASSERT_TRUE(cluster.WaitHealthy(std::chrono::seconds(20))) << cluster.LogTail(victim);

  auto snapshot = stores[0]->GetSnapshot();
  for (int w = 0; w < kWriters; ++w) {
    const auto& result = results[w];
    EXPECT_TRUE(result.errors.empty()) << "writer " << w << ": " << result.errors.front();
    const uint64_t acknowledged = result.acknowledged.empty() ? 0 : result.acknowledged.back();
    const auto head = snapshot->Get(Anchor(w));
    const uint64_t at = head ? std::stoull(*head) : 0;
    // Every acknowledged commit is there; at most one unacknowledged one
    // (whose call failed) may be too.
    EXPECT_GE(at, acknowledged) << "writer " << w << " lost acknowledged commits";
    EXPECT_LE(at, acknowledged + (result.errors.empty() ? 0 : 1)) << "writer " << w;
    uint64_t entries = 0;
    for (auto it = snapshot->Scan(
             store::TableRange(store::Subspace::kCurrent, store::Kind::kColumn, uint64_t(w)));
         it->Valid(); it->Next()) {
      EXPECT_EQ(store::Key::Decode(it->key()).component(1), ++entries) << "chain has a gap";
    }
    EXPECT_EQ(entries, at) << "writer " << w;
    EXPECT_GT(result.after_failure, 0u) << "writer " << w << " never committed after the kill";
    std::printf(
        "[ figures  ] %s killed: writer %d committed %llu (%llu after the kill), "
        "longest commit %.0f ms\n",
        kill_leader ? "leader" : "follower", w, static_cast<unsigned long long>(acknowledged),
        static_cast<unsigned long long>(result.after_failure), result.longest_ms);
  }
}

TEST_F(EtcdFailoverTest, LeaderKillMidLoadLosesNoAcknowledgedCommit) {
  RunLoadThroughFailure(/*kill_leader=*/true);
}

TEST_F(EtcdFailoverTest, FollowerKillMidLoadLosesNoAcknowledgedCommit) {
  RunLoadThroughFailure(/*kill_leader=*/false);
}

// RPC deadlines about as short as a commit takes: many commit RPCs end in
// DEADLINE_EXCEEDED while etcd goes on to apply some of them. Each must be
// settled through its token: one applied after its RPC gave up counts as
// committed (a blind retry would lose the compare against itself), one that
// was not is fenced off and retried. The deadline grows from 1 ms until
// both kinds were seen, since how long a commit takes depends on the load.
TEST_F(EtcdFailoverTest, UnknownOutcomesAreSettledByTheCommitToken) {
#ifdef MORAINE_TEST_ETCD_SECURED
  // Its outcomes are made unknown by RPC deadlines of a few milliseconds,
  // shorter than a TLS handshake and an Authenticate: no handle would open.
  // Settling does not depend on the transport; the plain build tests it.
  GTEST_SKIP() << "deadlines under a TLS handshake; covered by etcd_failover_test";
#endif
  const std::string anchor = Anchor(0);
  uint64_t head = 0, unknown = 0, committed = 0, acknowledged = 0;
  const auto budget = Clock::now() + std::chrono::seconds(30);
  for (int rpc_ms : {1, 2, 3, 5, 8}) {
    if (Clock::now() > budget) break;
    store::EtcdStoreOptions impatient;
    impatient.rpc_timeout = std::chrono::milliseconds(rpc_ms);
    impatient.operation_timeout = std::chrono::milliseconds(3000);
    // Opening reads the cluster with the same deadline; on a loaded machine
    // the shortest may never be met, and then the next one is tried (what
    // is tested is a commit's unknown outcome, which needs an open handle).
    std::unique_ptr<store::EtcdStore> store;
    try {
      store = OpenEtcd(impatient);
    } catch (const store::IoError&) {
      continue;
    }
    for (int i = 0; i < 25; ++i) {
      store::WriteBatch batch;
      batch.Put(anchor, std::to_string(head + 1));
      batch.Put(Entry(0, head + 1), std::string(4096, 'x'));  // a commit that takes a while
      const auto expected = head == 0 ? std::nullopt : std::optional(std::to_string(head));
      try {
        ASSERT_TRUE(store->WriteIfHeadUnchanged(anchor, expected, batch))
            << "lost the compare on its own anchor at " << head << " (deadline " << rpc_ms
            << " ms): a commit that had applied was taken for a failed one";
        ++head;
        ++acknowledged;
      } catch (const store::IoError&) {
        // Too short a deadline to settle at all: the outcome stays unknown,
        // so continue from what a patient handle reads.
        const auto now = store::GetLatest(*Open(), anchor);
        const uint64_t at = now ? std::stoull(*now) : 0;
        ASSERT_TRUE(at == head || at == head + 1) << at << " after " << head;
        head = at;
        break;
      }
    }
    unknown += store->settle_counts().unknown;
    committed += store->settle_counts().committed;
    if (unknown > committed && committed > 0) break;
  }
  std::printf(
      "[ figures  ] %llu commits with RPC deadlines from 1 ms: %llu unknown outcomes "
      "settled, %llu of them had committed\n",
      static_cast<unsigned long long>(acknowledged), static_cast<unsigned long long>(unknown),
      static_cast<unsigned long long>(committed));
  EXPECT_GT(unknown, 0u) << "no RPC outcome was ever unknown: nothing tested";

  auto snapshot = Open()->GetSnapshot();
  EXPECT_EQ(snapshot->Get(anchor), std::to_string(head));
  uint64_t entries = 0;
  for (auto it = snapshot->Scan(
           store::TableRange(store::Subspace::kCurrent, store::Kind::kColumn, uint64_t{0}));
       it->Valid(); it->Next()) {
    EXPECT_EQ(store::Key::Decode(it->key()).component(1), ++entries) << "chain has a gap";
  }
  EXPECT_EQ(entries, head);
}

}  // namespace
}  // namespace moraine::test
