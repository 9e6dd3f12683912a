#include "duckdb_shim/storage_extension.h"

#include "duckdb/common/exception.hpp"
#include "duckdb/main/config.hpp"
#include "duckdb/storage/storage_extension.hpp"
#include "duckdb/transaction/transaction_manager.hpp"

namespace moraine::duckdb_shim {
namespace {

duckdb::unique_ptr<duckdb::Catalog> AttachMoraine(
    duckdb::optional_ptr<duckdb::StorageExtensionInfo>, duckdb::ClientContext&,
    duckdb::AttachedDatabase&, const duckdb::string&, duckdb::AttachInfo& info,
    duckdb::AttachOptions&) {
  throw duckdb::NotImplementedException("moraine: serving a catalog from '%s' is not built yet",
                                        info.path);
}

duckdb::unique_ptr<duckdb::TransactionManager> CreateTransactionManager(
    duckdb::optional_ptr<duckdb::StorageExtensionInfo>, duckdb::AttachedDatabase&,
    duckdb::Catalog&) {
  throw duckdb::NotImplementedException("moraine: transactions are not built yet");
}

}  // namespace

void RegisterStorageExtension(duckdb::DBConfig& config) {
  auto extension = duckdb::make_shared_ptr<duckdb::StorageExtension>();
  extension->attach = AttachMoraine;
  // DuckDB only routes an ATTACH to an extension that provides both hooks.
  extension->create_transaction_manager = CreateTransactionManager;
  duckdb::StorageExtension::Register(config, "moraine", std::move(extension));
}

}  // namespace moraine::duckdb_shim
