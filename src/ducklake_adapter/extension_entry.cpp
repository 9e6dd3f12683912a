// The entry point of moraine as a loadable DuckDB extension
// (build/moraine.duckdb_extension, self-contained: see LoadableExtension.cmake),
// for the stock DuckDB CLI, Python, Node or any program of its DuckDB release
// (built with the DuckLake adapter, MORAINE_WITH_DUCKLAKE_ADAPTER, for the
// releases a DuckLake build is known for):
//   SET allow_unsigned_extensions = true;  -- at database start-up (duckdb -unsigned)
//   LOAD 'moraine.duckdb_extension';
//   ATTACH 'ducklake:moraine:/data/lake.moraine' AS lake (DATA_PATH '/data/files/');
#include "duckdb/main/config.hpp"
#include "duckdb/main/extension/extension_loader.hpp"
#include "duckdb_shim/default_data_path.h"
#include "duckdb_shim/sql_functions.h"
#include "duckdb_shim/storage_extension.h"
#ifdef MORAINE_WITH_DUCKLAKE_ADAPTER
#include "ducklake_adapter/native_manager_setup.h"
#include "ducklake_adapter/native_metadata_manager.h"
#endif

extern "C" {

// DuckDB looks the entry point up by the file's base name: <name>_duckdb_cpp_init.
DUCKDB_EXTENSION_API void moraine_duckdb_cpp_init(duckdb::ExtensionLoader& loader) {
  auto& database = loader.GetDatabaseInstance();
  auto& config = duckdb::DBConfig::GetConfig(database);
#ifdef MORAINE_WITH_DUCKLAKE_ADAPTER
  // The storage extension serves the catalog; the DuckLake adapter above it
  // answers DuckLake natively and learns of each ATTACH through its hook.
  moraine::duckdb_shim::RegisterStorageExtension(
      config, &moraine::ducklake_adapter::NativeMetadataManager::EnsureRegistered);
  moraine::ducklake_adapter::SetUpNativeManager(database);
#else
  // A DuckDB release no DuckLake build is known for: DuckLake reaches the
  // catalog through its SQL alone.
  moraine::duckdb_shim::RegisterStorageExtension(config, nullptr);
#endif
  moraine::duckdb_shim::ProvideDefaultDataPath(config);
  moraine::duckdb_shim::RegisterSqlFunctions(database);
}
}
