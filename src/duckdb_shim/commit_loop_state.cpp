#include "duckdb_shim/commit_loop_state.h"

namespace moraine::duckdb_shim {

CommitLoopState& CommitLoopState::Of(duckdb::ClientContext& context) {
  return *context.registered_state->GetOrCreate<CommitLoopState>("moraine_commit_loop");
}

void CommitLoopState::Begin(bool rebase, std::recursive_mutex* turn) {
  End();
  running_ = true;
  rebase_allowed_ = rebase;
  turn_ = turn;
}

void CommitLoopState::End() {
  if (held_.owns_lock()) held_.unlock();
  held_ = {};
  turn_ = nullptr;
  running_ = false;
  rebase_allowed_ = false;
  rebased_.reset();
}

void CommitLoopState::TakeTurnForRetries() {
  if (turn_ && !held_.owns_lock()) held_ = std::unique_lock<std::recursive_mutex>(*turn_);
}

}  // namespace moraine::duckdb_shim
