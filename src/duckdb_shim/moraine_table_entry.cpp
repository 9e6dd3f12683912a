#include "duckdb_shim/moraine_table_entry.h"

#include "duckdb/parser/parsed_data/create_table_info.hpp"
#include "duckdb/storage/table_storage_info.hpp"

namespace moraine::duckdb_shim {

MoraineTableEntry::MoraineTableEntry(duckdb::Catalog& owning_catalog,
                                     duckdb::SchemaCatalogEntry& owner,
                                     duckdb::CreateTableInfo& info, commit::TableSpec spec,
                                     std::vector<ColumnCodec> codecs)
    : duckdb::TableCatalogEntry(owning_catalog, owner, info),
#if MORAINE_DUCKDB_MAJOR >= 2
      columns_(std::move(info.columns)),
#endif
      spec_(std::move(spec)),
      codecs_(std::move(codecs)) {
}

duckdb::unique_ptr<duckdb::BaseStatistics> MoraineTableEntry::GetStatistics(duckdb::ClientContext&,
                                                                            duckdb::column_t) {
  return nullptr;
}

duckdb::TableStorageInfo MoraineTableEntry::GetStorageInfo(duckdb::ClientContext&) {
  return duckdb::TableStorageInfo();
}

// GetScanFunction lives in moraine_scan.cpp.

}  // namespace moraine::duckdb_shim
