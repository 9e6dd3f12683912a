#pragma once

// The turns of a lake's writers on etcd (issue #37), as one handle sees them.
//
// Every head commit races for the lake's head; with many writer processes
// each commit that lands makes every other writer's attempt in flight lose,
// and each loser reads again and sends again: most of the cluster's work goes
// to attempts that cannot land. Writers that contend take turns instead,
// in the order of a queue the cluster keeps, etcd's lock recipe without a
// lock: a handle joins by putting its entry, <prefix>/i/<handle>/<slot>
// (etcd_keyspace.h), and the entries' create revisions are the order. A
// handle whose entry is the first commits; its landing commit deletes its
// entry in the same Txn, which hands the turn on. A handle joins when its
// last head commit lost, or when the queue is not empty (so a newcomer does
// not cut in); a lake with one writer never has a queue.
//
// A busy handle keeps a place: when others are queued behind it, its landing
// commit also puts its entry again under its other slot (a key the Txn does
// not delete), whose create revision, the commit's, puts it behind them. So
// under contention a commit costs one raft write, not two (a join and a
// commit). A handle that holds the first entry while none of its commits is
// in flight for kIdleTurn leaves (AwaitIdleTurn), so an idle place holds the
// others up briefly, not for kStall.
//
// A turn only orders commits in time; the head compare still decides every
// commit, so a late, lost or stale entry never changes what lands. A handle
// that dies (or whose process stalls) holding the first entry holds the
// others up for at most kStall: a handle that has waited that long on one first
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
  // How long a handle holds the first entry with no commit in flight before
  // it leaves: a busy writer's next commit is ready long before its turn
  // comes round again; one that is not costs the others this much.
  static constexpr std::chrono::milliseconds kIdleTurn{5};
  // The same after the handle's last commit lost: its retry, rebased, may
  // take a few reads; this is still well within kStall.
  static constexpr std::chrono::milliseconds kIdleTurnAfterALoss{50};

  // `queue_prefix`: where the lake's entries live; `self` names this handle
  // (unique among the lake's handles, without a '/').
  EtcdCommitQueue(std::string queue_prefix, std::string_view self);

  // Where the lake's entries live (a key under it is an entry).
  const std::string& prefix() const { return queue_prefix_; }
  // The value this handle puts in its entries.
  const std::string& own_value() const { return own_value_; }

  // An entry: its key and create revision.
  struct Entry {
    std::string key;
    int64_t create_revision = 0;
  };

  // From the change watch: `key` (an entry key) was put with
  // `create_revision` (and `mod_revision`, holding `value`), or deleted
  // (nullopt).
  void Observe(std::string_view key, std::optional<int64_t> create_revision,
               int64_t mod_revision = 0, std::string_view value = {});
  // The watch (re)starts: every entry is forgotten until it is shown again.
  void Forget();

  // Whether this handle should join before its next head commit: its last
  // one lost, or another handle's entry is queued. False while it is queued.
  bool ShouldJoin();
  // The key a join puts (a put to an entry that survived keeps its place).
  std::string JoinKey();
  // This handle's entry was put at `create_revision` under JoinKey(); its
  // head commits wait for their turn from now on.
  void Joined(int64_t create_revision);
  // Whether this handle holds an entry (as it put it, and the watch has not
  // shown it deleted since).
  bool Queued();
  // The entry this handle holds, if any.
  std::optional<Entry> OwnEntry();
  // Whether this handle's entry is the first the watch shows.
  bool HoldsFirst();

  // A head commit of this handle is in flight from StartCommit to
  // EndCommit (which must follow, also when the commit throws).
  void StartCommit();
  void EndCommit();
  // What a head commit does to the queue if it lands: it deletes the entry
  // the handle holds (`ends`), and when others are queued and no other
  // commit of the handle is in flight, it puts the handle's entry again
  // under `stays_at`, the other slot.
  struct Handover {
    std::optional<Entry> ends;
    std::optional<std::string> stays_at;
  };
  Handover PlanHandover();
  // After a head commit sent with `handover`: whether it landed, and the
  // create revision of the entry it put under `stays_at` (nullopt if unknown:
  // the handle then holds no place).
  void AfterCommit(bool landed, const Handover& handover = {},
                   std::optional<int64_t> stayed_at = std::nullopt);
  // The handle gives up its place (its commit gave up, or it closes): the
  // entry it held, for the store to delete; nullopt if it held none.
  std::optional<Entry> Leave();

  // --- Group commit (docs/research/cross-process-group-commit.md) ---
  // A waiting handle puts its commit's intent (opaque bytes,
  // store::CommitOffer) as its entry's value, under an offer id; the handle
  // whose turn it is lands the intents queued behind it with its own commit,
  // in one Txn that compares each entry's mod revision, deletes the entry
  // and puts an outcome record <prefix>/j/<offer id> the waiter's watch shows.
  // The waiter's own landing compares its entry's mod revision too, so an
  // intent lands exactly once: by a group, or by its writer. What the queue
  // shows of a waiter's own entry never settles its intent: only a Txn that
  // compares the entry does (EtcdStore).

  // The value of an entry that holds intent `intent` under `offer_id`.
  static std::string IntentValue(std::string_view offer_id, std::string_view intent);
  // A fresh offer id of this handle's.
  std::string NewOfferId();

  // An intent queued behind this handle's entry.
  struct QueuedIntent {
    Entry entry;
    int64_t mod_revision = 0;
    std::string offer_id;
    std::string intent;
  };
  // The intents queued behind this handle's entry, in queue order, at most
  // `max` (none unless the handle holds the first entry).
  std::vector<QueuedIntent> IntentsBehind(size_t max);

  // From the change watch: the outcome record of `offer_id` was put.
  void ObserveOutcome(std::string_view offer_id, std::string_view outcome);

  struct Turn {
    // The entries it stopped waiting on, each after kStall: skipped, and to
    // be removed if their create revision still matches.
    std::vector<Entry> stale;
    // Whether an entry ahead was deleted while it waited: another handle's
    // commit landed (or an idle one left), so the head it read may have moved.
    bool handed_on = false;
  };
  // Blocks until this handle's entry is the first, or it is not queued any
  // more.
  Turn AwaitTurn();
  // AwaitTurn, except that it also returns, with the outcome, once the
  // outcome record of `offer_id` is shown.
  struct TurnOrOutcome {
    Turn turn;
    std::optional<std::string> outcome;
  };
  TurnOrOutcome AwaitTurnOrOutcome(const std::string& offer_id);
  // The outcome shown for `offer_id`, if any (taken: shown once).
  std::optional<std::string> TakeOutcome(const std::string& offer_id);

  // Blocks until this handle has held the first entry, with others queued
  // behind it and none of its commits in flight, for kIdleTurn (or
  // kIdleTurnAfterALoss); then leaves and returns the entry, for the store
  // to delete. Nullopt once Stop() is called.
  std::optional<Entry> AwaitIdleTurn();
  // Wakes AwaitIdleTurn for good (the handle closes).
  void Stop();

 private:
  // An entry as the watch showed it.
  struct ShownEntry {
    std::string key;
    int64_t mod_revision = 0;
    std::string value;
  };

  Turn AwaitTurnLocked(std::unique_lock<std::mutex>& lock, const std::string* outcome_of);
  bool OwnEntryShownLocked() const;
  std::optional<std::string> TakeOutcomeLocked(const std::string& offer_id);
  bool OwnKeyLocked(std::string_view key) const;
  bool OthersQueuedLocked() const;
  std::optional<Entry> LeaveLocked();

  const std::string queue_prefix_;
  const std::string own_base_;  // <prefix><handle>/: the handle's two slots are under it
  const std::string own_value_;
  std::mutex mutex_;
  std::condition_variable moved_;
  std::map<int64_t, ShownEntry> entries_;  // by create revision, as the watch showed them
  std::optional<Entry> own_;               // this handle's entry, as it put it
  std::string join_key_;  // the slot the next join puts (own_'s key while it is set)
  bool lost_last_ = false;
  int commits_in_flight_ = 0;
  uint64_t commits_started_ = 0;
  bool stopped_ = false;
  uint64_t offers_made_ = 0;
  std::map<std::string, std::string, std::less<>> outcomes_;  // offer id -> outcome, not yet taken
};

}  // namespace moraine::store
