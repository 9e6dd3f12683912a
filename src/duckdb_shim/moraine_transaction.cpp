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

}  // namespace moraine::duckdb_shim
