// The entry point of moraine as a loadable DuckDB extension
// (build/moraine.duckdb_extension, self-contained: see LoadableExtension.cmake),
// for the stock DuckDB CLI, Python, Node or any program of DuckDB 1.5.5:
//   SET allow_unsigned_extensions = true;  -- at database start-up (duckdb -unsigned)
//   LOAD 'moraine.duckdb_extension';
//   ATTACH 'ducklake:moraine:/data/lake.moraine' AS lake (DATA_PATH '/data/files/');
#include "duckdb/main/config.hpp"
#include "duckdb/main/extension/extension_loader.hpp"
#include "duckdb_shim/default_data_path.h"
#include "duckdb_shim/sql_functions.h"
#include "duckdb_shim/storage_extension.h"

extern "C" {

// DuckDB looks the entry point up by the file's base name: <name>_duckdb_cpp_init.
DUCKDB_EXTENSION_API void moraine_duckdb_cpp_init(duckdb::ExtensionLoader& loader) {
  auto& database = loader.GetDatabaseInstance();
  moraine::duckdb_shim::RegisterStorageExtension(duckdb::DBConfig::GetConfig(database));
  moraine::duckdb_shim::ProvideDefaultDataPath(duckdb::DBConfig::GetConfig(database));
  moraine::duckdb_shim::RegisterSqlFunctions(database);
}
}
