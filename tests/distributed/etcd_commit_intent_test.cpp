// Fairness among the writers of one lake (etcd_commit_intent.h), on a real
// cluster: a handle that keeps losing the race for the head claims the next
// commit, another handle's commit waits for it, and the claim ends when the
// claimant's commit lands.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "distributed/etcd_store_fixture.h"
#include "store/etcd/etcd_commit_intent.h"
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

template <class Condition>
bool Eventually(Condition condition) {
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= limit) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

class EtcdCommitIntentTest : public test::EtcdStoreFixture {};

TEST_F(EtcdCommitIntentTest, AWriterThatKeepsLosingIsLetThroughFirst) {
  auto starving = OpenEtcd({});
  auto winner = OpenEtcd({});
  for (int loss = 0; loss < EtcdCommitIntent::kClaimAfterLosses; ++loss) {
    EXPECT_FALSE(winner->HeldBackByAnotherWriter());
    const auto stale = starving->GetSnapshot()->Get(kHead);
    ASSERT_TRUE(CommitHead(*winner, winner->GetSnapshot()->Get(kHead), "w" + std::to_string(loss)));
    ASSERT_FALSE(CommitHead(*starving, stale, "lost"));
  }
  // Nothing is claimed while the starving handle backs off; its next
  // snapshot, which begins its next attempt, claims it, and the other handle
  // sees the claim.
  EXPECT_FALSE(winner->HeldBackByAnotherWriter());
  const auto head = starving->GetSnapshot()->Get(kHead);
  ASSERT_TRUE(Eventually([&] { return winner->HeldBackByAnotherWriter(); }));
  EXPECT_FALSE(starving->HeldBackByAnotherWriter());

  std::atomic<bool> held_back_commit_done{false};
  bool held_back_commit_landed = true;
  std::thread held_back([&] {
    held_back_commit_landed = CommitHead(*winner, winner->GetSnapshot()->Get(kHead), "late");
    held_back_commit_done = true;
  });
  // Well inside the longest wait (kMaxWait, 100 ms), so that the claimant's
  // commit below lands before it ends even on a loaded machine.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(held_back_commit_done);
  EXPECT_TRUE(CommitHead(*starving, head, "starving wins"));
  held_back.join();
  // The held-back commit read the head before the claimant's landed: it lost.
  EXPECT_FALSE(held_back_commit_landed);
  EXPECT_EQ(winner->GetSnapshot()->Get(kHead), "starving wins");
  // Its commit landed, so the claim is gone.
  EXPECT_TRUE(Eventually([&] { return !winner->HeldBackByAnotherWriter(); }));
  EXPECT_TRUE(CommitHead(*winner, winner->GetSnapshot()->Get(kHead), "next"));
}

}  // namespace
}  // namespace moraine::store
