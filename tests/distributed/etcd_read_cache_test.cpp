// EtcdStore's read cache against a real cluster: a handle that keeps what it
// reads must read exactly what a handle without a cache reads, at every
// snapshot, while other handles commit (their changes reach it through the
// lake's watch), while it commits itself, and across a member's death or
// stop.

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <random>
#include <string>

#include "distributed/etcd_store_fixture.h"
#include "store/key.h"
#include "store/key_range.h"
#include "support/kv_store_contract.h"

namespace moraine::store {
namespace {

using test::ScanAll;

class EtcdReadCacheTest : public test::EtcdStoreFixture {
 protected:
  std::unique_ptr<EtcdStore> OpenWithCache(size_t bytes) {
    EtcdStoreOptions options;
    options.read_cache_bytes = bytes;
    return OpenEtcd(options);
  }
};

std::string Column(uint64_t table, uint64_t column) {
  return Key::Current(Kind::kColumn, {table, column}).Encode();
}
const std::string kHead = Key::Current(Kind::kHead, {}).Encode();

// What a DuckLake transaction does to the store, in small: point reads of
// keys present and absent, and scans of whole tables and of the lake.
std::string ReadEverything(const KvSnapshot& snapshot) {
  std::string out;
  for (uint64_t table = 1; table <= 3; ++table) {
    for (uint64_t column = 0; column < 12; column += 3) {
      auto value = snapshot.Get(Column(table, column));
      out += Column(table, column) + "=" + (value ? *value : "<absent>") + ";";
    }
    for (const auto& [key, value] :
         ScanAll(snapshot, KeyRange{Column(table, 0), Column(table + 1, 0)})) {
      out += "scan:" + key + "=" + value + ";";
    }
  }
  for (const auto& [key, value] : ScanAll(snapshot, KeyRange{"", ""})) {
    out += "all:" + key + "=" + value + ";";
  }
  return out;
}
std::string ReadEverything(KvStore& store) { return ReadEverything(*store.GetSnapshot()); }

// One commit of random puts and deletes on one table, guarded by the head
// (or, one time in five, a plain write, which leaves the head alone).
void RandomCommit(KvStore& store, std::mt19937& random, int round) {
  WriteBatch batch;
  const uint64_t table = 1 + random() % 3;
  for (int i = 0, n = 1 + static_cast<int>(random() % 4); i < n; ++i) {
    const std::string key = Column(table, random() % 12);
    if (random() % 3 == 0) {
      batch.Delete(key);
    } else {
      batch.Put(key, "r" + std::to_string(round) + "." + std::to_string(i));
    }
  }
  if (random() % 5 == 0) {
    store.Write(batch);
    return;
  }
  auto head = store.GetSnapshot()->Get(kHead);
  batch.Put(kHead, std::to_string(round));
  ASSERT_TRUE(store.WriteIfHeadUnchanged(kHead, head, batch));
}

TEST_F(EtcdReadCacheTest, ACachedHandleReadsWhatTheClusterHoldsWhileOthersAndItselfCommit) {
  auto cached = OpenWithCache(size_t{64} << 20);
  auto other = OpenWithCache(0);
  auto truth = OpenWithCache(0);
  std::mt19937 random(12);
  for (int round = 0; round < 150; ++round) {
    // Most commits come from another handle, some from the cached one.
    RandomCommit(random() % 4 == 0 ? *cached : *other, random, round);
    ASSERT_EQ(ReadEverything(*cached), ReadEverything(*truth)) << "round " << round;
  }
  const auto counts = cached->read_cache_counts();
  // Every foreign commit changes what is read, so a share of reads misses;
  // the rest must be answered, or the cache does nothing.
  EXPECT_GT(counts.hits, counts.misses) << counts.hits << " hits, " << counts.misses << " misses";
}

// A commit that lost its race retries on GetSnapshotForCommit: served at the
// revision the cache has applied (or the one the head changed at, if newer),
// it must hold the winner's commit, read what the cluster holds, cost no
// linearizable read (a heartbeat round in the retry's serial path), and let
// the retry land. A write outside the lake after the winner's (another lake
// on the cluster) must not make it wait for a revision the lake's watch never
// shows: its head is a cache hit.
TEST_F(EtcdReadCacheTest, TheRetryOfALostCommitReadsTheWinnersHeadWithoutALinearizableRead) {
  EtcdStoreOptions waiting;
  waiting.read_cache_bytes = size_t{64} << 20;
  // Long enough that a lagging watch never turns a hit into a miss here.
  waiting.read_cache_wait = std::chrono::milliseconds(2000);
  auto cached = OpenEtcd(waiting);
  auto other = OpenWithCache(0);
  auto truth = OpenWithCache(0);
  std::mt19937 random(31);
  for (int round = 0; round < 40; ++round) {
    const auto stale = cached->GetSnapshot()->Get(kHead);
    WriteBatch winner;
    winner.Put(Column(1 + random() % 3, random() % 12), "won" + std::to_string(round));
    winner.Put(kHead, "w" + std::to_string(round));
    ASSERT_TRUE(other->WriteIfHeadUnchanged(kHead, other->GetSnapshot()->Get(kHead), winner));
    if (round % 4 == 0)
      cluster_->EtcdCtl("put " + prefix_ + "-other-lake " + std::to_string(round));
    WriteBatch mine;
    mine.Put(Column(1 + random() % 3, random() % 12), "mine" + std::to_string(round));
    mine.Put(kHead, "c" + std::to_string(round));
    ASSERT_FALSE(cached->WriteIfHeadUnchanged(kHead, stale, mine));

    const auto before = cached->rpc_counts();
    const auto cache_before = cached->read_cache_counts();
    const auto retry = cached->GetSnapshotForCommit();
    ASSERT_EQ(retry->Get(kHead), "w" + std::to_string(round));
    EXPECT_EQ(cached->read_cache_counts().misses, cache_before.misses) << "round " << round;
    ASSERT_EQ(ReadEverything(*retry), ReadEverything(*truth)) << "round " << round;
    EXPECT_EQ(cached->rpc_counts().linearizable_ranges, before.linearizable_ranges);
    ASSERT_TRUE(cached->WriteIfHeadUnchanged(kHead, retry->Get(kHead), mine));
    ASSERT_EQ(truth->GetSnapshot()->Get(kHead), "c" + std::to_string(round));
  }
  // Without a cache there is nothing to prove a revision with: a linearizable read.
  const auto before = other->rpc_counts();
  EXPECT_EQ(other->GetSnapshotForCommit()->Get(kHead), "c39");
  EXPECT_EQ(other->rpc_counts().linearizable_ranges, before.linearizable_ranges + 1);
}

TEST_F(EtcdReadCacheTest, ASmallCacheForgetsAndStaysRight) {
  auto cached = OpenWithCache(2048);
  auto truth = OpenWithCache(0);
  std::mt19937 random(7);
  for (int round = 0; round < 40; ++round) {
    RandomCommit(*truth, random, round);
    ASSERT_EQ(ReadEverything(*cached), ReadEverything(*truth)) << "round " << round;
  }
}

TEST_F(EtcdReadCacheTest, TheWatchMovesOnWhenItsMemberDies) {
  auto cached = OpenWithCache(size_t{64} << 20);
  auto truth = OpenWithCache(0);
  std::mt19937 random(3);
  int round = 0;
  for (; round < 10; ++round) {
    RandomCommit(*truth, random, round);
    ASSERT_EQ(ReadEverything(*cached), ReadEverything(*truth)) << "round " << round;
  }
  // The member the handle is on (the leader): its death ends the watch's
  // stream.
  const int member = static_cast<int>(cached->current_member());
  cluster().Kill(member);
  for (; round < 30; ++round) {
    RandomCommit(*truth, random, round);
    ASSERT_EQ(ReadEverything(*cached), ReadEverything(*truth)) << "round " << round;
  }
  const auto before = cached->read_cache_counts();
  for (; round < 40; ++round) {
    RandomCommit(*truth, random, round);
    ASSERT_EQ(ReadEverything(*cached), ReadEverything(*truth)) << "round " << round;
  }
  // The watch runs again on another member: reads are answered again.
  EXPECT_GT(cached->read_cache_counts().hits, before.hits);
  cluster().Restart(member);
  ASSERT_TRUE(cluster().WaitHealthy(std::chrono::seconds(20)));
}

// A member that stops answering without closing its connections (stopped
// with SIGSTOP) would hold the watch's stream silent for ever: the watch
// checks a member silent for 10 s with a probe (3 s to answer), ends the
// stream when it fails, and moves on to another member.
TEST_F(EtcdReadCacheTest, TheWatchMovesOnWhenItsMemberStops) {
  auto cached = OpenWithCache(size_t{64} << 20);
  auto truth = OpenWithCache(0);
  std::mt19937 random(5);
  int round = 0;
  for (; round < 5; ++round) {
    RandomCommit(*truth, random, round);
    ASSERT_EQ(ReadEverything(*cached), ReadEverything(*truth)) << "round " << round;
  }
  // The member the handle is on: its stream goes silent.
  const int member = static_cast<int>(cached->current_member());
  cluster().Pause(member);
  const auto before = cached->read_cache_counts();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(40);
  bool answered_again = false;
  for (; !answered_again && std::chrono::steady_clock::now() < deadline; ++round) {
    RandomCommit(*truth, random, round);
    ASSERT_EQ(ReadEverything(*cached), ReadEverything(*truth)) << "round " << round;
    // A hit needs the stream to have applied the newest commit: only a
    // stream on another member can.
    answered_again = cached->read_cache_counts().hits > before.hits;
  }
  cluster().Resume(member);
  EXPECT_TRUE(answered_again) << "the watch stayed on the stopped member";
  ASSERT_TRUE(cluster().WaitHealthy(std::chrono::seconds(20)));
}

}  // namespace
}  // namespace moraine::store
