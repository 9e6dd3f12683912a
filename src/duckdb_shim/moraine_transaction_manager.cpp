#include "duckdb_shim/moraine_transaction_manager.h"

namespace moraine::duckdb_shim {

MoraineTransactionManager::MoraineTransactionManager(duckdb::AttachedDatabase& attached,
                                                     CatalogStore catalog)
    : duckdb::TransactionManager(attached), catalog_(std::move(catalog)) {}

duckdb::Transaction& MoraineTransactionManager::StartTransaction(duckdb::ClientContext& context) {
  auto transaction = std::make_unique<MoraineTransaction>(*this, context, catalog_);
  auto& result = *transaction;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!first_ && !first_ended_.load(std::memory_order_relaxed)) first_ = &result;
  transactions_[&result] = std::move(transaction);
  return result;
}

duckdb::ErrorData MoraineTransactionManager::CommitTransaction(duckdb::ClientContext&,
                                                               duckdb::Transaction& transaction) {
  auto error = transaction.Cast<MoraineTransaction>().Commit();
  Forget(transaction);
  return error;
}

void MoraineTransactionManager::RollbackTransaction(duckdb::Transaction& transaction) {
  transaction.Cast<MoraineTransaction>().Rollback();
  Forget(transaction);
}

void MoraineTransactionManager::Checkpoint(duckdb::ClientContext&, bool) {
  // Every commit is durable in the store already; there is nothing to fold.
}

void MoraineTransactionManager::Forget(duckdb::Transaction& transaction) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (first_ == &transaction) {
    first_ = nullptr;
    first_ended_.store(true, std::memory_order_release);
  }
  transactions_.erase(&transaction);
}

}  // namespace moraine::duckdb_shim
