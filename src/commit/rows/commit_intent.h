// A commit handed to another writer to land (group commit on etcd,
// docs/research/cross-process-group-commit.md), and what became of it.
//
// An intent holds what the in-store rebase keeps of a commit
// (snapshot_rebase.h): its writes as staged, the snapshot they were staged
// on and the batch count of that head. Whoever lands it replays them on the
// head it lands on (ReplayCommitIntent, row_transaction.h) under exactly the
// rules a rebase of its own writer follows, so an intent lands as its
// writer's own rebased commit would, or not at all.
//
// Thread-safety: value types and pure functions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog_version.h"
#include "commit/rows/row_transaction.h"
#include "commit/rows/snapshot_rebase.h"
#include "store/kv_store.h"
#include "store/write_batch.h"

namespace moraine::commit {

struct CommitIntent {
  // Names the intent among every writer's (its outcome is found by it): a
  // random UUID (util/uuid.h).
  std::string id;
  catalog::CatalogVersion shape = catalog::CatalogVersion::kV1_0;
  SnapshotCounters base;      // the snapshot the writes were staged on
  uint64_t base_batches = 0;  // the batch count of the head at `base`
  std::vector<RowWrite> writes;
  bool operator==(const CommitIntent&) const = default;
};

// An intent that landed: its rows staged as `staged_snapshot` landed as
// `landed_snapshot` (RowTransaction::Rebase).
struct CommitOutcome {
  std::string intent_id;
  int64_t staged_snapshot = 0;
  int64_t landed_snapshot = 0;
  bool operator==(const CommitOutcome&) const = default;
};

// An intent replayed on the head it is to land on: every write that lands
// it, the new head last, and how its rows moved.
struct ReplayedCommit {
  store::WriteBatch batch;
  RowTransaction::Rebase moved;
};

// `intent` replayed on `view` (the store as it will be when the intent lands:
// typically the commits landing before it laid over a snapshot,
// store/overlaid_snapshot.h) exactly as a rebase of its own writer would
// move it: nullopt, staging nothing, when the rules refuse it (the head
// does not admit it, a row it updates changed, another catalog shape).
// Lands nothing: the caller writes the batch, conditional on the head
// `view` holds. Implemented by the staged-row engine (row_transaction.cpp).
std::optional<ReplayedCommit> ReplayCommitIntent(std::unique_ptr<store::KvSnapshot> view,
                                                 const CommitIntent& intent);

// The replayer a store handle's commits land other writers' intents with
// (store::KvStore::SetIntentReplayer): intents and outcomes as this file
// encodes them. An intent that does not decode is not landed.
store::IntentReplayer CommitIntentReplayer();

std::string EncodeCommitIntent(const CommitIntent& intent);
// Throws store::CorruptionError for bytes that are not an intent and
// store::UnsupportedVersionError for one of a format this build does not know.
CommitIntent DecodeCommitIntent(std::string_view bytes);

std::string EncodeCommitOutcome(const CommitOutcome& outcome);
// Throws as DecodeCommitIntent.
CommitOutcome DecodeCommitOutcome(std::string_view bytes);

}  // namespace moraine::commit
