#include "commit/catalog.h"

#include "commit/store_format.h"
#include "commit/store_records.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "catalog/record_io.h"
#include "catalog/state_loader.h"
#include "catalog/uuid.h"
#include "store/error.h"
#include "store/key.h"
#include "store/value_frame.h"

namespace moraine::commit {

using catalog::HeadRecord;
using store::Key;
using store::Kind;

namespace {

constexpr const char* kCatalogVersion = "1.0";

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A writer that keeps losing races to faster ones must eventually win: wait a
// randomized, exponentially growing while (10 us doubling, capped at 2 ms)
// before re-running the closure, so contenders spread out instead of colliding
// in lockstep.
void BackOff(int retries) {
  thread_local std::mt19937 generator{std::random_device{}()};
  const int64_t ceiling_us = std::min<int64_t>(2000, int64_t{10} << std::min(retries, 8));
  std::uniform_int_distribution<int64_t> wait_us(ceiling_us / 2, ceiling_us);
  std::this_thread::sleep_for(std::chrono::microseconds(wait_us(generator)));
}

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
  catalog->CurrentHead();  // validates the head and warms the cache
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
  // DuckLake's genesis: snapshot 0 holding schema `main` (id 0); the next
  // catalog id is 1, the next file id 0; the catalog is format 1.0.
  catalog::SchemaRecord main;
  main.set_schema_id(0);
  main.set_schema_uuid(catalog::NewUuid());
  main.set_begin_snapshot(0);
  main.set_schema_name("main");
  main.set_path("main/");
  main.set_path_is_relative(true);

  catalog::SnapshotRecord snapshot;
  snapshot.set_snapshot_id(0);
  snapshot.set_snapshot_time(NowMicros());
  snapshot.set_schema_version(0);
  snapshot.set_next_catalog_id(1);
  snapshot.set_next_file_id(0);
  snapshot.set_changes_made("created_schema:\"main\"");
  snapshot.set_schema_list_changed(true);

  catalog::OptionRecord options;  // the global scope: scope and scope_id NULL
  for (const auto& [key, value] : {std::pair<const char*, const char*>{"version", kCatalogVersion},
                                   {"created_by", kWrittenBy},
                                   {"encrypted", "false"}}) {
    auto* entry = options.add_entries();
    entry->set_key(key);
    entry->set_value(value);
  }

  store::WriteBatch batch;
  batch.Put(FormatKey(), EncodeFormat());
  batch.Put(Key::Current(Kind::kSnapshot, {0}).Encode(),
            store::FrameValue(Kind::kSnapshot, snapshot));
  batch.Put(Key::Current(Kind::kSchema, {0}).Encode(), store::FrameValue(Kind::kSchema, main));
  batch.Put(
      Key::Current(Kind::kOption, {static_cast<uint64_t>(store::OptionScope::kGlobal), 0}).Encode(),
      store::FrameValue(Kind::kOption, options));
  batch.Put(HeadKey(), EncodeHead(0, 1));
  // Another opener may have raced us to create it; either genesis is fine.
  store_->WriteIfHeadUnchanged(HeadKey(), std::nullopt, batch);
}

Catalog::HeadView Catalog::CurrentHead() {
  auto head_value = store::GetLatest(*store_, HeadKey());
  if (!head_value) throw store::CorruptionError("store lost its head record");
  std::lock_guard lock(head_mutex_);
  if (head_.state && head_.head_value == *head_value) return head_;
  // Someone else moved the head (another handle, a maintenance batch): reload.
  // A fresh snapshot may see a newer head than the one just read; load the
  // state and the head value from the same snapshot so they always agree.
  auto snapshot = store_->GetSnapshot();
  auto consistent_value = snapshot->Get(HeadKey());
  if (!consistent_value) throw store::CorruptionError("store lost its head record");
  HeadRecord head;
  store::UnframeValue(Kind::kHead, *consistent_value, &head);
  head_.state = std::make_shared<const CatalogState>(catalog::LoadState(*snapshot));
  head_.head_value = *consistent_value;
  head_.batch_count = head.batch_count();
  return head_;
}

std::shared_ptr<const CatalogState> Catalog::Head() { return CurrentHead().state; }

std::shared_ptr<const CatalogState> Catalog::At(Id snapshot_id) {
  auto snapshot = store_->GetSnapshot();
  return std::make_shared<const CatalogState>(catalog::LoadState(*snapshot, snapshot_id));
}

bool Catalog::ConflictsWithCommitsAfter(Id base_snapshot, const TouchedSet& touched) {
  auto snapshot = store_->GetSnapshot();
  const Id head = catalog::ReadHeadSnapshotId(*snapshot);
  for (Id id = base_snapshot + 1; id <= head; ++id) {
    auto record = catalog::ReadRecord<catalog::SnapshotRecord>(
        *snapshot, Key::Current(Kind::kSnapshot, {static_cast<uint64_t>(id)}));
    if (!record) continue;  // expired: nothing left to conflict with
    TouchedSet theirs;
    theirs.tables.insert(record->touched_table_ids().begin(), record->touched_table_ids().end());
    theirs.schema_list = record->schema_list_changed();
    if (touched.Overlaps(theirs)) return true;
  }
  return false;
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
    const HeadView base = CurrentHead();
    Transaction txn(*base.state);
    body(txn);
    if (!txn.HasChanges()) {
      result.snapshot_id = base.state->snapshot_id();
      return result;
    }
    const Id new_id = txn.snapshot_id();
    const std::string new_head = EncodeHead(new_id, base.batch_count + 1);
    store::WriteBatch batch = txn.BuildBatch(new_head, NowMicros());
    {
      if (!alone.owns_lock()) among_others.lock();
      std::lock_guard lock(head_mutex_);
      if (store_->WriteIfHeadUnchanged(HeadKey(), base.head_value, batch)) {
        // Landing and caching under one lock: no reader can see the new head
        // in the store and then load a stale cached state for it.
        head_.state = std::make_shared<const CatalogState>(txn.state());
        head_.head_value = new_head;
        head_.batch_count = base.batch_count + 1;
        result.snapshot_id = new_id;
        result.committed = true;
        return result;
      }
    }
    if (ConflictsWithCommitsAfter(base.state->snapshot_id(), txn.touched())) {
      throw store::ConflictError(
          "commit conflict: a concurrent commit changed the same table(s); retry the "
          "transaction");
    }
    if (result.retries >= options_.max_benign_retries) {
      throw store::ConflictError("commit gave up after " + std::to_string(result.retries) +
                                 " lost races on disjoint tables");
    }
    BackOff(result.retries);
  }
}

}  // namespace moraine::commit
