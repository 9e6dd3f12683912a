// The moraine catalog, usable from C++ without DuckDB (the "verb path").
//
//   auto catalog = Catalog::Open({.location = "/data/lake.moraine"});
//   catalog->Commit([](Transaction& txn) { txn.CreateTable("main", "t", {...}); });
//   auto then = catalog->At(3);  // the catalog as of snapshot 3
//
// One writer: a commit stages DuckLake's own ducklake_* rows (Transaction) on
// a RowTransaction, the staged-row path DuckLake's SQL drives, and lands them
// with its Commit. Head() and At() are read from those rows.
//
// The conflict rule, the same for both entry points:
//   - What conflicts: any move of the head between the moment a
//     RowTransaction began and its commit. RowTransaction::Commit then writes
//     nothing and throws store::ConflictError; no finer rule exists in the
//     store (it cannot tell which rows a concurrent commit read).
//   - What is retried, and by whom: the entry point re-runs its work on the
//     new head. DuckLake does so for SQL (its commit retry loop, with its own
//     check of the changes that beat it); Catalog::Commit does so for the
//     verbs by re-running the closure, which re-validates every name and id
//     against the new head. A lost race is therefore benign whenever the
//     closure still applies to the new head, whatever tables it touches.
//   - What surfaces to the caller: the closure's own typed error when it no
//     longer applies to the new head (e.g. store::ConstraintError for a name
//     a concurrent commit took), or store::ConflictError after
//     `max_retries` lost races in a row.
//
// Thread-safety: a Catalog may be shared by threads; Commit, Head and At are
// safe to call concurrently. A commit that lost several races in a row runs
// its next attempt alone among this handle's commits, so none starves.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>

#include "catalog/catalog_state.h"
#include "commit/rows/row_transaction.h"
#include "commit/verbs/transaction.h"
#include "store/kv_store.h"

namespace moraine::commit {

struct CatalogOptions {
  // A store directory (created if absent) or "memory://[name]".
  std::string location;
  bool read_only = false;
  // The lake's data path, recorded as DuckLake's `data_path` option when the
  // catalog is created; empty: `<location>.files/`, where DuckLake on moraine
  // puts a new lake's data files by default.
  std::string data_path{};
  // Lost races re-run inside the core before ConflictError surfaces.
  int max_retries = 64;
};

struct CommitResult {
  // The snapshot the commit wrote, or the unchanged head when the closure
  // staged nothing (an empty transaction writes no snapshot).
  Id snapshot_id = 0;
  bool committed = false;
  int retries = 0;  // lost races this commit re-ran
};

class Catalog {
 public:
  // Opens the store, creating DuckLake's genesis state in a new one (the rows
  // DuckLakeMetadataManager::InitializeDuckLake writes): snapshot 0, schema
  // `main`, catalog version 1.0.
  static std::unique_ptr<Catalog> Open(const CatalogOptions& options);
  // Uses an already-open store (tests, tools).
  static std::unique_ptr<Catalog> Open(std::shared_ptr<store::KvStore> store,
                                       const CatalogOptions& options = {});

  // The catalog at head. Cheap: the head state is cached and shared.
  std::shared_ptr<const CatalogState> Head();
  // The catalog at a past snapshot, read from the rows live at it.
  // Throws store::NotFoundError for a snapshot the store does not hold.
  std::shared_ptr<const CatalogState> At(Id snapshot_id);

  // Runs `body` in a transaction and lands what it staged as one batch. The
  // closure may run more than once (lost races); it must not have side
  // effects outside the transaction.
  CommitResult Commit(const std::function<void(Transaction&)>& body);

  store::KvStore& store() { return *store_; }

 private:
  struct HeadView {
    std::shared_ptr<const CatalogState> state;
    std::string head_value;  // sys/head bytes the state was read at
  };

  Catalog(std::shared_ptr<store::KvStore> store, CatalogOptions options);
  void CreateGenesisIfNew();
  // The head state as `rows` sees it: the cached one when the head has not
  // moved since it was read, else read from `rows`.
  std::shared_ptr<const CatalogState> StateFor(RowTransaction& rows);

  std::shared_ptr<store::KvStore> store_;
  CatalogOptions options_;
  std::mutex head_mutex_;  // guards head_ and orders landing with caching
  HeadView head_;
  // Shared by every landing; held exclusively by a commit that lost several
  // races in a row, for its whole next attempt.
  std::shared_mutex commit_gate_;
};

}  // namespace moraine::commit
