// DuckLake's six catalog queries answered from the store. DuckLake builds a
// catalog from six SQL statements (schemas, tables with their columns, views,
// macros, partitions, sorts; the static
// DuckLakeMetadataManager::BuildCatalogForSnapshot). GetCatalogForSnapshot,
// which moraine's manager replaces, is one caller; the commit of every new
// table or table version is another: it builds the whole catalog at the
// commit snapshot through Query(snapshot, query) to diff the table's
// partition keys, which was two thirds of an ALTER's cost. These build the
// result sets DuckLake's parser reads, from a commit::LakeCatalog, so the
// commit reads the same catalog as the six statements would give.
//
// The texts are DuckLake's: CatalogQueryTexts records them by running
// DuckLake's exported BuildCatalogForSnapshot once on empty results, so
// moraine keeps no copy of DuckLake's SQL and answers only the very texts
// this DuckLake sends.
//
// Results are DuckDB objects of moraine's engine copy handed to DuckLake's
// (the same release, so the same layout; see native_metadata_manager.h).
//
// Thread-safety: functions of their arguments.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "commit/lake/lake_catalog.h"
#include "duckdb/main/client_context.hpp"
#include "duckdb/main/query_result.hpp"

namespace moraine::ducklake_adapter {

// In the order BuildCatalogForSnapshot sends them.
enum class CatalogQuery : size_t { kSchemas, kTables, kViews, kMacros, kPartitions, kSorts };
inline constexpr size_t kCatalogQueryCount = 6;

using CatalogQueryTexts = std::array<std::string, kCatalogQueryCount>;

// The texts DuckLake's `build_catalog` (the address of its exported
// BuildCatalogForSnapshot) sends, or nullopt with the reason in `why` when it
// sends other than six.
std::optional<CatalogQueryTexts> RecordCatalogQueryTexts(void* build_catalog, std::string* why);

// Which of the six `query` is, if any.
std::optional<CatalogQuery> FindCatalogQuery(const CatalogQueryTexts& texts,
                                             const std::string& query);

// The rows `query` gives on the catalog `catalog`, which must not need SQL
// (LakeCatalog::needs_sql): a lake with macros leaves all six to DuckLake.
duckdb::unique_ptr<duckdb::QueryResult> CatalogQueryResult(duckdb::ClientContext& context,
                                                           CatalogQuery query,
                                                           const commit::LakeCatalog& catalog);

}  // namespace moraine::ducklake_adapter
