// What the row storages of one transaction share: its staged view of the
// store, the containers it has opened, its write-ordinal counter and the
// newest snapshot it inserted. Owned by the transaction.
//
// Thread-safety: not thread-safe; used as its transaction is, one thread at a
// time.
#pragma once

#include <google/protobuf/message.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "catalog/row_mapping.h"
#include "commit/rows/inlined_row_batch.h"
#include "commit/rows/staged_view.h"

namespace moraine::commit {

// A kEntry container this transaction touched, decoded once.
struct OpenContainer {
  const catalog::RowMapping* mapping = nullptr;
  std::unique_ptr<google::protobuf::Message> record;  // null: the key is absent
  bool dirty = false;                                 // changed since the view last held it
};

class StagedRecords {
 public:
  // `first_write_ordinal`: the ordinal of this transaction's first row write;
  // `inlined_batches_through`: no inlined batch of the view's store begins
  // after this snapshot (its head's word, records.proto), nullopt if unknown.
  StagedRecords(StagedView& view, uint64_t first_write_ordinal,
                std::optional<int64_t> inlined_batches_through)
      : view_(view),
        next_ordinal_(first_write_ordinal),
        inlined_batches_through_(inlined_batches_through) {}

  StagedView& view() { return view_; }
  std::optional<int64_t> inlined_batches_through() const { return inlined_batches_through_; }

  // The record at `key` as this transaction sees it, decoded; null if absent.
  std::unique_ptr<google::protobuf::Message> Read(const catalog::RowMapping& mapping,
                                                  const std::string& key) const;
  // Stages `record` (framed) at `key`.
  void Stage(const catalog::RowMapping& mapping, const std::string& key,
             const google::protobuf::Message& record);

  // The ordinal of this transaction's next row write: its commit (the batch
  // it lands as, if it lands) in the high half, its place in the low half.
  uint64_t NextWriteOrdinal() { return next_ordinal_++; }

  // The container at `key`, opened (decoded from the view) on first use. Its
  // record is null while the key is absent; whoever changes it sets `dirty`.
  OpenContainer& Open(const catalog::RowMapping& mapping, const std::string& key);
  // The inlined row batch at `key` (commit/rows/inlined_row_batch.h), opened
  // (decoded from the view, empty if absent) on first use; `user_columns` is
  // its table's. A batch beginning after inlined_batches_through() that this
  // transaction has not staged is absent: opened without a read. Whoever
  // changes it marks it with MarkBatchChanged.
  inlined::InlinedRowBatch& OpenBatch(const std::string& key, size_t user_columns);
  void MarkBatchChanged(const std::string& key) { batches_.at(key).dirty = true; }
  // Forgets the open batches in `range` unframed: their table is dropped.
  void DiscardBatches(const store::KeyRange& range);

  // Frames every changed container and batch into the view; one left
  // without entries or rows is deleted. Scans and the commit read the view,
  // so they flush first.
  void FlushContainers();

  // The newest snapshot id a ducklake_snapshot row this transaction inserted
  // carries; nullopt if it inserted none.
  std::optional<int64_t> max_inserted_snapshot() const { return max_inserted_snapshot_; }
  void NoteInsertedSnapshot(int64_t snapshot_id);

 private:
  StagedView& view_;
  // Containers by key: DuckLake writes a wide table's column stats one row
  // at a time, and re-framing a container of C entries for each row would
  // cost O(C^2), so they are framed only when a scan or the commit reads them.
  std::map<std::string, OpenContainer> containers_;
  // Batches by key, for the same reason: DuckLake inserts a commit's inlined
  // rows one at a time.
  struct OpenBatchEntry {
    inlined::InlinedRowBatch batch;
    bool dirty = false;
  };
  std::map<std::string, OpenBatchEntry> batches_;
  uint64_t next_ordinal_;
  std::optional<int64_t> inlined_batches_through_;
  std::optional<int64_t> max_inserted_snapshot_;
};

}  // namespace moraine::commit
