// moraine's SQL functions, registered in every database moraine is set up in.
#pragma once

namespace duckdb {
class DatabaseInstance;
}  // namespace duckdb

namespace moraine::duckdb_shim {

// moraine_migrate(<store path>) -> (from_format, to_format): upgrades a store
// written in an older format in place (see commit/store_format.h).
void RegisterSqlFunctions(duckdb::DatabaseInstance& database);

}  // namespace moraine::duckdb_shim
