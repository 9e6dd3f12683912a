#include "ducklake_adapter/host.h"

#include <cstdlib>

#include "duckdb.hpp"
#include "duckdb_shim/default_data_path.h"
#include "duckdb_shim/sql_functions.h"
#include "duckdb_shim/storage_extension.h"
#include "ducklake_adapter/native_manager_setup.h"
#include "ducklake_adapter/native_metadata_manager.h"

namespace moraine::ducklake_adapter {

std::string Host::DefaultDuckLakeExtension() {
  if (const char* path = std::getenv("MORAINE_DUCKLAKE_EXTENSION"); path && *path) {
    return path;
  }
  return MORAINE_DUCKLAKE_EXTENSION;
}

Host::Host(const HostOptions& options) {
  duckdb::DBConfig config;
  // moraine never reaches for the network: DuckLake is loaded from the pinned
  // binary by path, and nothing is installed or auto-loaded behind our back.
  config.SetOptionByName("autoinstall_known_extensions", duckdb::Value::BOOLEAN(false));
  config.SetOptionByName("autoload_known_extensions", duckdb::Value::BOOLEAN(false));
  // The DuckLake of a release no registry serves a binary of is built on this
  // machine (scripts/build_ducklake.sh), so it carries no DuckDB signature.
  config.SetOptionByName("allow_unsigned_extensions", duckdb::Value::BOOLEAN(true));
  duckdb_shim::RegisterStorageExtension(config, &NativeMetadataManager::EnsureRegistered);
  duckdb_shim::ProvideDefaultDataPath(config);
  database_ = std::make_unique<duckdb::DuckDB>(
      options.database_path.empty() ? nullptr : options.database_path.c_str(), &config);
  duckdb_shim::RegisterSqlFunctions(*database_->instance);
  SetUpNativeManager(*database_->instance);

  const std::string extension =
      options.ducklake_extension.empty() ? DefaultDuckLakeExtension() : options.ducklake_extension;
  duckdb::Connection connection(*database_);
  auto result = connection.Query("LOAD '" + extension + "'");
  if (result->HasError()) {
    throw std::runtime_error("moraine: could not load DuckLake from " + extension + ": " +
                             result->GetError());
  }
  NativeMetadataManager::EnsureRegistered();
}

namespace {

// DuckLake (d8a1881e and main alike) keeps a transaction whose COMMIT failed:
// its transaction manager erases a transaction only after Commit() returned,
// and DuckDB's MetaTransaction marks a failed commit rolled back without
// calling RollbackTransaction. That transaction still holds its metadata
// connection, whose ClientContext holds this DatabaseInstance: the instance
// would own itself and never close, nor close the stores it attached (a
// second ATTACH of the store in this process is then refused as open
// read-write). Detaching the lakes destroys their transaction managers, and
// that reference with them.
void DetachLakes(duckdb::DuckDB& database) noexcept {
  try {
    duckdb::Connection connection(database);
    auto lakes =
        connection.Query("SELECT database_name FROM duckdb_databases() WHERE type = 'ducklake'");
    if (lakes->HasError()) return;
    for (duckdb::idx_t row = 0; row < lakes->RowCount(); row++) {
      connection.Query("DETACH DATABASE IF EXISTS " + duckdb::KeywordHelper::WriteOptionallyQuoted(
                                                          lakes->GetValue(0, row).ToString()));
    }
  } catch (...) {
    // Best effort: the database closes as it would have without.
  }
}

}  // namespace

Host::~Host() {
  if (database_) DetachLakes(*database_);
}

std::unique_ptr<duckdb::Connection> Host::Connect() {
  return std::make_unique<duckdb::Connection>(*database_);
}

}  // namespace moraine::ducklake_adapter
