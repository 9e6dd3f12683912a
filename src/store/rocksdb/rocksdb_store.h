#pragma once

// The embedded KvStore backend: RocksDB on a directory, or on RocksDB's
// in-memory Env for "memory://" locations.
//
// Open never creates a store over, inside or next to anything it does not
// recognise: only an absent or empty directory becomes a new store, and a
// directory with RocksDB's files but no CURRENT, a damaged log record or a
// missing or short table file is refused with CorruptionError naming the
// damage, by read-write and read-only opens alike (see store_directory.h).
//
// One read-write handle per store: RocksDB's LOCK file excludes other
// processes and other handles in this process alike, and a second read-write
// open fails with StoreLockedError. A read-write handle of a store on disk
// that exists holds that lock from its open (StoreWriterLock) but opens
// RocksDB read-only until its first write, when it opens it read-write: a
// session that only reads writes nothing to the directory. Read-only handles open as RocksDB
// secondary instances, which work beside a live writer. Each GetSnapshot()
// returns a view caught up with the writer, so a new snapshot sees every write
// the writer has acknowledged (including WAL-only, unflushed ones), and a held
// snapshot never moves: secondaries take no RocksDB snapshots, so a view is a
// secondary instance that is not caught up again while a snapshot holds it.
//
// Group commit: a read-write handle applies each write to the log and the
// memtable under its write lock without syncing, and syncs the log outside
// it (WalGroupSync), once for every write that landed by then; a write
// returns, and a LandedWrite's AwaitDurable returns, only once its sync
// has. GetSnapshot serves the newest state that is durable whole, so no
// reader sees a commit a crash could take back, and none waits for a sync;
// GetSnapshotForCommit serves the newest, for the commit that builds on it.
// (In-memory stores sync as they write: RocksDB's in-memory log cannot be
// synced apart.)
//
// Thread-safety: as every KvStore (kv_store.h): any number of threads at once.
// mutex_ serializes writes and a read-only handle's catch-up; the open instance
// is copied out under handle_mutex_, so a read-write handle's snapshot never
// waits behind a write or a sync.

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "store/kv_store.h"

namespace moraine::store {

struct RocksDbHandle;  // the open DB and what must outlive it (rocksdb_store.cpp)
class StoreWriterLock;

class RocksDbStore final : public KvStore {
 public:
  static std::unique_ptr<RocksDbStore> Open(const KvOptions& options);
  // A read-write handle that wrote flushes its memtable as it closes, and
  // every handle lets the compactions RocksDB wants finish (bounded in
  // time), so the next open replays no log and starts no compaction; one that
  // wrote nothing drops the empty logs earlier sessions left once a few have
  // gathered. Best effort: on failure the next open does the work, as after a
  // crash.
  ~RocksDbStore() override;

  std::unique_ptr<KvSnapshot> GetSnapshot() override;
  std::unique_ptr<KvSnapshot> GetSnapshotForCommit() override;
  void Write(const WriteBatch& batch) override;
  bool WriteIfHeadUnchanged(std::string_view head_key,
                            const std::optional<std::string>& expected_head_value,
                            const WriteBatch& batch) override;
  std::unique_ptr<LandedWrite> LandIfHeadUnchanged(
      std::string_view head_key, const std::optional<std::string>& expected_head_value,
      const WriteBatch& batch) override;
  bool read_only() const override { return options_.read_only; }
  // RocksDB's lock file keeps a second read-write open out, in this process
  // or another.
  bool ContendingCommitsTakeTurns() const override { return true; }
  const std::string& location() const override { return options_.location; }

  // Persists the memtable into table files (tools, tests). Not part of
  // KvStore: durability there comes from synced writes, not from flushing.
  void Flush();

  // Rebuilds the store's manifest (and CURRENT) from the table and log files
  // in `location` with RocksDB's repair, salvaging every record that still
  // reads; damaged log records are dropped. The last resort for a store that
  // Open refuses as damaged; the store must not be open anywhere. Throws
  // NotFoundError when `location` holds no store files.
  static void Repair(const std::string& location);

 private:
  friend class RocksDbLandedWrite;

  RocksDbStore(KvOptions options, std::string path, std::unique_ptr<StoreWriterLock> writer_lock,
               std::shared_ptr<RocksDbHandle> handle);
  // Applies `batch` unsynced; the sequence number of its last write.
  uint64_t ApplyLocked(const WriteBatch& batch);
  // Returns once `handle`'s log is synced past `sequence`; on a failed sync,
  // marks the store for recovery (if `handle` is still its instance) and
  // throws IoError. Called without mutex_.
  void AwaitDurable(RocksDbHandle& handle, uint64_t sequence);
  // The instance writes go to (until the first write, the read-only one),
  // recovering first from an earlier failed write.
  std::shared_ptr<RocksDbHandle> WriterHandle();
  // Throws unless the store can take a write now: opens the instance
  // read-write if it was opened read-only until the first write, and
  // recovers first from an earlier failed write if there was one.
  void RequireWritableLocked();
  // Replaces the instance opened read-only until the first write with a
  // read-write one. Throws what the open throws, and then changes nothing.
  void OpenForWritingLocked();
  // Resumes RocksDB after a failed write, or reopens the store when the open
  // instance cannot resume and nothing else reads it. False: still failed,
  // recovery_error_ says why.
  bool RecoverFromFailedWriteLocked();

  KvOptions options_;
  std::string path_;  // the database path within its Env
  // Held by a read-write store on disk from its open (before the first
  // write, it alone keeps other writers out) until it closes; declared
  // before handle_, so released after every instance this store closes.
  std::unique_ptr<StoreWriterLock> writer_lock_;
  // The open instance; for a read-only store, the newest caught-up view.
  // Read under mutex_ or handle_mutex_; replaced holding both.
  std::shared_ptr<RocksDbHandle> handle_;
  // Serializes writes, so WriteIfHeadUnchanged's read-compare-write is atomic
  // with respect to every other write: this handle is the only writer of the
  // store (the LOCK file guarantees it). Cheaper and simpler than an
  // OptimisticTransactionDB, and a distributed backend would use its own CAS.
  // Also serializes a read-only store's catch-up and instance switch.
  std::mutex mutex_;
  // The open instance, copied out for a snapshot under handle_mutex_ (never
  // held across I/O); replaced only with mutex_ held too.
  std::shared_ptr<RocksDbHandle> CurrentHandle() const;
  mutable std::mutex handle_mutex_;
  // Set when a write failed, until RecoverFromFailedWriteLocked succeeds;
  // changed with mutex_ held. recovery_error_ is guarded by mutex_.
  std::atomic<bool> write_failed_{false};
  std::string recovery_error_;
  // Whether this handle wrote anything; guarded by mutex_. A writer that did
  // flushes its memtable as it closes (see LeaveNothingForTheNextOpen).
  bool wrote_ = false;
};

}  // namespace moraine::store
