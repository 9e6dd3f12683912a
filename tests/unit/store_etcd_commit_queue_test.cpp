// EtcdCommitQueue: when a handle joins the lake's commit queue, whose turn
// it is as the change watch shows the entries, how long a stalled entry
// ahead holds a handle up, and when a busy handle keeps its place and an
// idle one gives it up.
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
  EXPECT_EQ(queue.JoinKey(), "lake/i/me/a");
  queue.Joined(10);
  EXPECT_TRUE(queue.Queued());
  EXPECT_FALSE(queue.ShouldJoin());  // once queued, it keeps its place
  queue.StartCommit();
  const auto handover = queue.PlanHandover();
  ASSERT_TRUE(handover.ends);
  EXPECT_EQ(handover.ends->key, "lake/i/me/a");
  EXPECT_EQ(handover.stays_at, std::nullopt);  // nobody behind it
  queue.AfterCommit(true, handover);           // its landing commit deleted its entry
  queue.EndCommit();
  EXPECT_FALSE(queue.Queued());
  EXPECT_FALSE(queue.ShouldJoin());

  // Another writer's entry: a newcomer does not cut in.
  queue.Observe("lake/i/other", 20);
  EXPECT_TRUE(queue.ShouldJoin());
  queue.Observe("lake/i/other", std::nullopt);
  EXPECT_FALSE(queue.ShouldJoin());
  // Its own entry, shown late by the watch, is not another writer's.
  queue.Observe("lake/i/me/a", 30);
  EXPECT_FALSE(queue.ShouldJoin());
}

TEST(EtcdCommitQueue, TheFirstEntryGoesAtOnce) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Joined(10);
  queue.Observe("lake/i/me/a", 10);
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
  queue.Observe("lake/i/me/a", 30);
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
  queue.Observe("lake/i/me/a", 30);
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
  queue.Observe("lake/i/me/a", 30);
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
    queue.Observe("lake/i/me/a", 30);
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
  queue.Observe("lake/i/me/a", 10);  // an entry a landing commit deletes ...
  queue.Joined(20);                  // ... after which the handle joined again
  queue.Observe("lake/i/me/a", std::nullopt);
  EXPECT_TRUE(queue.Queued());
  queue.Observe("lake/i/me/a", 20);
  queue.Observe("lake/i/me/a", std::nullopt);  // the new entry removed as stale
  EXPECT_FALSE(queue.Queued());
}

TEST(EtcdCommitQueue, AWriterThatLeavesGivesUpItsPlace) {
  EtcdCommitQueue queue(kPrefix, "me");
  EXPECT_EQ(queue.Leave(), std::nullopt);
  queue.AfterCommit(false);
  queue.Joined(30);
  queue.Observe("lake/i/me/a", 30);
  const auto left = queue.Leave();
  ASSERT_TRUE(left);
  EXPECT_EQ(left->key, "lake/i/me/a");
  EXPECT_EQ(left->create_revision, 30);
  EXPECT_FALSE(queue.Queued());
  EXPECT_FALSE(queue.ShouldJoin());  // its lost race is forgotten with its place
  // The next join takes the other slot: the deletion of this one may land
  // after it.
  EXPECT_EQ(queue.JoinKey(), "lake/i/me/b");
}

TEST(EtcdCommitQueue, AWatchRestartForgetsTheQueue) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Observe("lake/i/other", 10);
  queue.Joined(20);
  queue.Forget();
  EXPECT_FALSE(queue.Queued());
  EXPECT_FALSE(queue.ShouldJoin());
}

TEST(EtcdCommitQueue, ABusyWriterKeepsAPlaceBehindTheOthers) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Joined(10);
  queue.Observe("lake/i/me/a", 10);
  queue.Observe("lake/i/x/a", 11);
  queue.Observe("lake/i/y/a", 12);
  queue.StartCommit();
  EXPECT_TRUE(queue.AwaitTurn().stale.empty());
  const auto handover = queue.PlanHandover();
  ASSERT_TRUE(handover.ends);
  EXPECT_EQ(handover.ends->create_revision, 10);
  EXPECT_EQ(handover.stays_at, "lake/i/me/b");
  // The commit landed at revision 20: its entry is behind the others.
  queue.AfterCommit(true, handover, 20);
  queue.EndCommit();
  EXPECT_TRUE(queue.Queued());
  EXPECT_FALSE(queue.ShouldJoin());
  // The watch shows the Txn's deletion and put after the commit returned.
  queue.Observe("lake/i/me/a", std::nullopt);
  queue.Observe("lake/i/me/b", 20);
  EXPECT_TRUE(queue.Queued());

  // Its next commit waits for the two ahead, and stays again only if
  // someone is behind it then.
  queue.StartCommit();
  std::thread others([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    queue.Observe("lake/i/x/a", std::nullopt);
    queue.Observe("lake/i/y/a", std::nullopt);
  });
  EXPECT_TRUE(queue.AwaitTurn().handed_on);
  others.join();
  const auto last = queue.PlanHandover();
  EXPECT_EQ(last.ends->key, "lake/i/me/b");
  EXPECT_EQ(last.stays_at, std::nullopt);
  queue.AfterCommit(true, last);
  queue.EndCommit();
  EXPECT_FALSE(queue.Queued());
}

TEST(EtcdCommitQueue, AWriterWithTwoCommitsInFlightDoesNotStay) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Joined(10);
  queue.Observe("lake/i/me/a", 10);
  queue.Observe("lake/i/x/a", 11);
  queue.StartCommit();
  queue.StartCommit();
  EXPECT_EQ(queue.PlanHandover().stays_at, std::nullopt);
}

TEST(EtcdCommitQueue, ALandingCommitDoesNotEndAPlaceAnotherCommitMoved) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Joined(10);
  queue.Observe("lake/i/x/a", 11);
  queue.StartCommit();
  const auto first = queue.PlanHandover();
  queue.StartCommit();
  const auto second = queue.PlanHandover();  // planned on the same place
  queue.AfterCommit(true, first, 20);        // ... which the first moved
  queue.AfterCommit(true, second);           // the second deleted a key already gone
  EXPECT_TRUE(queue.Queued());
  EXPECT_EQ(queue.PlanHandover().ends->create_revision, 20);
}

TEST(EtcdCommitQueue, AnIdleWriterGivesUpTheFirstPlaceAfterTheIdleTurn) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Joined(10);
  queue.Observe("lake/i/me/a", 10);
  queue.Observe("lake/i/x/a", 11);
  const auto start = Clock::now();
  const auto left = queue.AwaitIdleTurn();
  const auto waited = Clock::now() - start;
  ASSERT_TRUE(left);
  EXPECT_EQ(left->key, "lake/i/me/a");
  EXPECT_EQ(left->create_revision, 10);
  EXPECT_GE(waited, EtcdCommitQueue::kIdleTurn);
  EXPECT_LT(waited, EtcdCommitQueue::kStall);
  EXPECT_FALSE(queue.Queued());
  EXPECT_EQ(queue.JoinKey(), "lake/i/me/b");
}

TEST(EtcdCommitQueue, AWriterKeepsItsPlaceWhileItCommitsOrWhileNobodyWaits) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Joined(10);
  queue.Observe("lake/i/me/a", 10);
  std::optional<std::optional<EtcdCommitQueue::Entry>> left;
  std::thread leaver([&] { left = queue.AwaitIdleTurn(); });
  // Alone in the queue: nobody waits on it.
  std::this_thread::sleep_for(4 * EtcdCommitQueue::kIdleTurn);
  EXPECT_TRUE(queue.Queued());
  // Committing, with another behind it: it keeps the turn.
  queue.StartCommit();
  queue.Observe("lake/i/x/a", 11);
  std::this_thread::sleep_for(4 * EtcdCommitQueue::kIdleTurn);
  EXPECT_TRUE(queue.Queued());
  // Its commit ends without landing (its retry is being rebased, say): once
  // idle for the longer idle turn after a loss, it leaves.
  queue.AfterCommit(false);
  const auto ended = Clock::now();
  queue.EndCommit();
  leaver.join();
  EXPECT_GE(Clock::now() - ended, EtcdCommitQueue::kIdleTurnAfterALoss);
  EXPECT_LT(Clock::now() - ended, EtcdCommitQueue::kStall);
  ASSERT_TRUE(left && *left);
  EXPECT_EQ((*left)->create_revision, 10);
  EXPECT_FALSE(queue.Queued());
}

TEST(EtcdCommitQueue, StopWakesTheIdleLeaver) {
  EtcdCommitQueue queue(kPrefix, "me");
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    queue.Stop();
  });
  EXPECT_EQ(queue.AwaitIdleTurn(), std::nullopt);
  stopper.join();
}

// Group commit: the handle whose turn it is sees the intents queued behind
// it, in queue order; plain entries and its own are not intents.
TEST(EtcdCommitQueue, TheTurnHolderSeesTheIntentsBehindIt) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Joined(10);
  queue.Observe("lake/i/me/a", 10, 10, "me");
  queue.Observe("lake/i/plain/a", 11, 11, "plain");
  queue.Observe("lake/i/x/a", 12, 14, EtcdCommitQueue::IntentValue("x.1", "intent of x"));
  queue.Observe("lake/i/y/b", 13, 13, EtcdCommitQueue::IntentValue("y.7", std::string("\0y", 2)));
  const auto intents = queue.IntentsBehind(16);
  ASSERT_EQ(intents.size(), 2u);
  EXPECT_EQ(intents[0].entry.key, "lake/i/x/a");
  EXPECT_EQ(intents[0].entry.create_revision, 12);
  EXPECT_EQ(intents[0].mod_revision, 14);
  EXPECT_EQ(intents[0].offer_id, "x.1");
  EXPECT_EQ(intents[0].intent, "intent of x");
  EXPECT_EQ(intents[1].offer_id, "y.7");
  EXPECT_EQ(intents[1].intent, std::string("\0y", 2));
  EXPECT_EQ(queue.IntentsBehind(1).size(), 1u);
  // An intent taken back (its entry put with a plain value) is none.
  queue.Observe("lake/i/x/a", 12, 15, "x");
  EXPECT_EQ(queue.IntentsBehind(16).size(), 1u);
}

TEST(EtcdCommitQueue, OnlyTheFirstSeesIntents) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Joined(11);
  queue.Observe("lake/i/ahead/a", 10, 10, "ahead");
  queue.Observe("lake/i/me/a", 11, 11, "me");
  queue.Observe("lake/i/x/a", 12, 12, EtcdCommitQueue::IntentValue("x.1", "i"));
  EXPECT_TRUE(queue.IntentsBehind(16).empty());
  EXPECT_FALSE(queue.HoldsFirst());
  queue.Observe("lake/i/ahead/a", std::nullopt);
  EXPECT_TRUE(queue.HoldsFirst());
  EXPECT_EQ(queue.IntentsBehind(16).size(), 1u);
}

// A waiting handle whose intent a group landed wakes with the outcome, which
// the watch shows before the deletion of its entry.
TEST(EtcdCommitQueue, AWaiterWakesWithItsOutcome) {
  EtcdCommitQueue queue(kPrefix, "me");
  queue.Observe("lake/i/first/a", 10, 10, "first");
  const std::string offer = queue.NewOfferId();
  EXPECT_TRUE(offer.starts_with("me."));
  queue.Joined(11);
  queue.Observe("lake/i/me/a", 11, 11, EtcdCommitQueue::IntentValue(offer, "i"));
  std::thread group([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    queue.ObserveOutcome("other.3", "not mine");
    queue.ObserveOutcome(offer, "landed");
    queue.Observe("lake/i/me/a", std::nullopt);
    queue.Observe("lake/i/first/a", std::nullopt);
  });
  const auto start = Clock::now();
  const auto waited = queue.AwaitTurnOrOutcome(offer);
  group.join();
  EXPECT_LT(Clock::now() - start, EtcdCommitQueue::kStall);
  EXPECT_EQ(waited.outcome, "landed");
  EXPECT_EQ(queue.TakeOutcome("other.3"), std::nullopt);  // others' outcomes are not kept
  EXPECT_EQ(queue.TakeOutcome(offer), std::nullopt);      // taken once
  EXPECT_FALSE(queue.Queued());
}

}  // namespace
}  // namespace moraine::store
