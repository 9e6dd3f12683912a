// The transaction manager of a moraine catalog: starts a MoraineTransaction
// per DuckDB transaction and owns it until DuckDB commits or rolls it back.
// Thread-safety: thread-safe, as DuckDB starts and ends transactions from any
// client thread: mutex_ guards transactions_ and first_; first_ended_ is
// atomic, so FirstTransactionEnded takes no lock.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "duckdb/transaction/transaction_manager.hpp"
#include "duckdb_shim/catalog_store.h"
#include "duckdb_shim/moraine_transaction.h"

namespace moraine::duckdb_shim {

class MoraineTransactionManager : public duckdb::TransactionManager {
 public:
  // `catalog`: the store of the catalog's first metadata schema.
  MoraineTransactionManager(duckdb::AttachedDatabase& attached, CatalogStore catalog);

  duckdb::Transaction& StartTransaction(duckdb::ClientContext& context) override;
  duckdb::ErrorData CommitTransaction(duckdb::ClientContext& context,
                                      duckdb::Transaction& transaction) override;
  void RollbackTransaction(duckdb::Transaction& transaction) override;
  void Checkpoint(duckdb::ClientContext& context, bool force = false) override;

  // Whether the first transaction started on this catalog has ended. That
  // one belongs to whoever attached it: for DuckLake, the transaction of the
  // ATTACH that loaded the lake, which may still be running a manager built
  // before moraine registered its own (native_metadata_manager.h).
  bool FirstTransactionEnded() const { return first_ended_.load(std::memory_order_acquire); }

 private:
  void Forget(duckdb::Transaction& transaction);

  CatalogStore catalog_;
  std::mutex mutex_;
  std::unordered_map<duckdb::Transaction*, std::unique_ptr<MoraineTransaction>> transactions_;
  const duckdb::Transaction* first_ = nullptr;  // under mutex_
  std::atomic<bool> first_ended_{false};
};

}  // namespace moraine::duckdb_shim
