// The entry point of moraine as a loadable DuckDB extension
// (build/moraine.duckdb_extension, self-contained: see LoadableExtension.cmake),
// for the stock DuckDB CLI, Python, Node or any program of its DuckDB release:
//   SET allow_unsigned_extensions = true;  -- at database start-up (duckdb -unsigned)
//   LOAD 'moraine.duckdb_extension';
//   ATTACH 'ducklake:moraine:/data/lake.moraine' AS lake (DATA_PATH '/data/files/');
#include "duckdb/main/config.hpp"
#include "duckdb/main/extension/extension_loader.hpp"
#include "duckdb_shim/default_data_path.h"
#include "duckdb_shim/sql_functions.h"
#include "duckdb_shim/storage_extension.h"
#include "ducklake_adapter/native_manager_setup.h"
#include "ducklake_adapter/native_metadata_manager.h"

extern "C" {

// DuckDB looks the entry point up by the file's base name: <name>_duckdb_cpp_init.
DUCKDB_EXTENSION_API void moraine_duckdb_cpp_init(duckdb::ExtensionLoader& loader) {
  auto& database = loader.GetDatabaseInstance();
  // The storage extension serves the catalog; the DuckLake adapter above it
  // answers DuckLake natively and learns of each ATTACH through its hook.
  moraine::duckdb_shim::RegisterStorageExtension(
      duckdb::DBConfig::GetConfig(database),
      &moraine::ducklake_adapter::NativeMetadataManager::EnsureRegistered);
  moraine::duckdb_shim::ProvideDefaultDataPath(duckdb::DBConfig::GetConfig(database));
  moraine::duckdb_shim::RegisterSqlFunctions(database);
  moraine::ducklake_adapter::SetUpNativeManager(database);
}
}
