#include "commit/verbs/catalog.h"

#include <algorithm>

#include "commit/lake/conflict_backoff.h"
#include "commit/lake/genesis.h"
#include "commit/lake/store_records.h"
#include "commit/migrations/store_format.h"
#include "commit/verbs/catalog_state_rows.h"
#include "store/error.h"
#include "util/wall_clock.h"

namespace moraine::commit {
namespace {

constexpr int kRetriesBeforeRunningAlone = 3;

}  // namespace

std::unique_ptr<Catalog> Catalog::Open(const CatalogOptions& options) {
  store::KvOptions kv;
  kv.location = options.location;
  kv.read_only = options.read_only;
  kv.create_if_missing = !options.read_only;
  return Open(std::shared_ptr<store::KvStore>(store::OpenKvStore(kv)), options);
}

std::unique_ptr<Catalog> Catalog::Open(std::shared_ptr<store::KvStore> store,
                                       const CatalogOptions& options) {
  RequireCurrentStoreFormat(*store);
  std::unique_ptr<Catalog> catalog(new Catalog(std::move(store), options));
  catalog->CreateGenesisIfNew();
  catalog->Head();  // validates the head and warms the cache
  return catalog;
}

Catalog::Catalog(std::shared_ptr<store::KvStore> store, CatalogOptions options)
    : store_(std::move(store)), options_(std::move(options)) {}

void Catalog::CreateGenesisIfNew() {
  if (store::GetLatest(*store_, HeadKey())) return;
  if (store_->read_only()) {
    throw store::NotFoundError("'" + store_->location() +
                               "' is not a moraine catalog (and is opened read-only)");
  }
  auto rows = BeginRowTransaction(store_);
  const std::string data_path =
      options_.data_path.empty() ? store_->location() + ".files/" : options_.data_path;
  StageGenesis(*rows, data_path, util::NowMicros());
  try {
    rows->Commit();
  } catch (const store::ConflictError&) {
    // Another opener created it first; either genesis is fine.
  }
}

std::shared_ptr<const CatalogState> Catalog::StateFor(RowTransaction& rows) {
  auto head_value = store::GetLatest(*store_, HeadKey());
  if (!head_value) throw store::CorruptionError("store lost its head record");
  auto latest = rows.LatestSnapshot();
  if (!latest) throw store::CorruptionError("store lost its head record");
  {
    std::lock_guard lock(head_mutex_);
    if (head_.state && head_.head_value == *head_value &&
        head_.state->snapshot_id() == latest->snapshot_id) {
      return head_.state;
    }
  }
  // Someone else moved the head (another handle, a maintenance batch): read
  // the catalog from the rows this transaction sees.
  auto state = std::make_shared<const CatalogState>(ReadCatalogState(rows));
  std::lock_guard lock(head_mutex_);
  if (state->snapshot_id() == latest->snapshot_id) head_ = {state, *head_value};
  return state;
}

std::shared_ptr<const CatalogState> Catalog::Head() {
  auto rows = BeginRowTransaction(store_);
  auto state = StateFor(*rows);
  rows->Rollback();
  return state;
}

std::shared_ptr<const CatalogState> Catalog::At(Id snapshot_id) {
  auto rows = BeginRowTransaction(store_);
  auto state = std::make_shared<const CatalogState>(ReadCatalogState(*rows, snapshot_id));
  rows->Rollback();
  return state;
}

CommitResult Catalog::Commit(const std::function<void(Transaction&)>& body) {
  if (store_->read_only()) {
    throw store::ReadOnlyError("catalog '" + store_->location() + "' is open read-only");
  }
  CommitResult result;
  for (;; ++result.retries) {
    // Fairness: a commit that keeps losing to faster writers of this process
    // runs its next attempt alone, so it lands; the others wait at landing.
    std::unique_lock<std::shared_mutex> alone(commit_gate_, std::defer_lock);
    std::shared_lock<std::shared_mutex> among_others(commit_gate_, std::defer_lock);
    if (result.retries >= kRetriesBeforeRunningAlone) alone.lock();
    auto rows = BeginRowTransaction(store_);
    const std::shared_ptr<const CatalogState> base = StateFor(*rows);
    Transaction txn(*base, *rows);
    body(txn);
    if (!txn.HasChanges()) {
      rows->Rollback();
      result.snapshot_id = base->snapshot_id();
      return result;
    }
    txn.StageSnapshot(util::NowMicros());
    {
      if (!alone.owns_lock()) among_others.lock();
      std::lock_guard lock(head_mutex_);
      try {
        rows->Commit();
        // Landing and caching under one lock: no reader of this handle can
        // see the new head and then a stale cached state for it.
        auto landed = store::GetLatest(*store_, HeadKey());
        head_ = {std::make_shared<const CatalogState>(txn.state()), landed.value_or("")};
        result.snapshot_id = txn.snapshot_id();
        result.committed = true;
        return result;
      } catch (const store::ConflictError&) {
        // Lost the race on the head: re-run on the new head, below.
      }
    }
    if (result.retries >= options_.max_retries) {
      throw store::ConflictError("commit gave up after " + std::to_string(result.retries) +
                                 " lost races; retry the transaction");
    }
    BackOffAfterConflict(result.retries);
  }
}

}  // namespace moraine::commit
