// EtcdCommitQueue: when a handle joins the lake's commit queue, whose turn
// it is as the change watch shows the entries, and how long a stalled entry
// ahead holds a handle up.
#include "store/etcd/etcd_commit_queue.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace moraine::store {
namespace {

using Clock = EtcdCommitQueue::Clock;
constexpr const char* kPrefix = "lake/i/";

TEST(EtcdCommitQueue, ALoneWriterNeverJoins) {
  EtcdCommitQueue queue(kPrefix, "me");
  EXPECT_FALSE(queue.ShouldJoin());
  queue.AfterCommit(true);
  EXPECT_FALSE(queue.ShouldJoin());
  EXPECT_FALSE(queue.Queued());
  EXPECT_TRUE(queue.AwaitTurn().stale.empty());
}

TEST(EtcdCommitQueue, AWriterJoinsAfterALostRaceOrWhenOthersAreQueued) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.AfterCommit(false);
  EXPECT_TRUE(queue.ShouldJoin());
  queue.Joined(10);
  EXPECT_TRUE(queue.Queued());
  EXPECT_FALSE(queue.ShouldJoin());  // once queued, it keeps its place
  queue.AfterCommit(true);           // its landing commit deleted its entry
  EXPECT_FALSE(queue.Queued());
  EXPECT_FALSE(queue.ShouldJoin());

  // Another writer's entry: a newcomer does not cut in.
  queue.Observe("lake/i/other", 20);
  EXPECT_TRUE(queue.ShouldJoin());
  queue.Observe("lake/i/other", std::nullopt);
  EXPECT_FALSE(queue.ShouldJoin());
  // Its own entry, shown late by the watch, is not another writer's.
  queue.Observe("lake/i/me", 30);
  EXPECT_FALSE(queue.ShouldJoin());
}

TEST(EtcdCommitQueue, TheFirstEntryGoesAtOnce) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Joined(10);
  queue.Observe("lake/i/me", 10);
  queue.Observe("lake/i/later", 11);
  const auto start = Clock::now();
  const auto turn = queue.AwaitTurn();
  EXPECT_TRUE(turn.stale.empty());
  EXPECT_FALSE(turn.handed_on);
  EXPECT_LT(Clock::now() - start, EtcdCommitQueue::kStall);
}

TEST(EtcdCommitQueue, AWriterWaitsUntilTheEntriesAheadAreDeleted) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Joined(30);
  queue.Observe("lake/i/a", 10);
  queue.Observe("lake/i/b", 20);
  queue.Observe("lake/i/me", 30);
  const auto start = Clock::now();
  std::thread others([&] {
    // Each landing commit hands the turn on well within kStall.
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    queue.Observe("lake/i/a", std::nullopt);
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    queue.Observe("lake/i/b", std::nullopt);
  });
  const auto turn = queue.AwaitTurn();
  const auto waited = Clock::now() - start;
  others.join();
  EXPECT_TRUE(turn.stale.empty());
  EXPECT_TRUE(turn.handed_on);
  EXPECT_GE(waited, std::chrono::milliseconds(80));
  EXPECT_TRUE(queue.Queued());
}

TEST(EtcdCommitQueue, AnEntryThatStallsFirstHoldsAWriterUpForAtMostTheStall) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Joined(30);
  queue.Observe("lake/i/dead", 10);
  queue.Observe("lake/i/me", 30);
  const auto start = Clock::now();
  const auto stale = queue.AwaitTurn().stale;
  const auto waited = Clock::now() - start;
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_EQ(stale[0].key, "lake/i/dead");
  EXPECT_EQ(stale[0].create_revision, 10);
  EXPECT_GE(waited, EtcdCommitQueue::kStall);
  EXPECT_LT(waited, 3 * EtcdCommitQueue::kStall);
  // Skipped once, not waited on again.
  EXPECT_TRUE(queue.AwaitTurn().stale.empty());
}

TEST(EtcdCommitQueue, AfterSkippingAStalledEntryAWriterStillWaitsForTheLiveOnesAhead) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Joined(30);
  queue.Observe("lake/i/dead", 10);
  queue.Observe("lake/i/alive", 20);
  queue.Observe("lake/i/me", 30);
  const auto start = Clock::now();
  std::thread alive([&] {
    std::this_thread::sleep_for(EtcdCommitQueue::kStall + std::chrono::milliseconds(40));
    queue.Observe("lake/i/alive", std::nullopt);
  });
  const auto turn = queue.AwaitTurn();
  const auto waited = Clock::now() - start;
  alive.join();
  ASSERT_EQ(turn.stale.size(), 1u);
  EXPECT_EQ(turn.stale[0].key, "lake/i/dead");
  EXPECT_TRUE(turn.handed_on);
  EXPECT_GE(waited, EtcdCommitQueue::kStall + std::chrono::milliseconds(40));
}

TEST(EtcdCommitQueue, AWriterWaitsForTheWatchToShowItsOwnEntryAtMostTheStall) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Joined(30);
  const auto start = Clock::now();
  std::thread watch([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    queue.Observe("lake/i/me", 30);
  });
  EXPECT_TRUE(queue.AwaitTurn().stale.empty());
  watch.join();
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(20));

  // A watch that never shows it holds the writer up no longer than the stall.
  EtcdCommitQueue lagging(kPrefix, "me");
  lagging.Joined(30);
  const auto lag_start = Clock::now();
  EXPECT_TRUE(lagging.AwaitTurn().stale.empty());
  EXPECT_LT(Clock::now() - lag_start, 3 * EtcdCommitQueue::kStall);
}

TEST(EtcdCommitQueue, ADeletionOfAnOlderOwnEntryKeepsTheNewPlace) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Observe("lake/i/me", 10);  // an entry a landing commit deletes ...
  queue.Joined(20);                // ... after which the handle joined again
  queue.Observe("lake/i/me", std::nullopt);
  EXPECT_TRUE(queue.Queued());
  queue.Observe("lake/i/me", 20);
  queue.Observe("lake/i/me", std::nullopt);  // the new entry removed as stale
  EXPECT_FALSE(queue.Queued());
}

TEST(EtcdCommitQueue, AWriterThatLeavesGivesUpItsPlace) {
  EtcdCommitQueue queue(kPrefix, "me");
  EXPECT_EQ(queue.Leave(), std::nullopt);
  queue.AfterCommit(false);
  queue.Joined(30);
  queue.Observe("lake/i/me", 30);
  EXPECT_EQ(queue.Leave(), 30);
  EXPECT_FALSE(queue.Queued());
  EXPECT_FALSE(queue.ShouldJoin());  // its lost race is forgotten with its place
}

TEST(EtcdCommitQueue, AWatchRestartForgetsTheQueue) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Observe("lake/i/other", 10);
  queue.Joined(20);
  queue.Forget();
  EXPECT_FALSE(queue.Queued());
  EXPECT_FALSE(queue.ShouldJoin());
}

}  // namespace
}  // namespace moraine::store
