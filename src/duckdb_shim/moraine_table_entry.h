// A table of a moraine catalog as DuckDB sees it: a thin view of one
// commit::TableSpec with the codec of each column. Rows are never held here;
// scans read them through the transaction's RowTransaction (moraine_scan.cpp
// holds GetScanFunction).
//
// Thread-safety: immutable once built, so any thread may use it.
#pragma once

#include <vector>

#include "commit/rows/row_transaction.h"
#include "duckdb/catalog/catalog_entry/table_catalog_entry.hpp"
#include "duckdb_shim/column_codec.h"

namespace moraine::duckdb_shim {

class MoraineTableEntry : public duckdb::TableCatalogEntry {
 public:
  MoraineTableEntry(duckdb::Catalog& owning_catalog, duckdb::SchemaCatalogEntry& owner,
                    duckdb::CreateTableInfo& info, commit::TableSpec spec,
                    std::vector<ColumnCodec> codecs);

  const commit::TableSpec& spec() const { return spec_; }
  const std::vector<ColumnCodec>& codecs() const { return codecs_; }

  duckdb::unique_ptr<duckdb::BaseStatistics> GetStatistics(duckdb::ClientContext& context,
                                                           duckdb::column_t column_id) override;
  duckdb::TableFunction GetScanFunction(
      duckdb::ClientContext& context, duckdb::unique_ptr<duckdb::FunctionData>& bind_data) override;
  duckdb::TableStorageInfo GetStorageInfo(duckdb::ClientContext& context) override;
#if MORAINE_DUCKDB_MAJOR >= 2
  // From DuckDB 2.0 on, a table entry keeps its own columns.
  const duckdb::ColumnList& GetColumns() const override { return columns_; }
#endif

 private:
#if MORAINE_DUCKDB_MAJOR >= 2
  duckdb::ColumnList columns_;
#endif
  commit::TableSpec spec_;
  std::vector<ColumnCodec> codecs_;
};

}  // namespace moraine::duckdb_shim
