// moraine's SQL functions, registered in every database moraine is set up in.
#pragma once

namespace duckdb {
class DatabaseInstance;
}  // namespace duckdb

namespace moraine::duckdb_shim {

// moraine_migrate(<store path>) -> (from_format, to_format): upgrades a store
// written in an older format in place (see commit/store_format.h).
// moraine_raise_catalog_version(<attached lake>, dry_run => BOOLEAN,
// confirm => BOOLEAN) -> (from_version, to_version): raises the DuckLake
// catalog version a store serves (see commit/catalog_version_raise.h).
void RegisterSqlFunctions(duckdb::DatabaseInstance& database);

}  // namespace moraine::duckdb_shim
