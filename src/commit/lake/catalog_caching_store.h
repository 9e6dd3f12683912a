// A store that keeps the catalog at its head in memory (HeadCatalogCache)
// and advances it with every commit that lands through it. It forwards every
// call to the store it wraps and adds no behaviour of its own to them.
//
// Wrap the one handle a process opens per store location, so that every
// commit of that process passes through it; commits of other processes reach
// the cache as a head it did not see, which makes it read again.
//
// Thread-safety: as the wrapped store's, plus HeadCatalogCache's.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "commit/lake/head_catalog_cache.h"
#include "store/kv_store.h"

namespace moraine::commit {

class CatalogCachingStore : public store::KvStore {
 public:
  explicit CatalogCachingStore(std::unique_ptr<store::KvStore> wrapped);

  // The wrapped store itself, for what is specific to its engine.
  store::KvStore& wrapped() { return *wrapped_; }
  HeadCatalogCache& head_catalog() { return head_catalog_; }
  // The process's turn to commit to this store. A rebasing commit
  // (RowTransaction::AllowRebase) lands holding it, and a commit loop that
  // holds it from its first retry to its last loses those retries only to
  // other processes. Recursive, because the loop's own commit lands while
  // the loop holds it.
  std::recursive_mutex& commit_turn() { return commit_turn_; }
  // Whether a commit of this process has landed on the head a transaction
  // read, given by its batch count (0: no head yet), so that the
  // transaction has already lost its race and may say so before it writes
  // its batch. Commits of other processes are not known here: false does not
  // mean the head is still the one read.
  bool LandedOn(uint64_t base_batch_count) const;

  std::unique_ptr<store::KvSnapshot> GetSnapshot() override;
  std::unique_ptr<store::KvSnapshot> GetSnapshotForCommit() override;
  // A batch without a head compare (a migration, a tool) may change anything
  // the cache holds: it is dropped.
  void Write(const store::WriteBatch& batch) override;
  bool WriteIfHeadUnchanged(std::string_view head_key,
                            const std::optional<std::string>& expected_head_value,
                            const store::WriteBatch& batch) override;
  // The cache advances as the batch lands, before it is durable: only
  // commits read a head that is not yet durable, and a commit on it lands
  // only if that head does. A failed sync drops the cache.
  std::unique_ptr<store::LandedWrite> LandIfHeadUnchanged(
      std::string_view head_key, const std::optional<std::string>& expected_head_value,
      const store::WriteBatch& batch) override;
  // As LandIfHeadUnchanged. A commit another writer landed leaves the cache
  // as it was, and one that landed others' intents with it drops it: the
  // head moved past its own batch.
  std::unique_ptr<store::LandedWrite> LandOffered(
      std::string_view head_key, const std::optional<std::string>& expected_head_value,
      const store::WriteBatch& batch, store::CommitOffer& offer) override;
  void SetIntentReplayer(store::IntentReplayer replayer) override {
    wrapped_->SetIntentReplayer(std::move(replayer));
  }
  bool read_only() const override;
  bool ContendingCommitsTakeTurns() const override {
    return wrapped_->ContendingCommitsTakeTurns();
  }
  void LeaveCommitQueue() override { wrapped_->LeaveCommitQueue(); }
  const std::string& location() const override;

 private:
  class CacheDroppingLandedWrite;

  // What follows a landing of `batch` on `expected_head_value`: the turn
  // bookkeeping, and the cache advanced (`advance`) or dropped.
  std::unique_ptr<store::LandedWrite> Landed(std::unique_ptr<store::LandedWrite> landed,
                                             std::string_view head_key,
                                             const std::optional<std::string>& expected_head_value,
                                             const store::WriteBatch& batch, bool advance);

  std::unique_ptr<store::KvStore> wrapped_;
  HeadCatalogCache head_catalog_;
  std::recursive_mutex commit_turn_;
  // The batch count of the newest head a commit of this process landed on,
  // plus one (0: none landed).
  std::atomic<uint64_t> newest_base_landed_on_{0};
};

}  // namespace moraine::commit
