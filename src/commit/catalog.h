// The moraine catalog, usable from C++ without DuckDB (the "verb path").
//
//   auto catalog = Catalog::Open({.location = "/data/lake.moraine"});
//   catalog->Commit([](Transaction& txn) { txn.CreateTable("main", "t", {...}); });
//   auto then = catalog->At(3);  // the catalog as of snapshot 3
//
// A commit lands as exactly one atomic write batch, conditional on the head
// pointer. A writer that loses the race compares the tables it touched with
// the commits that beat it: disjoint, it re-runs its closure on the new head;
// overlapping, it fails with store::ConflictError (RFC 0004).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>

#include "catalog/catalog_state.h"
#include "commit/transaction.h"
#include "store/kv_store.h"

namespace moraine::commit {

struct CatalogOptions {
  // A store directory (created if absent) or "memory://[name]".
  std::string location;
  bool read_only = false;
  // Lost races on disjoint tables retried inside the core before giving up.
  int max_benign_retries = 64;
};

struct CommitResult {
  // The snapshot the commit wrote, or the unchanged head when the closure
  // staged nothing (an empty transaction writes no snapshot).
  Id snapshot_id = 0;
  bool committed = false;
  int retries = 0;  // benign races this commit lost and re-ran
};

class Catalog {
 public:
  // Opens the store, creating DuckLake's genesis state in a new one:
  // snapshot 0, schema `main`, catalog version 1.0.
  static std::unique_ptr<Catalog> Open(const CatalogOptions& options);
  // Uses an already-open store (tests, tools).
  static std::unique_ptr<Catalog> Open(std::shared_ptr<store::KvStore> store,
                                       const CatalogOptions& options = {});

  // The catalog at head. Cheap: the head state is cached and shared.
  std::shared_ptr<const CatalogState> Head();
  // The catalog at a past snapshot, reconstructed from current + history.
  // Throws store::NotFoundError for a snapshot the store does not hold.
  std::shared_ptr<const CatalogState> At(Id snapshot_id);

  // Runs `body` in a transaction and lands what it staged as one batch. The
  // closure may run more than once (benign races); it must not have side
  // effects outside the transaction.
  CommitResult Commit(const std::function<void(Transaction&)>& body);

  store::KvStore& store() { return *store_; }

 private:
  struct HeadView {
    std::shared_ptr<const CatalogState> state;
    std::string head_value;  // sys/head bytes the state was loaded at
    uint64_t batch_count = 0;
  };

  Catalog(std::shared_ptr<store::KvStore> store, CatalogOptions options);
  void CreateGenesisIfNew();
  HeadView CurrentHead();
  // Whether a commit touching `touched` conflicts with a commit that landed
  // after `base_snapshot`.
  bool ConflictsWithCommitsAfter(Id base_snapshot, const TouchedSet& touched);

  std::shared_ptr<store::KvStore> store_;
  CatalogOptions options_;
  std::mutex head_mutex_;  // guards head_ and orders landing with caching
  HeadView head_;
  // Shared by every landing; held exclusively by a commit that lost several
  // races in a row, for its whole next attempt.
  std::shared_mutex commit_gate_;
};

}  // namespace moraine::commit
