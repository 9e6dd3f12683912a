// A DuckDB transaction on a moraine catalog: it owns one commit::RowTransaction,
// begun on first use, and lands it at DuckDB's COMMIT. The row transaction is
// the only state; the shim adds no catalog logic of its own. Thread-safe:
// every use of the row transaction holds the transaction's lock.
#pragma once

#include <memory>
#include <mutex>

#include "commit/row_transaction.h"
#include "duckdb/transaction/transaction.hpp"
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

}  // namespace moraine::duckdb_shim
