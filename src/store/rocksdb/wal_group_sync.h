#pragma once

// Group commit for one open RocksDB instance whose writes reach its log
// unsynced: AwaitDurable(sequence) returns once every write up to `sequence`
// is synced. The first waiter syncs the log for every write that landed
// before it, the others wait for that sync, and writes that land meanwhile
// join the next one; so commits that overlap pay one sync between them
// instead of one each, and none holds the store's write lock while it syncs.
//
// Readers are served DurableView(): the newest state whose every write is
// synced, so that nobody acts on a commit a crash could still take back, and
// no reader waits for a sync.
//
// A failed sync is final for the instance: the log's bytes after the last
// good sync may or may not be on disk (a later fsync can report success over
// pages the kernel has already dropped), so every wait past the last good
// sync throws from then on, DurableView stays at that sync, and the instance
// must be reopened (which replays what the log holds) before it takes
// another write.
//
// Thread-safety: every member may be called from any thread at once.

#include <rocksdb/types.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace rocksdb {
class DB;
class Snapshot;
}  // namespace rocksdb

namespace moraine::store {

// A RocksDB snapshot of `db`'s newest state, released as its last holder
// drops it; `db` must outlive it.
std::shared_ptr<const rocksdb::Snapshot> NewestSnapshotOf(rocksdb::DB& db);

class HighWaterMark;

class WalGroupSync {
 public:
  // `db` must outlive this object and every view it hands out. Every write
  // the instance holds now is durable (what it recovered at open). Each good
  // sync advances `high_water` (when given; it must outlive this object) to
  // the sequence it covered before any waiter returns; a failed advance
  // fails the sync.
  WalGroupSync(rocksdb::DB& db, HighWaterMark* high_water);

  // Returns once every write up to `sequence` is durable. Throws IoError,
  // naming the sync's failure, if the sync that would cover it failed, now
  // or earlier.
  void AwaitDurable(rocksdb::SequenceNumber sequence);
  // A RocksDB snapshot of the newest state that is durable whole: the
  // instance's newest state when nothing is waiting for a sync, else the
  // state the last good sync covered. Released as its last holder drops it.
  std::shared_ptr<const rocksdb::Snapshot> DurableView();
  // The first failed sync's error, if one failed: then the instance must be
  // reopened.
  std::optional<std::string> failure() const;

 private:
  rocksdb::DB& db_;
  HighWaterMark* const high_water_;  // advanced only by the syncing waiter
  mutable std::mutex mutex_;
  std::condition_variable synced_;
  // The snapshot at the last good sync (or the open); every write up to its
  // sequence is durable. Guarded by mutex_.
  std::shared_ptr<const rocksdb::Snapshot> durable_;
  bool syncing_ = false;                // a waiter is syncing; guarded by mutex_
  std::optional<std::string> failure_;  // the first failed sync; guarded by mutex_
};

}  // namespace moraine::store
