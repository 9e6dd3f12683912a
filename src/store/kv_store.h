#pragma once

// The small key-value interface the catalog is built on. It asks only for what
// an ordered, transactional engine (embedded or distributed) offers anyway:
// point reads and ascending range scans over a consistent snapshot, atomic
// batches, and one compare-and-write on the head pointer.
//
// Thread-safety: for every backend, a KvStore may be used by any number of
// threads at once (one handle is shared by every attach of a location in a
// process, commit/lake/store_registry.h); a KvSnapshot's reads may run on several
// threads at once; a KvIterator belongs to one thread.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "store/etcd/etcd_security.h"
#include "store/key_range.h"
#include "store/write_batch.h"

namespace moraine::store {

// Ascending cursor over one KeyRange of a snapshot. Views returned by key()
// and value() stay valid until the next call to Next() or destruction. Not
// thread-safe: one thread at a time.
class KvIterator {
 public:
  virtual ~KvIterator() = default;
  virtual bool Valid() const = 0;
  virtual void Next() = 0;
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
};

// A consistent, immutable read view: later writes are never visible through
// it. Thread-safe: its const reads may run concurrently.
class KvSnapshot {
 public:
  virtual ~KvSnapshot() = default;
  virtual std::optional<std::string> Get(std::string_view key) const = 0;
  virtual std::unique_ptr<KvIterator> Scan(const KeyRange& range) const = 0;
  // The greatest key in `range`, or nullopt if it holds none: one seek from
  // the end, never a walk over the range (a table's newest id among all its
  // versions, ended ones included).
  virtual std::optional<std::string> LastKeyIn(const KeyRange& range) const = 0;
};

// A batch that landed but may not be durable yet (KvStore::LandIfHeadUnchanged).
// It must not outlive the store that made it. Thread-safety: one thread at a
// time.
class LandedWrite {
 public:
  virtual ~LandedWrite() = default;
  // Returns once the batch is durable: a crash after it loses nothing.
  // Throws IoError if it never will be (its log sync failed); the store then
  // recovers as after any failed write. Until it returns, the commit must not
  // be acknowledged.
  virtual void AwaitDurable() = 0;
};

// A commit that another writer of the lake may land on this one's behalf, in
// one write with its own (group commit: docs/research/cross-process-group-commit.md).
// The store carries intents and outcomes as opaque bytes; the commit layer
// makes and replays them (commit/rows/commit_intent.h).
struct CommitOffer {
  // The commit as an intent any writer's IntentReplayer can replay, or
  // nullopt if it cannot be replayed. Called at most once per landing, and
  // only when the store hands the commit on or replays it itself.
  std::function<std::optional<std::string>()> intent;
  // Set when the commit landed from its intent (by another writer, or see
  // landed_in_own_turn): the outcome the replayer gave. The batch passed
  // with the offer was then not written.
  std::optional<std::string> outcome;
  // Set when this commit's write landed other writers' intents with it: the
  // head then moved past the batch's own.
  bool landed_others = false;
  // Set with `outcome` when the head moved while the commit waited for its
  // turn, and its own writer landed its intent replayed on the new head.
  bool landed_in_own_turn = false;
};

// Another writer's intent replayed on the head it is to land on: the writes
// that land it (its new head last), and the outcome its writer is told.
struct ReplayedIntent {
  WriteBatch batch;
  std::string outcome;
};
// Replays `intent` on `view` (the store as it will be once what lands before
// it has: store/overlaid_snapshot.h); nullopt when it may not land there.
// Called on the thread of the commit that lands it; may be called from
// several threads at once.
using IntentReplayer = std::function<std::optional<ReplayedIntent>(std::unique_ptr<KvSnapshot> view,
                                                                   std::string_view intent)>;

// Thread-safe: every method may be called from several threads at once, and
// concurrent writes each land atomically; WriteIfHeadUnchanged is what orders
// commits (its compare is the only conflict anchor).
class KvStore {
 public:
  virtual ~KvStore() = default;

  // A view of every durable write: a batch that landed but is not durable yet
  // is never seen through it (the view stops at the last write before it that
  // is), so what a reader saw survives a crash.
  virtual std::unique_ptr<KvSnapshot> GetSnapshot() = 0;
  // A view for a commit that builds on the newest head, typically the retry
  // of one that lost its race: every batch that landed, durable or not,
  // while other commits' syncs are still running. Only for a commit that
  // lands after it: that commit's own durability covers every batch before
  // it (the store's log is one sequence), and if they never become durable,
  // neither does it. A store may serve an older view that still holds every
  // commit its caller lost to (etcd: the revision its watch has applied);
  // the commit's head compare refuses it if the head moved on since.
  // Default: GetSnapshot().
  virtual std::unique_ptr<KvSnapshot> GetSnapshotForCommit() { return GetSnapshot(); }

  // Applies every operation of `batch` or none, in batch order: for a key
  // the batch names more than once, the last operation wins
  // (write_batch.h). Throws ReadOnlyError on a read-only store.
  virtual void Write(const WriteBatch& batch) = 0;

  // Applies `batch` atomically only if the value at `head_key` still equals
  // `expected_head_value` (nullopt: the key is absent). Returns false, writing
  // nothing, if it does not. This is the single conflict anchor of a commit.
  // A key named more than once in `batch` is treated as in Write.
  virtual bool WriteIfHeadUnchanged(std::string_view head_key,
                                    const std::optional<std::string>& expected_head_value,
                                    const WriteBatch& batch) = 0;
  // WriteIfHeadUnchanged in two steps, so that a commit can give up the
  // order of commits before it waits for its sync and the next commit's
  // write joins that sync (group commit). Null: the head changed, nothing was
  // written. Otherwise the batch is applied (later commits and
  // GetSnapshotForCommit see it) and durable once AwaitDurable returns.
  // Default: WriteIfHeadUnchanged, durable on return.
  virtual std::unique_ptr<LandedWrite> LandIfHeadUnchanged(
      std::string_view head_key, const std::optional<std::string>& expected_head_value,
      const WriteBatch& batch) {
    struct AlreadyDurable final : LandedWrite {
      void AwaitDurable() override {}
    };
    if (!WriteIfHeadUnchanged(head_key, expected_head_value, batch)) return nullptr;
    return std::make_unique<AlreadyDurable>();
  }

  // LandIfHeadUnchanged for a commit that `offer` lets another writer land
  // (CommitOffer): when offer.outcome is set on return, the commit landed
  // from its intent, durably, and `batch` was not written; a non-null
  // result is returned then too. Stores that hand no commit on (the
  // default, and RocksDB, where one process commits) land it themselves.
  virtual std::unique_ptr<LandedWrite> LandOffered(
      std::string_view head_key, const std::optional<std::string>& expected_head_value,
      const WriteBatch& batch, CommitOffer& offer) {
    (void)offer;
    return LandIfHeadUnchanged(head_key, expected_head_value, batch);
  }
  // Lets this handle's commits land other writers' intents with their own
  // (CommitOffer). Set once, before the first commit; a no-op where
  // commits are not handed on.
  virtual void SetIntentReplayer(IntentReplayer replayer) { (void)replayer; }

  virtual bool read_only() const = 0;
  virtual const std::string& location() const = 0;
  // Whether commits that contend for the head take turns, so that one that
  // lost its race may retry at once without colliding again in lockstep: on
  // RocksDB only this process commits (one process opens a store
  // read-write), and its commits take the process's turn; on etcd the
  // writers of every process queue (etcd_commit_queue.h).
  virtual bool ContendingCommitsTakeTurns() const = 0;
  // A commit that lost its race and then gave up (a conflict, its retries
  // spent) gives up its turn too, so that other writers need not wait for
  // it. Best effort; a no-op where turns are not kept in the store.
  virtual void LeaveCommitQueue() {}
};

struct KvOptions {
  // A directory path, "memory://" (a private in-memory store) or
  // "memory://<name>" (an in-memory store shared by name within the process),
  // or "etcd[s]://host:port[,host:port...]/<prefix>" (a lake in an etcd cluster).
  std::string location;
  bool read_only = false;
  bool create_if_missing = true;
  // Sync the write-ahead log on every write, so a returned commit survives a crash.
  bool sync = true;
  // An etcd location's TLS material and user (store/etcd/etcd_security.h); none
  // given: the MORAINE_ETCD_* environment. Other locations ignore it.
  std::optional<EtcdSecurity> etcd_security = std::nullopt;
};

// Opens the store at options.location. Throws StoreLockedError if another
// read-write handle holds it, NotFoundError if it is absent and may not be
// created, IoError/CorruptionError for engine failures.
std::unique_ptr<KvStore> OpenKvStore(const KvOptions& options);

// Convenience: a point read through a fresh snapshot.
std::optional<std::string> GetLatest(KvStore& store, std::string_view key);

}  // namespace moraine::store
