// EtcdCommitIntent: when a handle holds its commit back for another's claim
// on the lake's next commit, and for how long.
#include "store/etcd/etcd_commit_intent.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace moraine::store {
namespace {

using Clock = EtcdCommitIntent::Clock;

TEST(EtcdCommitIntent, NoClaimAndOwnClaimDoNotHoldACommitBack) {
  EtcdCommitIntent intent("me");
  const auto start = Clock::now();
  EXPECT_EQ(intent.WaitForOthers(), std::nullopt);
  intent.Observe(intent.ClaimValue(Clock::now() + std::chrono::seconds(10)));
  EXPECT_EQ(intent.WaitForOthers(), std::nullopt);
  EXPECT_LT(Clock::now() - start, EtcdCommitIntent::kMaxWait);
}

TEST(EtcdCommitIntent, AnotherHandlesClaimHoldsACommitBackUntilReleased) {
  EtcdCommitIntent intent("me");
  EtcdCommitIntent other("other");
  intent.Observe(other.ClaimValue(Clock::now() + std::chrono::seconds(10)));
  const auto start = Clock::now();
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    intent.Observe(std::nullopt);
  });
  EXPECT_EQ(intent.WaitForOthers(), std::nullopt);
  const auto waited = Clock::now() - start;
  release.join();
  EXPECT_GE(waited, std::chrono::milliseconds(50));
  EXPECT_LT(waited, EtcdCommitIntent::kMaxWait);
}

TEST(EtcdCommitIntent, AClaimThatIsNeverReleasedHoldsBackAtMostTheMaximumWait) {
  EtcdCommitIntent intent("me");
  EtcdCommitIntent other("other");
  intent.Observe(other.ClaimValue(Clock::now() + std::chrono::seconds(10)));
  const auto start = Clock::now();
  EXPECT_EQ(intent.WaitForOthers(), std::nullopt);  // still live: not to be removed
  EXPECT_GE(Clock::now() - start, EtcdCommitIntent::kMaxWait);
}

TEST(EtcdCommitIntent, AClaimPastItsDeadlineHoldsNothingBackAndIsToBeRemoved) {
  EtcdCommitIntent intent("me");
  EtcdCommitIntent other("other");
  const auto stale = other.ClaimValue(Clock::now() - std::chrono::seconds(1));
  intent.Observe(stale);
  const auto start = Clock::now();
  EXPECT_EQ(intent.WaitForOthers(), stale);
  EXPECT_LT(Clock::now() - start, EtcdCommitIntent::kMaxWait);
  // A claim that ends while a commit waits for it is to be removed too.
  const auto brief = other.ClaimValue(Clock::now() + std::chrono::milliseconds(30));
  intent.Observe(brief);
  EXPECT_EQ(intent.WaitForOthers(), brief);
}

TEST(EtcdCommitIntent, AValueThatIsNoClaimIsIgnored) {
  EtcdCommitIntent intent("me");
  for (const char* value : {"", "no bar", "other|", "other|12x", "other|-"}) {
    intent.Observe(std::string_view(value));
    EXPECT_EQ(intent.WaitForOthers(), std::nullopt) << value;
  }
}

}  // namespace
}  // namespace moraine::store
