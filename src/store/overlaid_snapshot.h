#pragma once

// A snapshot with a batch of writes laid over it: reads see the batch's puts
// and not the keys it deletes, and everything else as the snapshot holds it.
// It is how a writer that lands several commits in one write (group commit
// on etcd, docs/research/cross-process-group-commit.md) stages each commit
// on the ones before it without writing them first: the next commit's
// transaction reads the store as it will be once the earlier ones land.
//
// Thread-safety: immutable once made; its reads may run on several threads
// at once, as any KvSnapshot's. An iterator belongs to one thread.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "store/kv_store.h"
#include "store/write_batch.h"

namespace moraine::store {

class OverlaidSnapshot final : public KvSnapshot {
 public:
  // `overlay` applies as KvStore::Write would apply it (the last operation
  // on a key decides). `base` must not be null.
  OverlaidSnapshot(std::shared_ptr<const KvSnapshot> base, const WriteBatch& overlay);

  std::optional<std::string> Get(std::string_view key) const override;
  std::unique_ptr<KvIterator> Scan(const KeyRange& range) const override;
  std::optional<std::string> LastKeyIn(const KeyRange& range) const override;

 private:
  // Key -> its value after the overlay, nullopt for a key it deletes.
  using Writes = std::map<std::string, std::optional<std::string>, std::less<>>;
  class MergingIterator;

  std::shared_ptr<const KvSnapshot> base_;
  Writes writes_;
};

}  // namespace moraine::store
