#include "duckdb_shim/moraine_transaction.h"

#include "duckdb/common/exception.hpp"
#include "duckdb_shim/commit_loop_state.h"

namespace moraine::duckdb_shim {

MoraineTransaction::MoraineTransaction(duckdb::TransactionManager& owner,
                                       duckdb::ClientContext& client, CatalogStore catalog)
    : duckdb::Transaction(owner, client), catalog_(std::move(catalog)) {}

MoraineTransaction::~MoraineTransaction() = default;

MoraineTransaction& MoraineTransaction::Get(duckdb::ClientContext& context,
                                            duckdb::Catalog& catalog) {
  return duckdb::Transaction::Get(context, catalog).Cast<MoraineTransaction>();
}

MoraineTransaction& MoraineTransaction::Get(duckdb::CatalogTransaction transaction,
                                            duckdb::Catalog& catalog) {
  if (transaction.transaction) return transaction.transaction->Cast<MoraineTransaction>();
  if (transaction.context) return Get(*transaction.context, catalog);
  throw duckdb::InternalException("moraine: catalog access without a transaction");
}

MoraineTransaction::OpenRows* MoraineTransaction::FindLocked(const CatalogStore& where) {
  for (auto& open : open_) {
    if (open.where.store == where.store) return &open;
  }
  return nullptr;
}

MoraineTransaction::OpenRows& MoraineTransaction::RowsLocked(const CatalogStore& where) {
  if (auto* open = FindLocked(where)) return *open;
  // Begun lazily: DuckDB starts a transaction on every attached catalog a
  // statement touches, and most never read a row. A retry of a commit loop
  // that holds the process's commit turn begins at the newest landed head:
  // it commits next, and on the durable head it would lose its race to a
  // commit whose sync still runs, spending DuckLake's retries (which the
  // loop runs without a wait) within that one sync.
  open_.push_back({where,
                   commit::BeginRowTransaction(where.store, where.shape,
                                               InLoopHoldingTurn() ? commit::BeginAt::kLandedHead
                                                                   : commit::BeginAt::kDurableHead),
                   false});
  return open_.back();
}

bool MoraineTransaction::InLoopHoldingTurn() {
  const auto client = context.lock();
  return client && CommitLoopState::Of(*client).holds_turn();
}

bool MoraineTransaction::wrote(const CatalogStore& where) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto* open = FindLocked(where);
  return open && open->wrote;
}

duckdb::ErrorData MoraineTransaction::Commit() {
  std::lock_guard<std::mutex> lock(mutex_);
  // The row transactions are finished whatever happens below; DuckDB does
  // not call Rollback after a failed commit.
  auto open = std::move(open_);
  open_.clear();
  OpenRows* writer = nullptr;
  for (auto& candidate : open) {
    if (!candidate.wrote) continue;
    if (writer) {
      for (auto& each : open) each.rows->Rollback();
      return duckdb::ErrorData(duckdb::InvalidInputException(
          "one transaction wrote the catalogs of two metadata schemas of the moraine store at "
          "%s, which share no atomic commit; commit each on its own",
          catalog_.store->location()));
    }
    writer = &candidate;
  }
  try {
    for (auto& each : open) {
      if (&each != writer) each.rows->Rollback();
    }
    if (writer) {
      // The commit loop running on this context may hold the commit turn
      // while this COMMIT runs on another thread (a DuckDB worker).
      if (InLoopHoldingTurn()) writer->rows->CommitTurnHeldByCaller();
      writer->rows->Commit();
      // A rebased commit landed at another snapshot id than DuckLake staged;
      // the commit loop running on this context tells DuckLake.
      const auto client = context.lock();
      if (const auto rebase = writer->rows->rebased(); rebase && client) {
        CommitLoopState::Of(*client).RecordRebase(*rebase);
      }
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
  auto open = std::move(open_);
  open_.clear();
  for (auto& each : open) {
    try {
      each.rows->Rollback();
    } catch (const store::Error&) {
      // Nothing was written; dropping the row transaction releases it.
    }
  }
}

}  // namespace moraine::duckdb_shim
