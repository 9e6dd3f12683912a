#include "duckdb_shim/moraine_transaction.h"

#include "duckdb/common/exception.hpp"

namespace moraine::duckdb_shim {

MoraineTransaction::MoraineTransaction(duckdb::TransactionManager& owner,
                                       duckdb::ClientContext& client,
                                       std::shared_ptr<store::KvStore> store,
                                       catalog::CatalogVersion shape)
    : duckdb::Transaction(owner, client), store_(std::move(store)), shape_(shape) {}

MoraineTransaction::~MoraineTransaction() = default;

MoraineTransaction& MoraineTransaction::Get(duckdb::ClientContext& context,
                                            duckdb::Catalog& catalog) {
  return duckdb::Transaction::Get(context, catalog).Cast<MoraineTransaction>();
}

commit::RowTransaction& MoraineTransaction::RowsLocked() {
  // Begun lazily: DuckDB starts a transaction on every attached catalog a
  // statement touches, and most never read a row.
  if (!rows_) rows_ = commit::BeginRowTransaction(store_, shape_);
  return *rows_;
}

duckdb::ErrorData MoraineTransaction::Commit() {
  std::lock_guard<std::mutex> lock(mutex_);
  // The row transaction is finished whatever happens below; DuckDB does not
  // call Rollback after a failed commit.
  auto rows = std::move(rows_);
  if (!rows) return duckdb::ErrorData();
  try {
    if (wrote_) {
      rows->Commit();
    } else {
      rows->Rollback();
    }
    return duckdb::ErrorData();
  } catch (const store::Error& error) {
    return AsDuckDBError(error);
  } catch (const std::exception& error) {
    return duckdb::ErrorData(error);
  }
}

void MoraineTransaction::Rollback() {
  std::lock_guard<std::mutex> lock(mutex_);
  auto rows = std::move(rows_);
  if (!rows) return;
  try {
    rows->Rollback();
  } catch (const store::Error&) {
    // Nothing was written; dropping the row transaction releases it.
  }
}

MoraineTransactionManager::MoraineTransactionManager(duckdb::AttachedDatabase& attached,
                                                     std::shared_ptr<store::KvStore> store,
                                                     catalog::CatalogVersion shape)
    : duckdb::TransactionManager(attached), store_(std::move(store)), shape_(shape) {}

duckdb::Transaction& MoraineTransactionManager::StartTransaction(duckdb::ClientContext& context) {
  auto transaction = std::make_unique<MoraineTransaction>(*this, context, store_, shape_);
  auto& result = *transaction;
  std::lock_guard<std::mutex> lock(mutex_);
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
  transactions_.erase(&transaction);
}

}  // namespace moraine::duckdb_shim
