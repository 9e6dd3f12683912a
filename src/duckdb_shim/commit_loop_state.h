// A DuckLake commit loop that moraine's native metadata manager runs
// (FlushChangesServerSide in native_metadata_manager.cpp), as the commits
// of DuckLake's metadata connection see it. It lives in that connection's
// ClientContext for the loop's duration:
//   - whether the loop's commits may be rebased onto a head that beat them
//     (commit::RowTransaction::AllowRebase), and where the one that was
//     rebased landed (MoraineTransaction::Commit records it; the loop then
//     tells DuckLake);
//   - the process's commit turn, taken at the loop's first retry and held
//     until the loop ends, so that a retry loses only to other processes;
//     while it is held, the metadata transactions of the loop's retries
//     begin at the newest landed head, not the newest durable one
//     (MoraineTransaction), so that a commit whose sync still runs does not
//     beat them again.
//
// Thread-safety: not synchronized: one thread at a time. The loop's thread
// runs Begin, TakeTurnForRetries and End; the loop's COMMIT statements may run
// on a DuckDB worker thread, which reads the state and calls RecordRebase
// while the loop's thread waits for that COMMIT (the wait orders the two).
#pragma once

#include <mutex>
#include <optional>

#include "commit/rows/row_transaction.h"
#include "duckdb/main/client_context.hpp"
#include "duckdb/main/client_context_state.hpp"

namespace moraine::duckdb_shim {

class CommitLoopState : public duckdb::ClientContextState {
 public:
  // The state of the loop running on `context`, created idle if absent.
  static CommitLoopState& Of(duckdb::ClientContext& context);

  // Starts a loop: its commits may rebase if `rebase`; `turn` (may be null)
  // is taken at its first retry.
  void Begin(bool rebase, std::recursive_mutex* turn);
  // Ends the loop: releases the turn, forgets what it recorded.
  void End();

  // Whether a loop runs on this context now (between Begin and End).
  bool running() const { return running_; }
  bool rebase_allowed() const { return rebase_allowed_; }
  // Takes the turn, if the loop has one and does not hold it yet.
  void TakeTurnForRetries();
  // Whether the loop holds the turn now (its commits must not take it again).
  bool holds_turn() const { return held_.owns_lock(); }

  void RecordRebase(const commit::RowTransaction::Rebase& rebase) { rebased_ = rebase; }
  const std::optional<commit::RowTransaction::Rebase>& rebased() const { return rebased_; }

 private:
  bool running_ = false;
  bool rebase_allowed_ = false;
  std::recursive_mutex* turn_ = nullptr;
  std::unique_lock<std::recursive_mutex> held_;
  std::optional<commit::RowTransaction::Rebase> rebased_;
};

}  // namespace moraine::duckdb_shim
