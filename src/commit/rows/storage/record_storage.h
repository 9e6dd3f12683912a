// The rows of a kRecord table: one record per row, keyed by the row's
// identity. Ending a live version (setting end_snapshot) changes its key, so
// the record moves from `current` to `history`.
//
// Thread-safety: not thread-safe; used as its transaction is, one thread at a
// time (row_storage.h).
#pragma once

#include "commit/rows/storage/fixed_row_storage.h"

namespace moraine::commit {

class RecordStorage final : public FixedRowStorage {
 public:
  using FixedRowStorage::FixedRowStorage;

  void Insert(const Row& row) override;
  void Update(RowTarget& target, const Row& row) override;
  void Remove(const RowTarget& target) override;

 protected:
  void ReadValueRows(std::string_view value, const ScanPlan& plan, const RowSink& sink) override;
  bool HoldsRow(std::string_view) const override { return true; }
};

}  // namespace moraine::commit
