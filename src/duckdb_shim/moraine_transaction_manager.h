// The transaction manager of a moraine catalog: starts a MoraineTransaction
// per DuckDB transaction and owns it until DuckDB commits or rolls it back.
// Thread-safe: DuckDB starts and ends transactions from any client thread.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>

#include "catalog/catalog_version.h"
#include "duckdb/transaction/transaction_manager.hpp"
#include "duckdb_shim/moraine_transaction.h"
#include "store/kv_store.h"

namespace moraine::duckdb_shim {

class MoraineTransactionManager : public duckdb::TransactionManager {
 public:
  MoraineTransactionManager(duckdb::AttachedDatabase& attached,
                            std::shared_ptr<store::KvStore> store, catalog::CatalogVersion shape);

  duckdb::Transaction& StartTransaction(duckdb::ClientContext& context) override;
  duckdb::ErrorData CommitTransaction(duckdb::ClientContext& context,
                                      duckdb::Transaction& transaction) override;
  void RollbackTransaction(duckdb::Transaction& transaction) override;
  void Checkpoint(duckdb::ClientContext& context, bool force = false) override;

 private:
  void Forget(duckdb::Transaction& transaction);

  std::shared_ptr<store::KvStore> store_;
  catalog::CatalogVersion shape_;  // the catalog's, chosen at attach
  std::mutex mutex_;
  std::unordered_map<duckdb::Transaction*, std::unique_ptr<MoraineTransaction>> transactions_;
};

}  // namespace moraine::duckdb_shim
