// A DuckDB transaction on a moraine catalog: it owns one commit::RowTransaction,
// begun on first use, and lands it at DuckDB's COMMIT. The row transaction is
// the only state; the shim adds no catalog logic of its own.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>

#include "commit/row_transaction.h"
#include "duckdb/transaction/transaction.hpp"
#include "duckdb/transaction/transaction_manager.hpp"
#include "duckdb_shim/error_translation.h"
#include "store/error.h"
#include "store/kv_store.h"

namespace moraine::duckdb_shim {

class MoraineTransaction : public duckdb::Transaction {
 public:
  MoraineTransaction(duckdb::TransactionManager& owner, duckdb::ClientContext& client,
                     std::shared_ptr<store::KvStore> store, catalog::CatalogVersion shape);
  ~MoraineTransaction() override;

  static MoraineTransaction& Get(duckdb::ClientContext& context, duckdb::Catalog& catalog);

  // Runs `fn(RowTransaction&)` under the transaction's lock (DuckDB may run
  // two scans of one transaction on different threads), translating store
  // errors. `writes` marks the transaction as having staged something.
  template <class Fn>
  auto WithRows(bool writes, Fn&& fn) -> decltype(fn(std::declval<commit::RowTransaction&>())) {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      auto& rows = RowsLocked();
      if (writes) wrote_ = true;
      return fn(rows);
    } catch (const store::Error& error) {
      ThrowAsDuckDB(error);
    }
  }

  // Whether anything was staged (WithRows with `writes`) so far.
  bool wrote() {
    std::lock_guard<std::mutex> lock(mutex_);
    return wrote_;
  }

  // Lands the staged writes (or just ends a transaction that wrote nothing).
  // Never throws: a failure becomes the returned ErrorData.
  duckdb::ErrorData Commit();
  void Rollback();

 private:
  commit::RowTransaction& RowsLocked();

  std::mutex mutex_;
  std::shared_ptr<store::KvStore> store_;
  catalog::CatalogVersion shape_;  // the catalog's, chosen at attach
  std::unique_ptr<commit::RowTransaction> rows_;
  bool wrote_ = false;
};

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
