// The rows of a kEntry table: the entries of one container record per key
// (a table's columns, a table's column stats, the options of a scope, ...),
// kept open in StagedRecords while the transaction changes them. Ordered
// entries stay sorted by their entry key column; others keep insertion order.
//
// Thread-safety: not thread-safe; used as its transaction is, one thread at a
// time (row_storage.h).
#pragma once

#include <cstdint>
#include <optional>

#include "commit/rows/storage/fixed_row_storage.h"

namespace moraine::commit {

class EntryStorage final : public FixedRowStorage {
 public:
  using FixedRowStorage::FixedRowStorage;

  void Insert(const Row& row) override { InsertEntry(row, std::nullopt); }
  void Update(RowTarget& target, const Row& row) override;
  void Remove(const RowTarget& target) override;

 protected:
  void ReadValueRows(std::string_view value, const ScanPlan& plan, const RowSink& sink) override;
  // Never asked: a container's key does not cover its entries' columns.
  bool HoldsRow(std::string_view) const override { return true; }

 private:
  // `ordinal`: the write ordinal the row keeps (an update moving it); a new
  // one when absent.
  void InsertEntry(const Row& row, std::optional<uint64_t> ordinal);
  // The index of the target's entry in its (open) container. Throws
  // store::NotFoundError if it is gone.
  int FindEntry(const RowTarget& target);
};

}  // namespace moraine::commit
