#include "store/rocksdb/wal_group_sync.h"

#include <rocksdb/db.h>

#include "store/error.h"
#include "store/rocksdb/high_water_mark.h"
#include "store/rocksdb/test_hooks.h"

namespace moraine::store {

std::shared_ptr<const rocksdb::Snapshot> NewestSnapshotOf(rocksdb::DB& db) {
  return {db.GetSnapshot(),
          [&db](const rocksdb::Snapshot* snapshot) { db.ReleaseSnapshot(snapshot); }};
}

WalGroupSync::WalGroupSync(rocksdb::DB& db, HighWaterMark* high_water)
    : db_(db), high_water_(high_water), durable_(NewestSnapshotOf(db)) {}

void WalGroupSync::AwaitDurable(rocksdb::SequenceNumber sequence) {
  std::unique_lock lock(mutex_);
  while (durable_->GetSequenceNumber() < sequence) {
    if (failure_) throw IoError("the commit's log sync failed: " + *failure_);
    if (!syncing_) break;
    synced_.wait(lock);
  }
  if (durable_->GetSequenceNumber() >= sequence) return;
  // This waiter syncs, for itself and every write that has landed so far:
  // writes are applied one at a time (the store's write lock), so each one
  // up to the snapshot's sequence has its log record appended already.
  syncing_ = true;
  lock.unlock();
  auto covered = NewestSnapshotOf(db_);
  CrashPoint("commit.before_sync");
  rocksdb::Status status = db_.SyncWAL();
  // Only a synced write may raise the mark: a mark ahead of the log would
  // refuse a store that lost nothing acknowledged.
  if (status.ok() && high_water_ != nullptr) {
    CrashPoint("commit.before_high_water");
    try {
      high_water_->Advance(covered->GetSequenceNumber());
    } catch (const IoError& error) {
      status = rocksdb::Status::IOError(error.what());
    }
  }
  lock.lock();
  syncing_ = false;
  if (status.ok()) {
    if (covered->GetSequenceNumber() > durable_->GetSequenceNumber()) durable_ = std::move(covered);
  } else if (!failure_) {
    failure_ = status.ToString();
  }
  synced_.notify_all();
  if (durable_->GetSequenceNumber() < sequence) {
    throw IoError("the commit's log sync failed: " + *failure_);
  }
}

std::shared_ptr<const rocksdb::Snapshot> WalGroupSync::DurableView() {
  auto newest = NewestSnapshotOf(db_);
  std::lock_guard lock(mutex_);
  return newest->GetSequenceNumber() <= durable_->GetSequenceNumber() ? newest : durable_;
}

std::optional<std::string> WalGroupSync::failure() const {
  std::lock_guard lock(mutex_);
  return failure_;
}

}  // namespace moraine::store
