#pragma once

// Fairness among the writers of one lake on etcd (issue #12). Every commit
// races for the head; with many writer processes a commit can lose many times
// in a row and run out of DuckLake's retries while others keep winning.
// A handle whose commits have lost kClaimAfterLosses races in a row claims
// its next attempt: before it reads that attempt's snapshot it puts the
// intent key (<prefix>/i, etcd_keyspace.h) with its name and a deadline. The
// other handles see the claim through their change watch and hold their
// commits back until it is released (the claimant's attempt landed or lost,
// and it deleted the key: nobody waits while it backs off), or its deadline
// passed, or they waited kMaxWait. A claim only orders commits in time; the
// head compare still decides every commit, so a lost, late or stale claim
// never changes what lands.
//
// A claimant that dies, or whose commit fails with an error rather than a
// lost race, leaves its claim until the deadline; the first waiter to find a
// claim past its deadline on its own clock removes it, and no waiter waits
// longer than kMaxWait whatever the clocks say.
//
// Thread-safety: every member may be called from any thread (the store's
// commits and its change watch); mutex_ guards the claim.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace moraine::store {

class EtcdCommitIntent {
 public:
  using Clock = std::chrono::system_clock;
  static constexpr int kClaimAfterLosses = 5;
  static constexpr std::chrono::milliseconds kClaimFor{500};
  static constexpr std::chrono::milliseconds kMaxWait{100};

  // `self` names this handle in its claims (unique among the lake's handles).
  explicit EtcdCommitIntent(std::string self) : self_(std::move(self)) {}

  // The value that claims the next commit for this handle until `until`.
  std::string ClaimValue(Clock::time_point until) const;

  // From the change watch: the intent key's new value, or nullopt when it was
  // deleted or the watch cannot tell (it restarted).
  void Observe(std::optional<std::string_view> value);

  // Blocks while another handle's claim is live, at most kMaxWait. Returns
  // the value of a claim that outlived the wait and is past its deadline (to
  // be removed), nullopt otherwise.
  std::optional<std::string> WaitForOthers();

  // Whether another handle's claim is live now, as the watch last showed.
  bool OthersHold();

 private:
  struct Claim {
    std::string owner;
    Clock::time_point until;
  };
  static std::optional<Claim> Parse(std::string_view value);

  const std::string self_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<Claim> claim_;
  std::string claim_value_;  // as put, for a compare when removing it
};

}  // namespace moraine::store
