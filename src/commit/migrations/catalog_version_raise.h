// Moving a store along the DuckLake catalog version axis (RFC 0012): reading
// the shape a store is served in, and the deliberate one-way raise to the
// newest shape this build serves.
//
// Thread-safety: plain data, and functions that share only `store`
// (thread-safe): concurrent raises race on the head like any commit, and the
// loser throws store::ConflictError.
#pragma once

#include <memory>
#include <string>

#include "catalog/catalog_version.h"
#include "commit/lake/commit_store.h"
#include "store/kv_store.h"

namespace moraine::commit {

// The shape a session attaching `store` now is served: the recorded version
// (1.0 when none is recorded, which includes a store DuckLake has not
// initialized yet). A label this build cannot order is a newer build's
// doing; it is served the newest shape known here rather than refused,
// because a catalog version never refuses an attach (DuckLake runs its own
// version check on the row).
catalog::CatalogVersion ServedCatalogVersion(const CommitStore& store);

struct CatalogVersionRaise {
  std::string from;  // the version the store reports before the raise
  std::string to;    // the version it reports after (equal: nothing to raise)
  bool operator==(const CatalogVersionRaise&) const = default;
};

struct RaiseOptions {
  bool dry_run = false;  // report the move, record nothing
  bool confirm = false;  // acknowledge that the raise is one way
};

// Raises the store's catalog version to kNewestCatalogVersion, as one batch
// that moves no DuckLake snapshot (like DuckLake's own migrations). Sessions
// already attached keep the shape they chose; later attaches see the new one.
//  - dry run: reports the move and records nothing;
//  - equal from and to: reported, nothing recorded (idempotent);
//  - a move that would record refuses without `confirm`
//    (store::InvalidArgumentError naming the dry run), recording nothing;
//  - a recorded label this build cannot order is refused
//    (store::UnsupportedVersionError), never lowered;
//  - a store that holds no catalog yet: store::InvalidArgumentError.
CatalogVersionRaise RaiseCatalogVersion(const CommitStore& store, const RaiseOptions& options);

}  // namespace moraine::commit
