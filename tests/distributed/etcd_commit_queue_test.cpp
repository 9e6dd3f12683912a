// Turns among the writers of one lake (etcd_commit_queue.h), on a real
// cluster: a handle that lost its race joins the lake's commit queue and its
// landing commit hands the turn on; a busy writer keeps a place in the same
// Txn and an idle one gives the first place up; an entry a killed writer
// left first holds the others up for a bounded time and is removed.

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "distributed/etcd_store_fixture.h"
#include "store/etcd/etcd_commit_queue.h"
#include "store/key.h"

namespace moraine::store {
namespace {

const std::string kHead = Key::Current(Kind::kHead, {}).Encode();

bool CommitHead(EtcdStore& store, const std::optional<std::string>& expected,
                const std::string& value) {
  WriteBatch batch;
  batch.Put(kHead, value);
  return store.WriteIfHeadUnchanged(kHead, expected, batch);
}

class EtcdCommitQueueTest : public test::EtcdStoreFixture {
 protected:
  // `winner` commits the head twice and `loser` loses its race to the
  // second; the stale head `loser` read, which it may lose with again.
  std::optional<std::string> LoseARace(EtcdStore& loser, EtcdStore& winner) {
    EXPECT_TRUE(CommitHead(winner, std::nullopt, "first"));
    const auto stale = loser.GetSnapshot()->Get(kHead);
    EXPECT_TRUE(CommitHead(winner, winner.GetSnapshot()->Get(kHead), "second"));
    EXPECT_FALSE(CommitHead(loser, stale, "lost"));
    return stale;
  }
  std::string QueuePrefix() const { return prefix_ + "/i/"; }
  // The queue's keys in the cluster, one per line (etcdctl as root).
  std::string QueueKeys() const {
    return cluster_->EtcdCtl("get --prefix --keys-only " + QueuePrefix());
  }
};

TEST_F(EtcdCommitQueueTest, AWriterThatLostJoinsAndItsLandingCommitHandsTheTurnOn) {
  auto loser = OpenEtcd({});
  auto winner = OpenEtcd({});
  LoseARace(*loser, *winner);
  EXPECT_FALSE(loser->InCommitQueue());  // nobody is held up while it re-reads
  EXPECT_EQ(QueueKeys(), "");

  // Its next attempt joins first, and the commit that lands deletes its entry.
  ASSERT_TRUE(CommitHead(*loser, loser->GetSnapshot()->Get(kHead), "loser lands"));
  EXPECT_FALSE(loser->InCommitQueue());
  EXPECT_EQ(QueueKeys(), "");
  EXPECT_EQ(winner->GetSnapshot()->Get(kHead), "loser lands");
  // With the queue empty again, nobody joins: the winner goes straight on.
  ASSERT_TRUE(CommitHead(*winner, winner->GetSnapshot()->Get(kHead), "third"));
  EXPECT_FALSE(winner->InCommitQueue());
}

TEST_F(EtcdCommitQueueTest, AWriterThatGivesUpLeavesTheQueueAndHoldsNobodyUp) {
  auto loser = OpenEtcd({});
  auto winner = OpenEtcd({});
  const auto stale = LoseARace(*loser, *winner);
  // It joins, and loses again (its head is still the stale one): it keeps
  // its place for the retry ...
  ASSERT_FALSE(CommitHead(*loser, stale, "lost again"));
  EXPECT_TRUE(loser->InCommitQueue());
  EXPECT_NE(QueueKeys(), "");
  // ... until its commit gives up (DuckLake's conflict error, say).
  loser->LeaveCommitQueue();
  EXPECT_FALSE(loser->InCommitQueue());
  EXPECT_EQ(QueueKeys(), "");
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(CommitHead(*winner, winner->GetSnapshot()->Get(kHead), "third"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, EtcdCommitQueue::kStall);
}

TEST_F(EtcdCommitQueueTest, AnEntryAKilledWriterLeftFirstHoldsOthersUpBriefly) {
  auto writer = OpenEtcd({});
  ASSERT_TRUE(CommitHead(*writer, std::nullopt, "first"));
  // What a writer killed while it held the turn leaves: the first entry,
  // never deleted.
  cluster_->EtcdCtl("put " + QueuePrefix() + "killed-writer x");

  // A handle that sees the queue non-empty joins behind it, waits at most
  // the stall, removes the entry and commits.
  auto other = OpenEtcd({});
  const auto head = other->GetSnapshot()->Get(kHead);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(CommitHead(*other, head, "went on"));
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, EtcdCommitQueue::kStall);
  EXPECT_LT(waited, std::chrono::seconds(2));
  EXPECT_EQ(QueueKeys(), "");
  EXPECT_FALSE(other->InCommitQueue());
  // And the queue is empty for the next commit: no wait at all.
  const auto next_start = std::chrono::steady_clock::now();
  ASSERT_TRUE(CommitHead(*writer, writer->GetSnapshot()->Get(kHead), "next"));
  EXPECT_LT(std::chrono::steady_clock::now() - next_start, EtcdCommitQueue::kStall);
}

TEST_F(EtcdCommitQueueTest, ABusyWriterKeepsItsPlaceInItsLandingCommitAndAnIdleOneLetsItGo) {
  auto busy = OpenEtcd({});
  auto idle = OpenEtcd({});
  ASSERT_TRUE(CommitHead(*busy, std::nullopt, "first"));
  // `idle` lost a race: its next commit joins whatever its watch has shown.
  EXPECT_FALSE(CommitHead(*idle, std::nullopt, "lost"));
  // Stalled entries ahead (each holds a waiter up for kStall) keep `busy` in
  // the queue long enough for `idle` to queue behind it, even on a loaded host.
  for (int i = 0; i < 3; ++i) {
    cluster_->EtcdCtl("put " + QueuePrefix() + "killed-writer-" + std::to_string(i) + " x");
  }
  const auto head = busy->GetSnapshot()->Get(kHead);
  bool busy_landed = false;
  std::thread busy_commit([&] { busy_landed = CommitHead(*busy, head, "busy lands"); });
  while (!busy->InCommitQueue()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  bool idle_landed = true;
  std::thread idle_commit([&] { idle_landed = CommitHead(*idle, head, "idle loses"); });
  busy_commit.join();
  idle_commit.join();
  ASSERT_TRUE(busy_landed);
  EXPECT_FALSE(idle_landed);
  // `busy` landed with `idle` queued behind it: its commit queued it again.
  EXPECT_TRUE(busy->InCommitQueue());

  // `idle` holds the first place and commits no more: it gives the place up
  // within its idle turn (the longer one after a loss), and `busy`'s next
  // commit is one Txn: no join, and no removal of a stalled entry.
  const auto txns_before = busy->rpc_counts().txns;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(CommitHead(*busy, busy->GetSnapshot()->Get(kHead), "busy again"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2 * EtcdCommitQueue::kStall);
  EXPECT_EQ(busy->rpc_counts().txns - txns_before, 1u);
  // Nobody was behind it then: the queue is empty.
  EXPECT_FALSE(busy->InCommitQueue());
  EXPECT_FALSE(idle->InCommitQueue());
  EXPECT_EQ(QueueKeys(), "");
}

}  // namespace
}  // namespace moraine::store
