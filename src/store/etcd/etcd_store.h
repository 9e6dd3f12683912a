#pragma once

// The distributed KvStore backend: a lake in an etcd v3 cluster, at
// "etcd://host:port[,host:port...]/<prefix>" (see etcd_location.h for the
// form, etcd_keyspace.h for where keys live).
//
// - A snapshot is a cluster revision, read once by GetSnapshot() (one
//   linearizable read of the lake's commit marker, which also gives the
//   revision of the lake's newest commit); its Gets and Scans are answered
//   by the handle's read cache when it can prove the answer
//   (etcd_read_cache.h, kept true by a watch on the lake: etcd_change_watch.h),
//   and are Range RPCs at that revision otherwise (scans in large pages).
// - A commit (Write, WriteIfHeadUnchanged) is exactly one Txn: the batch,
//   collapsed to the last operation per key (etcd refuses a key twice in one
//   Txn), plus this commit's token (etcd_commit_lanes.h) and a put of the
//   commit marker. WriteIfHeadUnchanged
//   guards the head key's value, or its absence (version == 0), with a compare
//   and returns false, writing nothing, when it fails. A commit is never split
//   across transactions: one the cluster's limits refuse fails whole with
//   EtcdLimitError naming --max-txn-ops or --max-request-bytes, before it is
//   sent. A writable handle learns those limits when it opens
//   (etcd_limits.h), and refuses to open on a cluster whose limits are below
//   what moraine needs for any commit.
// - An RPC that fails with an unknown outcome (member gone, leader lost,
//   timeout) is settled by reading back the commit's token, never by guessing,
//   then retried on the next member until EtcdStoreOptions::operation_timeout.
//   Only when that runs out does a commit throw IoError, and then, as with any
//   remote store, it may or may not have been applied.
//
// Any number of handles, in any number of processes and hosts, may write one
// lake at once: the head compare is the conflict anchor, so there is no
// StoreLockedError. Writers that contend take turns (etcd_commit_queue.h): a
// handle whose last head commit lost, or that sees others queued, joins the
// lake's commit queue (one more Txn) and sends its head commits when its turn
// comes; the commit that lands hands the turn on in its own Txn, and while
// others are queued, queues the handle again behind them in that Txn. A
// thread of the handle's gives up a place it holds first while idle
// (EtcdCommitQueue::AwaitIdleTurn). With group commit (LandOffered) a commit
// that waits puts its intent in its entry, and the commit whose turn it is
// lands the intents behind it in its own Txn. A read-only handle refuses
// writes with ReadOnlyError.
//
// Thread-safety: one handle may be used by many threads at once (commits in
// flight at once use separate lanes and tokens; the commit queue guards its
// own state and is never locked across an RPC), and so may a snapshot; an
// iterator belongs to one thread.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "store/etcd/etcd_commit_queue.h"
#include "store/etcd/etcd_keyspace.h"
#include "store/etcd/etcd_limits.h"
#include "store/etcd/etcd_rpc_counts.h"
#include "store/etcd/etcd_store_options.h"
#include "store/kv_store.h"

namespace etcdserverpb {
class Compare;
class TxnRequest;
class TxnResponse;
}  // namespace etcdserverpb

namespace moraine::store {

class EtcdChangeWatch;
class EtcdClient;
class EtcdCommitLanes;
class EtcdReadCache;
struct EtcdCommitLane;

class EtcdStore final : public KvStore {
 public:
  // Connects and looks for the lake. Throws InvalidArgumentError for a
  // malformed location, IoError if no member answers within the operation
  // timeout, NotFoundError if the prefix holds no keys and the options do not
  // allow creating (read-only, or create_if_missing false), EtcdLimitError
  // (writable handles) if the cluster's limits are too small for moraine. A
  // new lake is just an empty prefix: its first commit creates it.
  static std::unique_ptr<EtcdStore> Open(const KvOptions& options,
                                         const EtcdStoreOptions& etcd_options = {});
  ~EtcdStore() override;

  std::unique_ptr<KvSnapshot> GetSnapshot() override;
  // For the retry of a commit that lost its race: a snapshot at the newest
  // revision the read cache has applied, or at the revision the head last
  // changed at as the lost Txn read it, if that is newer (its first read
  // waits for the watch to reach it), instead of a linearizable read. Either
  // revision holds every commit that beat the lost one; a commit landing
  // since is caught by the retry's own head compare. Without a working
  // cache: GetSnapshot().
  std::unique_ptr<KvSnapshot> GetSnapshotForCommit() override;
  void Write(const WriteBatch& batch) override;
  bool WriteIfHeadUnchanged(std::string_view head_key,
                            const std::optional<std::string>& expected_head_value,
                            const WriteBatch& batch) override;
  // Group commit (EtcdStoreOptions::group_commit, etcd_commit_queue.h): a
  // commit that has to wait for its turn puts its intent in its queue entry
  // and returns when a group lands it (offer.outcome set) or, at its turn,
  // lands itself; either way it lands once. It never returns (lost or
  // thrown) with its intent still able to land, but after an IoError, whose
  // commit may or may not have been applied.
  std::unique_ptr<LandedWrite> LandOffered(std::string_view head_key,
                                           const std::optional<std::string>& expected_head_value,
                                           const WriteBatch& batch, CommitOffer& offer) override;
  // Set before the first commit (the store registry does, at open).
  void SetIntentReplayer(IntentReplayer replayer) override { replayer_ = std::move(replayer); }
  bool read_only() const override { return options_.read_only; }
  bool ContendingCommitsTakeTurns() const override { return queue_ != nullptr; }
  void LeaveCommitQueue() override;
  const std::string& location() const override { return options_.location; }

  // Commit RPCs of this handle whose outcome was unknown and had to be
  // settled through their token, and how many of those had committed (for
  // tests and monitoring).
  struct SettleCounts {
    uint64_t unknown = 0;
    uint64_t committed = 0;
  };
  // The cluster's limits as learned at open (unknown, never checked, on a
  // read-only handle).
  const EtcdLimits& limits() const { return limits_; }

  // The RPCs this handle has sent.
  EtcdRpcCounts rpc_counts() const;
  // The member this handle's calls go to: its index among the location's
  // endpoints (the leader at open, if one answered; etcd_client.h).
  size_t current_member() const;
  // Snapshot reads its read cache answered, and those it sent on (0, 0
  // without a cache).
  struct ReadCacheCounts {
    uint64_t hits = 0;
    uint64_t misses = 0;
  };
  ReadCacheCounts read_cache_counts() const;

  // Whether this handle holds an entry in the lake's commit queue now
  // (etcd_commit_queue.h).
  bool InCommitQueue() const;

  SettleCounts settle_counts() const {
    return {unknown_outcomes_.load(std::memory_order_relaxed),
            settled_committed_.load(std::memory_order_relaxed)};
  }

 private:
  struct HeadGuard {
    std::string_view key;
    const std::optional<std::string>& expected;
  };
  // What a head commit does to the commit queue: the handover it was sent
  // with (stays_at dropped if the Txn had no room for it), and the create
  // revision of the entry it put, once it landed.
  struct QueueStep {
    EtcdCommitQueue::Handover handover;
    std::optional<int64_t> stayed_at;
  };
  // An intent a head commit lands with its own: the entry it compares and
  // deletes, the writes that land it and the outcome record it puts.
  struct GroupMember {
    EtcdCommitQueue::QueuedIntent queued;
    WriteBatch batch;
    std::string outcome;
  };
  // This handle's intent, as the Txn that put it in its queue entry did.
  struct OwnIntent {
    std::string key;
    int64_t mod_revision = 0;
    std::string offer_id;
  };
  // What a head commit does for group commit.
  struct GroupStep {
    // This handle's own published intent, until it is settled (it landed, a
    // group landed it, or it can no longer land): the commit compares its
    // entry's mod revision and, if that fails, reads its outcome.
    std::optional<OwnIntent> own_intent;
    std::vector<GroupMember> members;  // dropped from the end to fit the limits
    // Set when another handle's group landed this handle's intent.
    std::optional<std::string> own_outcome;
  };
  // How a head commit ended: its batch landed; the head had moved; another
  // handle's group landed its intent (GroupStep::own_outcome); or, the head
  // having moved while it waited, its intent replayed on the new head landed
  // in its place (GroupStep::own_outcome too).
  enum class Landing { kLanded, kHeadMoved, kLandedElsewhere, kLandedReplayed };

  EtcdStore(KvOptions options, EtcdStoreOptions etcd_options, std::shared_ptr<EtcdClient> client,
            EtcdKeyspace keyspace, EtcdLimits limits, int64_t open_revision);
  // Turns (etcd_commit_queue.h): joins the queue if this handle should, then
  // waits for its turn, removing the entries that stalled ahead of it.
  // Whether the turn was handed on by another handle's landing commit.
  bool TakeTurn();
  // Best effort, one Txn each: put this handle's entry and learn its place;
  // delete `entry` if it is still the entry it was.
  void JoinQueue();
  // The idle leaver's loop: deletes each place the queue gives up while idle.
  void LeaveIdleTurns();
  // The create revision of the entry at `key`, by a read (nullopt if absent
  // or unreadable): for a commit whose outcome was settled, not read.
  std::optional<int64_t> EntryRevision(const std::string& key);
  void RemoveEntry(const EtcdCommitQueue::Entry& entry,
                   std::chrono::milliseconds timeout = std::chrono::milliseconds(1000));
  // Throws EtcdLimitError if `request` exceeds limits_.
  void RequireWithinLimits(const etcdserverpb::TxnRequest& request) const;
  // The one commit path; `head` null for a plain Write, `queue_step` null
  // for a commit that leaves the queue alone, `group` null for a commit
  // that lands no intent and published none.
  Landing Commit(const HeadGuard* head, const WriteBatch& batch, QueueStep* queue_step = nullptr,
                 GroupStep* group = nullptr);
  // A commit's intent, made at most once (CommitOffer::intent).
  using IntentOnce = std::function<std::optional<std::string>()>;
  // A head commit in this handle's turn (taken or not): lands `batch`, with
  // the intents queued behind it when the turn is this handle's. `handed_on`:
  // the turn came with another handle's landing commit. `own_intent`
  // (null: none): the commit's intent, replayed on the head it lands on if
  // that moved while the commit waited, instead of losing the race.
  Landing LandInTurn(const HeadGuard& head, const WriteBatch& batch, bool handed_on,
                     GroupStep& group, const IntentOnce* own_intent = nullptr);
  // The intents queued behind this handle's entry replayed on `base` with
  // `batch` landed on it, one over another, as many as a Txn holds.
  std::vector<GroupMember> GatherGroup(const std::shared_ptr<const KvSnapshot>& base,
                                       const WriteBatch& batch);
  // Joins the queue with the commit's intent in the entry, or puts it in the
  // entry this handle holds, unless it goes first anyway; without an intent,
  // joins as JoinQueue. The intent published, if any; sets `outcome` if an
  // unknown outcome turned out to be a group's landing of it.
  std::optional<OwnIntent> PublishIntent(const IntentOnce& intent,
                                         std::optional<std::string>& outcome);
  // Takes `intent` back, so that no group lands it: nullopt, or the outcome
  // of the group that landed it first.
  std::optional<std::string> WithdrawIntent(const OwnIntent& intent);
  // Ends the intent `offer_id` in the entry at `key` while `holds_it` (a
  // compare) says the entry still holds it: puts the handle's plain value
  // there (`keep_place`) or deletes the entry. nullopt, or the outcome of
  // the group that landed it first. Retries until the operation timeout.
  std::optional<std::string> EndIntent(const std::string& key, const std::string& offer_id,
                                       const std::function<void(etcdserverpb::Compare*)>& holds_it,
                                       bool keep_place);
  // Whether `request` is within the cluster's limits; the message of the
  // limit it exceeds, if any.
  bool WithinLimits(const etcdserverpb::TxnRequest& request) const;
  std::optional<std::string> LimitExceeded(const etcdserverpb::TxnRequest& request) const;
  // Outcome records this handle has read, deleted by its next Txn that
  // lands: taken for a Txn, and kept again if it did not land.
  std::vector<std::string> TakeReadOutcomes();
  void KeepReadOutcomes(const std::vector<std::string>& keys);
  // After an RPC with unknown outcome: true if `token` committed; otherwise
  // fences the lane so the attempt can never commit later, and returns false.
  // Gives up with IoError at `deadline` (the commit's).
  bool Settle(EtcdCommitLane& lane, const std::string& token,
              std::chrono::steady_clock::time_point deadline);
  // Sends the Txn `build` makes (anew for each attempt) until the cluster
  // answers it, pausing between attempts (before the first too, if
  // `pause_first`). Throws IoError saying it could not `what` if the cluster
  // refuses it, and what EtcdClient::ThrowUnreachable throws at `deadline`.
  etcdserverpb::TxnResponse TxnUntilAnswered(const std::function<etcdserverpb::TxnRequest()>& build,
                                             std::string_view what,
                                             std::chrono::steady_clock::time_point deadline,
                                             bool pause_first);

  KvOptions options_;
  EtcdStoreOptions etcd_options_;
  std::shared_ptr<EtcdClient> client_;
  EtcdKeyspace keyspace_;
  EtcdLimits limits_;
  std::unique_ptr<EtcdCommitLanes> lanes_;
  std::shared_ptr<EtcdReadCache> read_cache_;  // null when disabled
  std::shared_ptr<EtcdCommitQueue> queue_;     // null without a watch, or read-only
  std::unique_ptr<EtcdChangeWatch> watch_;     // feeds read_cache_ and queue_
  std::thread idle_leaver_;                    // runs LeaveIdleTurns while queue_ is set
  std::atomic<uint64_t> unknown_outcomes_{0};
  std::atomic<uint64_t> settled_committed_{0};
  // The newest revision of the head that a failed head compare of this
  // handle read back (0: none): a retry must read at or after it.
  std::atomic<int64_t> lost_at_revision_{0};
  IntentReplayer replayer_;
  std::atomic<bool> published_intents_{false};  // whether outcome records may name this handle
  std::mutex read_outcomes_mutex_;
  std::vector<std::string> read_outcomes_;  // outcome keys to delete
};

}  // namespace moraine::store
