// A DuckDB transaction on a moraine catalog: it owns one commit::RowTransaction
// per store it touches (the catalog's own, and the store of each further
// metadata schema it reads; see catalog_store.h), each begun on first use,
// and lands them at DuckDB's COMMIT. The row transactions are the only
// state; the shim adds no catalog logic of its own.
//
// A transaction writes the catalog of one metadata schema: DuckLake never
// writes two in one transaction, and the stores of two schemas share no
// atomic batch. A commit that would write two is refused and lands nothing.
//
// Thread-safety: thread-safe. DuckDB may run two scans of one transaction on
// different threads, so every use of a row transaction (WithRows, wrote,
// Commit, Rollback) holds mutex_.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "commit/rows/row_transaction.h"
#include "duckdb/catalog/catalog_transaction.hpp"
#include "duckdb/transaction/transaction.hpp"
#include "duckdb_shim/catalog_store.h"
#include "duckdb_shim/error_translation.h"
#include "store/error.h"
#include "store/kv_store.h"

namespace moraine::duckdb_shim {

class MoraineTransaction : public duckdb::Transaction {
 public:
  // `catalog`: the store of the catalog's first metadata schema.
  MoraineTransaction(duckdb::TransactionManager& owner, duckdb::ClientContext& client,
                     CatalogStore catalog);
  ~MoraineTransaction() override;

  static MoraineTransaction& Get(duckdb::ClientContext& context, duckdb::Catalog& catalog);
  // The transaction of a catalog access: its own, or its context's. Throws
  // InternalException for an access with neither.
  static MoraineTransaction& Get(duckdb::CatalogTransaction transaction, duckdb::Catalog& catalog);

  // Runs `fn(RowTransaction&)` on the row transaction of `where` (the
  // catalog's own store when not given) under the transaction's lock (DuckDB
  // may run two scans of one transaction on different threads), translating
  // store errors. `writes` marks that store as having staged something.
  template <class Fn>
  auto WithRows(const CatalogStore& where, bool writes, Fn&& fn)
      -> decltype(fn(std::declval<commit::RowTransaction&>())) {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      auto& open = RowsLocked(where);
      if (writes) open.wrote = true;
      return fn(*open.rows);
    } catch (const store::Error& error) {
      ThrowAsDuckDB(error);
    }
  }
  template <class Fn>
  auto WithRows(bool writes, Fn&& fn) -> decltype(fn(std::declval<commit::RowTransaction&>())) {
    return WithRows(catalog_, writes, std::forward<Fn>(fn));
  }

  // Whether anything was staged (WithRows with `writes`) in `where` so far.
  bool wrote(const CatalogStore& where);

  // Lands the staged writes (or just ends a transaction that wrote nothing).
  // Never throws: a failure becomes the returned ErrorData.
  duckdb::ErrorData Commit();
  void Rollback();

 private:
  struct OpenRows {
    CatalogStore where;
    std::unique_ptr<commit::RowTransaction> rows;
    bool wrote = false;
  };
  OpenRows& RowsLocked(const CatalogStore& where);
  OpenRows* FindLocked(const CatalogStore& where);
  // Whether the commit loop running on this transaction's context holds the
  // process's commit turn (commit_loop_state.h): this transaction is then a
  // retry of that loop, whose COMMIT may run on another thread.
  bool InLoopHoldingTurn();

  std::mutex mutex_;
  CatalogStore catalog_;
  std::vector<OpenRows> open_;  // in the order first used
};

}  // namespace moraine::duckdb_shim
