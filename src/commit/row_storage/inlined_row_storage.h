// The rows of one of DuckLake's inlined data or delete tables (the layout is
// commit/inlined_tables.h): one record per row, its user cells opaque. The
// caller has checked that the table exists.
#pragma once

#include <string>

#include "catalog/ducklake_tables.h"
#include "commit/row_storage/row_storage.h"
#include "commit/staged_view.h"

namespace moraine::commit {

class InlinedRowStorage final : public RowStorage {
 public:
  InlinedRowStorage(StagedView& view, catalog::InlinedTableName name, std::string table)
      : view_(view), name_(name), table_(std::move(table)) {}

  // Rows come in key order (row id order); they carry no write ordinal.
  void Scan(const ScanRequest& request, const ScannedRowSink& sink) override;
  void Insert(const Row& row) override;
  void Update(RowTarget& target, const Row& row) override;
  void Remove(const RowTarget& target) override;

 private:
  // The table's column count, from its existence record.
  size_t ColumnCount() const;

  StagedView& view_;
  catalog::InlinedTableName name_;
  std::string table_;
};

}  // namespace moraine::commit
