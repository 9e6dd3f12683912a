// The rows of one of DuckLake's inlined data or delete tables (the layout is
// commit/rows/inlined_tables.h). A data table's rows live in one batch per begin
// snapshot (commit/rows/inlined_row_batch.h), opened in StagedRecords while the
// transaction changes them; a delete table's, one record per row. User cells
// are opaque. The caller has checked that the table exists.
//
// Thread-safety: not thread-safe; used as its transaction is, one thread at a
// time (row_storage.h).
#pragma once

#include <string>

#include "catalog/ducklake_tables.h"
#include "commit/rows/storage/row_storage.h"
#include "commit/rows/storage/staged_records.h"

namespace moraine::commit {

class InlinedRowStorage final : public RowStorage {
 public:
  InlinedRowStorage(StagedRecords& staged, catalog::InlinedTableName name, std::string table)
      : staged_(staged), name_(name), table_(std::move(table)) {}

  // A data table's rows come batch by batch in begin_snapshot order, each
  // batch's in the order they were inserted: the order DuckLake wrote them.
  // A delete table's come in key order. No row carries a write ordinal.
  void Scan(const ScanRequest& request, const ScannedRowSink& sink) override;
  void Insert(const Row& row) override;
  void Update(RowTarget& target, const Row& row) override;
  void Remove(const RowTarget& target) override;

 private:
  bool IsData() const { return name_.kind == catalog::InlinedTableName::kData; }
  // A data table's user column count, from its shape record.
  size_t UserColumns();
  // The open batch holding `target`'s row and the row's index in it; throws
  // store::NotFoundError if the row is gone.
  std::pair<inlined::InlinedRowBatch*, size_t> FindTarget(const RowTarget& target);
  void InsertIntoBatch(const std::string& key, const Row& row);

  StagedRecords& staged_;
  catalog::InlinedTableName name_;
  std::string table_;
  std::optional<size_t> user_columns_;
};

}  // namespace moraine::commit
