#pragma once

// The turns of a lake's writers on etcd (issue #37), as one handle sees them.
//
// Every head commit races for the lake's head; with many writer processes
// each commit that lands makes every other writer's attempt in flight lose,
// and each loser reads again and sends again: most of the cluster's work goes
// to attempts that cannot land. Writers that contend take turns instead,
// in the order of a queue the cluster keeps, etcd's lock recipe without a
// lock: a handle joins by putting its entry, <prefix>/i/<handle>
// (etcd_keyspace.h), and the entries' create revisions are the order. A
// handle whose entry is the first commits; its landing commit deletes its
// entry in the same Txn, which hands the turn on. A handle joins when its
// last head commit lost, or when the queue is not empty (so a newcomer does
// not cut in); a lake with one writer never has a queue.
//
// A turn only orders commits in time; the head compare still decides every
// commit, so a late, lost or stale entry never changes what lands. A handle
// that dies, or stops committing, holding the first entry holds the others
// up for at most kStall: a handle that has waited that long on one first
// entry while the queue did not move goes ahead and removes that entry (the
// removal compares its create revision, so it never removes a newer entry of
// the same handle).
//
// The view is fed by the handle's change watch (every PUT and DELETE of an
// entry, in revision order, and a re-read of the queue whenever the watch
// starts); a handle waits for its turn only once the watch has shown its own
// entry, so every entry created before it is known.
//
// Thread-safety: every member may be called from any thread (the store's
// commits and its change watch); mutex_ guards the view. No member blocks on
// the network: the store sends the RPCs.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace moraine::store {

class EtcdCommitQueue {
 public:
  using Clock = std::chrono::steady_clock;
  // The longest a handle waits on one first entry while the queue does not move.
  static constexpr std::chrono::milliseconds kStall{100};

  // `queue_prefix`: where the lake's entries live; `self` names this handle
  // (unique among the lake's handles).
  EtcdCommitQueue(std::string queue_prefix, std::string_view self);

  // Where the lake's entries live (a key under it is an entry).
  const std::string& prefix() const { return queue_prefix_; }
  // This handle's entry key, and the value it puts there.
  const std::string& own_key() const { return own_key_; }
  const std::string& own_value() const { return own_value_; }

  // From the change watch: `key` (an entry key) was put with
  // `create_revision`, or deleted (nullopt).
  void Observe(std::string_view key, std::optional<int64_t> create_revision);
  // The watch (re)starts: every entry is forgotten until it is shown again.
  void Forget();

  // Whether this handle should join before its next head commit: its last
  // one lost, or another handle's entry is queued. False while it is queued.
  bool ShouldJoin();
  // This handle's entry was put at `create_revision`; its head commits wait
  // for its turn from now on.
  void Joined(int64_t create_revision);
  // Whether this handle holds an entry (as it put it, and the watch has not
  // shown it deleted since).
  bool Queued();
  // After a head commit: whether it landed (a landing commit deleted the
  // handle's entry).
  void AfterCommit(bool landed);
  // The handle gives up its place (its commit gave up, or it closes): the
  // create revision of the entry it held, for the store to delete; nullopt
  // if it held none.
  std::optional<int64_t> Leave();

  // An entry another handle left first for kStall: skipped, and to be
  // removed if its create revision still matches.
  struct Entry {
    std::string key;
    int64_t create_revision = 0;
  };
  struct Turn {
    // The entries it stopped waiting on, each after kStall.
    std::vector<Entry> stale;
    // Whether an entry ahead was deleted while it waited: another handle's
    // commit landed, so the head it read has most likely moved.
    bool handed_on = false;
  };
  // Blocks until this handle's entry is the first, or it is not queued any
  // more.
  Turn AwaitTurn();

 private:
  bool OwnEntryShownLocked() const;

  const std::string queue_prefix_;
  const std::string own_key_;
  const std::string own_value_;
  std::mutex mutex_;
  std::condition_variable moved_;
  std::map<int64_t, std::string> entries_;  // create revision -> key, as the watch showed
  std::optional<int64_t> own_revision_;     // this handle's entry, as it put it
  bool lost_last_ = false;
  uint64_t moves_ = 0;  // changes the watch showed, so a waiter sees the queue move
};

}  // namespace moraine::store
