#include "commit/rows/row_transaction.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>

#include <google/protobuf/arena.h>

#include "catalog/ducklake_tables.h"
#include "catalog/max_column_id.h"
#include "catalog/row_mapping.h"
#include "commit/lake/catalog_caching_store.h"
#include "commit/lake/store_records.h"
#include "commit/rows/commit_intent.h"
#include "commit/rows/data_file_summary.h"
#include "commit/rows/inlined_batch_summary.h"
#include "commit/rows/inlined_tables.h"
#include "commit/rows/snapshot_rebase.h"
#include "commit/rows/staged_view.h"
#include "commit/rows/storage/fixed_row_storage.h"
#include "commit/rows/storage/inlined_row_storage.h"
#include "commit/rows/storage/row_storage.h"
#include "commit/rows/storage/staged_records.h"
#include "commit/rows/storage/version_option.h"
#include "commit/rows/table_rows.h"
#include "store/error.h"
#include "store/records.pb.h"
#include "store/value_frame.h"
#include "util/uuid.h"

namespace moraine::commit {

using catalog::InlinedTableName;
using catalog::RowMapping;
using store::Kind;

namespace {

constexpr const char* kLostRace =
    "commit conflict: another transaction committed to this catalog since this one began";
// How often a rebased commit may lose again (to other processes) before its
// conflict goes to DuckLake's own retry.
constexpr int kRebaseAttempts = 3;

TableSpec SpecOf(const catalog::CatalogTable& table) {
  TableSpec spec{std::string(table.name), {}, {}};
  for (const auto& column : table.columns) {
    spec.columns.push_back({std::string(column.name),
                            std::string(catalog::CellTypeName(column.type)), column.nullable});
  }
  for (auto key : table.primary_key) spec.primary_key.emplace_back(key);
  return spec;
}

bool SameColumns(const TableSpec& a, const TableSpec& b) {
  if (a.columns.size() != b.columns.size()) return false;
  for (size_t i = 0; i < a.columns.size(); ++i) {
    if (a.columns[i].name != b.columns[i].name || a.columns[i].type != b.columns[i].type) {
      return false;
    }
  }
  return true;
}

std::string SnapshotRecordKey(int64_t snapshot_id) {
  return store::Key::Current(Kind::kSnapshot, {static_cast<uint64_t>(snapshot_id)}).Encode();
}

store::v1::HeadRecord DecodeHead(const std::optional<std::string>& value) {
  store::v1::HeadRecord head;
  if (value) store::UnframeValue(Kind::kHead, *value, &head);
  return head;
}

// What the head says of the inlined batches (records.proto): a store without
// a head holds none.
std::optional<int64_t> InlinedBatchesThrough(const std::optional<std::string>& head_value,
                                             const store::v1::HeadRecord& head) {
  if (!head_value) return -1;
  if (!head.has_inlined_batches_through()) return std::nullopt;
  return head.inlined_batches_through();
}

// Rows are laid onto records by the table's RowStorage (storage/); this
// class keeps what spans tables: which tables exist, the row handles it has
// handed out, the reserved catalog version, and the one-batch commit.
class StoreRowTransaction final : public RowTransaction {
 public:
  // Reads what `store` has made durable; `for_commit`: everything that landed
  // (a rebase, which lands after it, building on the newest head).
  StoreRowTransaction(const CommitStore& store, catalog::CatalogVersion shape,
                      bool for_commit = false)
      : StoreRowTransaction(
            store, shape,
            for_commit ? store.store()->GetSnapshotForCommit() : store.store()->GetSnapshot()) {}
  // Reads `view` instead (another writer's intent replayed over the commits
  // landing before it: ReplayCommitIntent).
  StoreRowTransaction(const CommitStore& store, catalog::CatalogVersion shape,
                      std::unique_ptr<store::KvSnapshot> view)
      : store_(store),
        shape_(shape),
        view_(std::move(view)),
        head_value_(view_.Get(HeadKey())),
        head_(DecodeHead(head_value_)),
        staged_(view_, (head_.batch_count() + 1) << 32, InlinedBatchesThrough(head_value_, head_)) {
  }

  std::string SchemaName() override {
    // Asked at every DuckDB schema lookup; it changes only through CreateSchema.
    if (!schema_name_) {
      auto value = view_.Get(NamespaceKey());
      schema_name_ = value ? DecodeNamespace(*value) : std::string(kDefaultSchemaName);
    }
    return *schema_name_;
  }

  void CreateSchema(std::string_view name) override {
    RequireOpen();
    const std::string current = SchemaName();
    const bool chosen =
        FixedTablesExist() || !created_fixed_.empty() || view_.Get(NamespaceKey()).has_value();
    if (name == current) {
      throw store::ConstraintError("schema \"" + std::string(name) + "\" already exists");
    }
    if (chosen) {
      throw store::InvalidArgumentError(
          "a moraine store holds exactly one DuckLake catalog; this one is served under the "
          "schema \"" +
          current + "\", so the schema \"" + std::string(name) +
          "\" cannot be created (use a separate store for another catalog)");
    }
    view_.Put(NamespaceKey(), EncodeNamespace(name));
    schema_name_ = std::string(name);
    replayable_ = false;
  }

  std::optional<TableSpec> FindTable(std::string_view name) override {
    if (const RowMapping* mapping = catalog::FindRowMapping(shape_, name)) {
      if (!FixedTablesExist() && !created_fixed_.count(std::string(name))) return std::nullopt;
      return SpecOf(mapping->table());
    }
    if (auto inlined = catalog::ParseInlinedTableName(name)) {
      auto existence = view_.Get(inlined::ExistenceKey(*inlined).Encode());
      if (!existence) return std::nullopt;
      return inlined::SpecOf(*inlined, *existence,
                             [&](const std::string& key) { return view_.Get(key); });
    }
    return std::nullopt;
  }

  void ScanInlinedBatches(std::string_view table, int64_t snapshot,
                          const InlinedBatchVisitor& visit) override {
    const auto [name, user_columns] = InlinedDataTable(table);
    if (snapshot < 0) return;
    staged_.FlushContainers();
    store::KeyRange range = inlined::RowRange(name);
    if (snapshot < INT64_MAX) range.end = inlined::BatchKey(name, snapshot + 1).Encode();
    inlined::InlinedRowBatchView batch;
    view_.Scan(range, [&](std::string_view key, std::string_view value) {
      batch.Read(value, user_columns);
      visit(inlined::BatchBeginSnapshot(key), batch);
    });
  }

  std::vector<int64_t> InlinedVersionsWithRows(int64_t table_id) override {
    RequireOpen();
    staged_.FlushContainers();
    std::vector<int64_t> versions;
    store::KeyRange range = store::PrefixRange(store::Subspace::kInlineData, Kind::kInlinedRowBatch,
                                               {static_cast<uint64_t>(table_id)});
    // From the newest version down, each seek ending below the version found.
    while (const auto key = view_.LastKeyIn(range)) {
      const auto version = static_cast<int64_t>(store::Key::Decode(*key).component(1));
      versions.push_back(version);
      range.end = inlined::BatchKey({InlinedTableName::kData, table_id, version}, 0).Encode();
    }
    return versions;
  }

  bool VisitInlinedBatchSummaries(std::string_view table, int64_t snapshot,
                                  const InlinedSummaryVisitor& visit) override {
    const auto name = InlinedDataTable(table).first;
    staged_.FlushContainers();
    if (!KeepsBatchSummaries() || view_.StagesAnyIn(inlined::RowRange(name))) return false;
    if (snapshot < 0) return true;
    // Through the page holding `snapshot`, whose later batches are left out.
    store::KeyRange range = inlined::SummaryRange(name);
    if (snapshot <= INT64_MAX - inlined::kSummaryPageSnapshots) {
      range.end = inlined::SummaryPageKey(name, snapshot + inlined::kSummaryPageSnapshots).Encode();
    }
    inlined::SummaryPage page;
    view_.Scan(range, [&](std::string_view, std::string_view value) {
      page.Read(value);
      for (size_t batch = 0; batch < page.size() && page.begin_snapshot(batch) <= snapshot;
           ++batch) {
        visit(page, batch);
      }
    });
    return true;
  }

  bool VisitDataFileSummaries(int64_t table_id, const SummaryPageFilter& may_hold,
                              const DataFileSummaryVisitor& visit) override {
    RequireOpen();
    staged_.FlushContainers();
    if (!KeepsFileSummaries() || view_.StagesAnyIn(files::CurrentDataFileRange(table_id)) ||
        view_.StagesAnyIn(files::EndedDataFileRange(table_id)) ||
        view_.StagesAnyIn(files::FileStatsRange(table_id))) {
      return false;
    }
    // A page is many small messages: parsed on an arena, freed at once.
    const auto visit_page = [&](std::string_view value) {
      google::protobuf::Arena arena;
      auto* page = google::protobuf::Arena::CreateMessage<store::v1::DataFileSummaryPage>(&arena);
      files::ReadSummaryPage(value, page);
      for (const auto& summary : page->files()) visit(summary);
    };
    if (!KeepsFileSummaryBounds()) {
      view_.Scan(files::SummaryRange(table_id),
                 [&](std::string_view, std::string_view value) { visit_page(value); });
      return true;
    }
    // The bounds first; a page only where they cannot rule it out.
    view_.Scan(
        files::SummaryBoundsRange(table_id), [&](std::string_view key, std::string_view value) {
          store::v1::DataFileSummaryBounds bounds;
          files::ReadSummaryBounds(value, &bounds);
          if (!may_hold(bounds)) return;
          const store::Key page_key = files::PageKeyOfBounds(store::Key::Decode(key));
          const auto page = view_.Get(page_key.Encode());
          if (!page) {
            throw store::CorruptionError("data file summary bounds " +
                                         store::Key::Decode(key).ToString() + " have no page");
          }
          visit_page(*page);
        });
    return true;
  }

  void ReadInlinedBatches(std::string_view table, const std::vector<int64_t>& begin_snapshots,
                          const InlinedBatchVisitor& visit) override {
    const auto [name, user_columns] = InlinedDataTable(table);
    staged_.FlushContainers();
    inlined::InlinedRowBatchView batch;
    for (const int64_t begin : begin_snapshots) {
      const auto value = view_.Get(inlined::BatchKey(name, begin).Encode());
      if (!value) continue;
      batch.Read(*value, user_columns);
      visit(begin, batch);
    }
  }

  std::optional<int64_t> MaxColumnId(int64_t table_id) override {
    return catalog::MaxColumnIdIn(view_, table_id);
  }

  std::vector<std::string> TableNames() override {
    std::vector<std::string> names;
    for (const RowMapping& mapping : catalog::RowMappings(shape_)) {
      const std::string name(mapping.table().name);
      if (FixedTablesExist() || created_fixed_.count(name)) names.push_back(name);
    }
    for (Kind kind : {Kind::kInlinedTableShape, Kind::kInlinedDeleteTable}) {
      view_.Scan(store::PrefixRange(store::Subspace::kInlineData, kind),
                 [&](std::string_view key, std::string_view) {
                   const store::Key decoded = store::Key::Decode(key);
                   const auto table = static_cast<int64_t>(decoded.component(0));
                   names.push_back(kind == Kind::kInlinedTableShape
                                       ? catalog::InlinedDataTableName(
                                             table, static_cast<int64_t>(decoded.component(1)))
                                       : catalog::InlinedDeleteTableName(table));
                 });
    }
    return names;
  }

  void CreateTable(const TableSpec& spec) override {
    RequireOpen();
    if (const RowMapping* mapping = catalog::FindRowMapping(shape_, spec.name)) {
      if (FixedTablesExist() || created_fixed_.count(spec.name)) {
        throw store::ConstraintError("table " + spec.name + " already exists");
      }
      const TableSpec expected = SpecOf(mapping->table());
      if (!SameColumns(spec, expected)) {
        throw store::InvalidArgumentError("table " + spec.name +
                                          " does not have the shape of DuckLake catalog version " +
                                          std::string(catalog::CatalogVersionName(shape_)));
      }
      created_fixed_.insert(spec.name);
      replayable_ = false;
      return;
    }
    auto inlined = catalog::ParseInlinedTableName(spec.name);
    if (!inlined) {
      throw store::InvalidArgumentError(
          "moraine serves DuckLake's catalog tables only; cannot "
          "create table " +
          spec.name);
    }
    const std::string key = inlined::ExistenceKey(*inlined).Encode();
    if (view_.Get(key)) throw store::ConstraintError("table " + spec.name + " already exists");
    view_.Put(key, inlined::ExistenceValue(*inlined, spec));
    replayable_ = false;
  }

  bool CreateChangedInlinedTable(
      const InlinedTableName& name, const std::vector<inlined::ShapeChange>& changes,
      const std::function<std::optional<std::vector<inlined::KeyedColumn>>()>& all_columns)
      override {
    RequireOpen();
    if (name.kind != InlinedTableName::kData) {
      throw store::InvalidArgumentError(catalog::FormatInlinedTableName(name) +
                                        " is not an inlined data table");
    }
    if (!inlined::StageChangedShape(view_, name, changes, all_columns)) return false;
    replayable_ = false;
    return true;
  }

  std::optional<SnapshotCounters> LatestSnapshot() override {
    // The head is rewritten by every commit to the newest snapshot id; rows
    // this transaction staged may name a newer one.
    int64_t newest = head_value_ ? static_cast<int64_t>(head_.snapshot_id()) : -1;
    if (auto inserted = staged_.max_inserted_snapshot()) newest = std::max(newest, *inserted);
    if (newest < 0) return std::nullopt;
    auto found = BaseSnapshotFromHead(newest);
    if (!found) found = SnapshotAt(newest);
    if (!found) {
      throw store::CorruptionError("the head of the moraine store names snapshot " +
                                   std::to_string(newest) + ", which the store does not hold");
    }
    return found;
  }

  void DropTable(std::string_view name) override {
    RequireOpen();
    auto inlined = catalog::ParseInlinedTableName(name);
    if (!inlined) {
      throw store::InvalidArgumentError("cannot drop " + std::string(name) +
                                        ": DuckLake's catalog tables are permanent");
    }
    const std::string key = inlined::ExistenceKey(*inlined).Encode();
    if (!view_.Get(key)) {
      throw store::NotFoundError("table " + std::string(name) + " does not exist");
    }
    inlined::StageDroppedShape(view_, *inlined);
    const auto range = inlined::RowRange(*inlined);
    staged_.DiscardBatches(range);
    std::vector<std::string> rows;
    view_.Scan(range,
               [&](std::string_view row_key, std::string_view) { rows.emplace_back(row_key); });
    for (const auto& row_key : rows) view_.Delete(row_key);
    view_.Delete(key);
    // A table created again under this name may have another shape.
    if (auto storage = storages_.find(name); storage != storages_.end()) storages_.erase(storage);
    replayable_ = false;
  }

  void ScanProjected(std::string_view table, const ScanRequest& request,
                     const std::function<void(RowHandle, const Row&)>& visit) override {
    RequireOpen();
    staged_.FlushContainers();
    StorageOf(table).Scan(request, [&](std::string_view key, Row row, uint64_t ordinal) {
      if (request.candidates && !request.candidates(row)) return;
      Emit(table, key, std::move(row), ordinal, request.handles, visit);
    });
  }

  void Insert(std::string_view table, const Row& row) override {
    RequireOpen();
    RowStorage& storage = StorageOf(table);
    RequireUnreservedOption(table, row);
    RequireHeadNotTaken();
    if (ScheduledPathStillRead(table, row)) return;
    storage.Insert(row);
    Logged(RowWrite::Kind::kInsert, table, nullptr, &row);
  }

  void Update(std::string_view table, RowHandle handle, const Row& row) override {
    RequireOpen();
    RequireHeadNotTaken();
    RowTarget& target = RequireTarget(table, handle);
    RowStorage& storage = StorageOf(table);
    RequireUnreservedOption(table, target.row);
    RequireUnreservedOption(table, row);
    storage.Update(target, row);
    Logged(RowWrite::Kind::kUpdate, table, &target.row, &row);
    target.row = row;
  }

  Row GetRow(RowHandle handle) override {
    if (handle >= targets_.size() || targets_[handle].removed) {
      throw store::NotFoundError("no row " + std::to_string(handle) + " in this transaction");
    }
    return targets_[handle].row;
  }

  void Delete(std::string_view table, RowHandle handle) override {
    RequireOpen();
    RequireHeadNotTaken();
    RowTarget& target = RequireTarget(table, handle);
    RowStorage& storage = StorageOf(table);
    RequireUnreservedOption(table, target.row);
    RequireUntagged(table, target.row);
    storage.Remove(target);
    Logged(RowWrite::Kind::kDelete, table, &target.row, nullptr);
    target.removed = true;
  }

  void Commit() override {
    RequireOpen();
    staged_.FlushContainers();
    // Finished whatever happens below; until then it still reads its own
    // snapshot, which a rebase starts from.
    struct Finish {
      bool& finished;
      ~Finish() { finished = true; }
    } finish{finished_};
    if (!view_.HasWrites() && created_fixed_.empty()) return;
    if (store_.store()->read_only()) {
      throw store::ReadOnlyError("catalog '" + store_.store()->location() +
                                 "' is attached read-only");
    }
    std::unique_lock<std::recursive_mutex> turn;
    if (rebase_allowed_ && store_.caching() && !turn_held_by_caller_) {
      turn = std::unique_lock<std::recursive_mutex>(store_.caching()->commit_turn());
    }
    auto landed = LandOrRebase();
    // The next commit may land while this one's sync runs, and joins it.
    if (turn.owns_lock()) turn.unlock();
    landed->AwaitDurable();
  }

  void AllowRebase() override { rebase_allowed_ = true; }
  void CommitTurnHeldByCaller() override { turn_held_by_caller_ = true; }
  std::optional<Rebase> rebased() const override { return rebased_; }

  // This transaction's commit as an intent another writer may land for it
  // (commit_intent.h), if a rebase could move it: nullopt otherwise.
  std::optional<CommitIntent> Intent() override {
    RequireOpen();
    if (!rebase_allowed_ || !replayable_ || !head_value_) return std::nullopt;
    const auto base = BaseSnapshot();
    if (!base || !DataCommitOf(writes_, *base, shape_)) return std::nullopt;
    return CommitIntent{util::NewUuid(), shape_, *base, head_.batch_count(), writes_};
  }

  // Stages `intent`'s writes moved onto this transaction's head and finishes
  // the transaction, as a rebase of its own writer would: how they moved,
  // or nullopt (nothing staged) when the rules refuse them.
  std::optional<ReplayedCommit> StageIntent(const CommitIntent& intent) {
    RequireOpen();
    const auto commit = DataCommitOf(intent.writes, intent.base, shape_);
    if (!commit) return std::nullopt;
    const auto move = StageMoved(intent.writes, *commit, intent.base, intent.base_batches);
    if (!move) return std::nullopt;
    ReplayedCommit replayed;
    replayed.batch = LandingBatch();
    replayed.moved = Rebase{move->from, move->to};
    return replayed;
  }

 private:
  // Lands the staged batch on the head this transaction began at, or else
  // (if it may) rebased onto the newest head; throws ConflictError if
  // neither. Not durable yet.
  std::unique_ptr<store::LandedWrite> LandOrRebase() {
    if (auto landed = Land(*this)) return landed;
    if (!rebase_allowed_ || !replayable_ || !head_value_) throw store::ConflictError(kLostRace);
    const auto base = BaseSnapshot();
    const auto rebasable = base ? DataCommitOf(writes_, *base, shape_) : std::nullopt;
    if (!rebasable) throw store::ConflictError(kLostRace);
    for (int attempt = 0; attempt < kRebaseAttempts; ++attempt) {
      StoreRowTransaction onto(store_, shape_, /*for_commit=*/true);
      const auto move = onto.StageMoved(writes_, *rebasable, *base, head_.batch_count());
      if (!move) break;
      if (auto landed = onto.Land(*this)) {
        if (!rebased_) rebased_ = Rebase{move->from, move->to};  // else another writer landed it
        return landed;
      }
    }
    throw store::ConflictError(kLostRace);
  }

  // The snapshot this transaction began at: from the head if it carries its
  // counters, else its record.
  std::optional<SnapshotCounters> BaseSnapshot() {
    const auto head_snapshot = static_cast<int64_t>(head_.snapshot_id());
    auto base = BaseSnapshotFromHead(head_snapshot);
    if (!base) base = SnapshotAt(head_snapshot);
    return base;
  }

  // Stages `writes` (a data-only `commit` staged on `base`, whose head
  // counted `base_batches`) moved onto this transaction's head, and finishes
  // it: the move, or nullopt when the head does not admit it or a row it
  // updates has changed (then what was staged is never landed).
  std::optional<SnapshotMove> StageMoved(const std::vector<RowWrite>& writes,
                                         const DataCommit& commit, const SnapshotCounters& base,
                                         uint64_t base_batches) {
    const auto head = LatestSnapshot();
    const auto shared = head ? HeadAdmitsRebase(commit, base, base_batches, *head,
                                                head_.batch_count(), ChangesAfter(base.snapshot_id))
                             : std::nullopt;
    if (!shared) return std::nullopt;
    const SnapshotMove move = MoveOnto(commit, base, *head);
    if (!Replay(writes, move, *shared, head->snapshot_id)) return std::nullopt;
    staged_.FlushContainers();
    finished_ = true;
    return move;
  }

  // Writes the staged batch if the head is still the one this transaction
  // began at; null if it is not. `writer`: the transaction whose commit this
  // is (this one, or the one a rebase moves onto this one's head). If it may
  // be rebased, the store may hand it to another writer to land
  // (store::CommitOffer, commit_intent.h): then `writer` learns where it
  // landed, as after a rebase.
  std::unique_ptr<store::LandedWrite> Land(StoreRowTransaction& writer) {
    const store::WriteBatch batch = LandingBatch();
    if (!writer.rebase_allowed_ || !writer.replayable_) {
      return store_.store()->LandIfHeadUnchanged(HeadKey(), head_value_, batch);
    }
    std::string offered_id;
    store::CommitOffer offer;
    offer.intent = [&]() -> std::optional<std::string> {
      auto intent = writer.Intent();
      if (!intent) return std::nullopt;
      offered_id = intent->id;
      return EncodeCommitIntent(*intent);
    };
    auto landed = store_.store()->LandOffered(HeadKey(), head_value_, batch, offer);
    if (offer.outcome) {
      const CommitOutcome outcome = DecodeCommitOutcome(*offer.outcome);
      if (outcome.intent_id != offered_id) {
        throw store::CorruptionError("the outcome of commit intent " + offered_id +
                                     " names another intent, " + outcome.intent_id);
      }
      writer.rebased_ =
          Rebase{outcome.staged_snapshot, outcome.landed_snapshot, !offer.landed_in_own_turn};
    }
    return landed;
  }

  // Every write this transaction lands, the new head last.
  store::WriteBatch LandingBatch() {
    // The summaries of the inlined batches and data files this commit writes
    // land with them, where the lake keeps them
    // (commit/rows/inlined_batch_summary.h, commit/rows/data_file_summary.h).
    const KeptSummaries summaries{KeepsBatchSummaries(), KeepsFileSummaries(),
                                  KeepsFileSummaries() && KeepsFileSummaryBounds()};
    if (summaries.inlined_batches) inlined::UpdateSummaryPages(view_);
    if (summaries.data_files) files::UpdateFileSummaryPages(view_, summaries.data_file_bounds);
    store::WriteBatch batch;
    view_.AppendTo(&batch);
    int64_t head_snapshot = head_value_ ? static_cast<int64_t>(head_.snapshot_id()) : -1;
    if (auto inserted = staged_.max_inserted_snapshot()) {
      head_snapshot = std::max(head_snapshot, *inserted);
    }
    if (!head_value_) {
      if (head_snapshot < 0) {
        throw store::InvalidArgumentError(
            "initializing a DuckLake catalog must insert its first snapshot");
      }
      batch.Put(FormatKey(), EncodeFormat());
    }
    const auto counters = NewestCounters(head_snapshot);
    batch.Put(HeadKey(),
              EncodeHead(head_snapshot, head_.batch_count() + 1, counters ? &*counters : nullptr,
                         NewInlinedBatchesThrough(), summaries));
    return batch;
  }

  // The inlined data table `table` this transaction serves, and its user
  // column count; throws store::NotFoundError for any other.
  std::pair<InlinedTableName, size_t> InlinedDataTable(std::string_view table) {
    RequireOpen();
    const auto name = catalog::ParseInlinedTableName(table);
    const auto shape = name && name->kind == InlinedTableName::kData
                           ? view_.Get(inlined::ExistenceKey(*name).Encode())
                           : std::nullopt;
    if (!shape) throw store::NotFoundError("no inlined data table " + std::string(table));
    return {*name, inlined::UserColumnCount(*name, *shape)};
  }

  // Whether the lake this transaction read keeps a summary of every inlined
  // batch: a new lake does from its first commit; a lake does as long as
  // every commit since kept them (records.proto).
  bool KeepsBatchSummaries() const {
    return !head_value_ || (head_.has_inlined_batch_summaries() && head_.inlined_batch_summaries());
  }
  // Whether the lake this transaction read keeps a summary of every data
  // file row, as KeepsBatchSummaries.
  bool KeepsFileSummaries() const { return !head_value_ || head_.data_file_summaries(); }
  // Whether it keeps the bounds of every data file summary page, as
  // KeepsBatchSummaries.
  bool KeepsFileSummaryBounds() const { return !head_value_ || head_.data_file_summary_bounds(); }

  // The bound on inlined batches' begin snapshots the head this transaction
  // lands carries: the base head's, raised past every batch it stages;
  // nullopt while the base head's is unknown.
  std::optional<int64_t> NewInlinedBatchesThrough() const {
    auto through = staged_.inlined_batches_through();
    if (!through) return std::nullopt;
    view_.VisitStagedPuts(store::PrefixRange(store::Subspace::kInlineData, Kind::kInlinedRowBatch),
                          [&](std::string_view key) {
                            through = std::max(*through, inlined::BatchBeginSnapshot(key));
                          });
    return through;
  }

  // The counters the base head carries, if it carries them for `snapshot_id`.
  const store::v1::HeadCounters* HeadCarries(int64_t snapshot_id) const {
    if (!head_value_ || !head_.has_newest_counters() ||
        snapshot_id != static_cast<int64_t>(head_.snapshot_id())) {
      return nullptr;
    }
    return &head_.newest_counters();
  }

  // `snapshot_id`'s counters as the head carries them, unless this
  // transaction has staged a change to its record; nullopt otherwise (then
  // the record is read).
  std::optional<SnapshotCounters> BaseSnapshotFromHead(int64_t snapshot_id) const {
    const auto* counters = HeadCarries(snapshot_id);
    if (!counters || view_.Stages(SnapshotRecordKey(snapshot_id))) return std::nullopt;
    return SnapshotCounters{snapshot_id, counters->schema_version(), counters->next_catalog_id(),
                            counters->next_file_id()};
  }

  // The counters the head this transaction lands carries for `snapshot_id`:
  // its ducklake_snapshot row if this transaction staged it (read from the
  // staged writes, no round trip), else the base head's if it names the
  // same snapshot; nullopt if neither holds them.
  std::optional<store::v1::HeadCounters> NewestCounters(int64_t snapshot_id) const {
    if (snapshot_id < 0) return std::nullopt;
    const std::string key = SnapshotRecordKey(snapshot_id);
    if (view_.Stages(key)) {
      const auto value = view_.Get(key);
      if (!value) return std::nullopt;
      store::v1::SnapshotRecord record;
      store::UnframeValue(Kind::kSnapshot, *value, &record);
      if (record.snapshot_row_absent()) return std::nullopt;
      store::v1::HeadCounters counters;
      counters.set_schema_version(record.schema_version());
      counters.set_next_catalog_id(record.next_catalog_id());
      counters.set_next_file_id(record.next_file_id());
      return counters;
    }
    if (const auto* carried = HeadCarries(snapshot_id)) return *carried;
    return std::nullopt;
  }

  // Keeps a write for a replay, if this transaction may still be rebased;
  // copies nothing otherwise (every write of every transaction passes here).
  void Logged(RowWrite::Kind kind, std::string_view table, const Row* before, const Row* after) {
    if (!rebase_allowed_) replayable_ = false;
    if (!replayable_) return;
    writes_.push_back({kind, std::string(table), before ? *before : Row{}, after ? *after : Row{}});
  }

  // Applies `writes` (another transaction's) moved by `move`: whether every
  // one applied, each update and delete to exactly the row it found then,
  // but the stats rows of the `shared` tables (both inserted into), which
  // are re-staged on the head's (`head_snapshot`), and their inlined rows,
  // which take row ids after the head's.
  bool Replay(const std::vector<RowWrite>& writes, SnapshotMove move,
              const std::set<int64_t>& shared, int64_t head_snapshot) {
    try {
      const auto shared_stats = [&](const RowWrite& write) -> std::optional<int64_t> {
        if (write.kind != RowWrite::Kind::kUpdate || !IsTableStats(write.table))
          return std::nullopt;
        const auto table = IntCellNamed(write.table, write.before, "table_id", shape_);
        return table && shared.count(*table) ? table : std::nullopt;
      };
      // The head's stats rows first: they say where the shared tables' row ids go.
      std::vector<std::optional<FoundRow>> head_stats(writes.size());
      for (size_t i = 0; i < writes.size(); ++i) {
        const auto table = shared_stats(writes[i]);
        if (!table) continue;
        head_stats[i] = StatsRowAtHead(writes[i].table, writes[i].before);
        if (!head_stats[i]) return false;
        if (writes[i].table != "ducklake_table_stats") continue;
        const auto head_next =
            IntCellNamed(writes[i].table, head_stats[i]->row, "next_row_id", shape_);
        const auto base_next =
            IntCellNamed(writes[i].table, writes[i].before, "next_row_id", shape_);
        if (!head_next || !base_next || *head_next < *base_next) return false;
        move.row_ids[*table] = *head_next - *base_next;
      }
      // A shared table whose stats the commit did not update (it initialized
      // them, say) gives its rows no place after the head's: not rebased.
      for (int64_t table : shared) {
        if (!move.row_ids.count(table)) return false;
      }
      for (size_t i = 0; i < writes.size(); ++i) {
        const RowWrite& write = writes[i];
        if (write.kind == RowWrite::Kind::kInsert) {
          Insert(write.table, WithSnapshotMoved(write.table, write.after, move, shape_));
          continue;
        }
        if (const auto table = shared_stats(write)) {
          const auto column = IntCellNamed(write.table, write.before, "column_id", shape_);
          const std::string type = column ? ColumnTypeAt(head_snapshot, *table, *column) : "";
          const auto restaged =
              StatsOnHead(write.table, write.before, write.after, head_stats[i]->row, type, shape_);
          if (!restaged) return false;
          Update(write.table, head_stats[i]->handle, *restaged);
          continue;
        }
        const auto handle =
            FindRow(write.table, WithSnapshotMoved(write.table, write.before, move, shape_));
        if (!handle) return false;
        if (write.kind == RowWrite::Kind::kUpdate) {
          Update(write.table, *handle, WithSnapshotMoved(write.table, write.after, move, shape_));
        } else {
          Delete(write.table, *handle);
        }
      }
    } catch (const store::ConstraintError&) {
      return false;
    } catch (const store::ConflictError&) {
      return false;
    } catch (const store::NotFoundError&) {
      return false;
    }
    return true;
  }

  struct FoundRow {
    RowHandle handle;
    Row row;
  };
  // The one stats row of `table` this transaction sees with the keys of
  // `row` (table_id, and column_id for a column's stats).
  std::optional<FoundRow> StatsRowAtHead(std::string_view table, const Row& row) {
    const auto table_id = IntCellNamed(table, row, "table_id", shape_);
    const auto column_id = IntCellNamed(table, row, "column_id", shape_);
    if (!table_id) return std::nullopt;
    std::optional<FoundRow> found;
    int matches = 0;
    ScanProjected(
        table,
        {{ColumnBound{.column = 0, .lower = *table_id, .upper = *table_id}},
         std::nullopt,
         true,
         nullptr},
        [&](RowHandle handle, const Row& candidate) {
          if (IntCellNamed(table, candidate, "table_id", shape_) != table_id) return;
          if (column_id && IntCellNamed(table, candidate, "column_id", shape_) != column_id) {
            return;
          }
          found = FoundRow{handle, candidate};
          ++matches;
        });
    if (matches != 1) return std::nullopt;
    return found;
  }

  // The DuckLake type of column `column_id` of table `table_id` at the head
  // (`snapshot`), or "" if it has none there.
  std::string ColumnTypeAt(int64_t snapshot, int64_t table_id, int64_t column_id) {
    std::string type;
    TableRows(*this, "ducklake_column", {"table_id", "column_id", "column_type"})
        .ForEachLive(
            snapshot, /*at_head=*/true,
            [&](const std::vector<size_t>& at, const Row& row) {
              const auto* id = std::get_if<int64_t>(&row[at[1]]);
              const auto* text = std::get_if<std::string>(&row[at[2]]);
              if (id && *id == column_id && text) type = *text;
            },
            table_id);
    return type;
  }

  // A handle of a row of `table` equal to `row`, if this transaction sees one.
  std::optional<RowHandle> FindRow(std::string_view table, const Row& row) {
    ScanRequest request;
    for (size_t column = 0; column < row.size(); ++column) {
      if (const auto* value = std::get_if<int64_t>(&row[column])) {
        request.bounds.push_back({column, *value, *value});
      }
    }
    std::optional<RowHandle> found;
    ScanProjected(table, request, [&](RowHandle handle, const Row& candidate) {
      if (!found && candidate == row) found = handle;
    });
    return found;
  }

 public:
  void Rollback() override { finished_ = true; }

  std::optional<std::string> RecordedCatalogVersion() override {
    const auto* options = staged_.Open(OptionsMapping(), GlobalOptionsKey()).record.get();
    if (!options) return std::nullopt;
    for (const auto& entry : static_cast<const store::v1::OptionRecord&>(*options).entries()) {
      if (entry.key() == kVersionOption) return entry.value();
    }
    return std::nullopt;
  }

  void RecordCatalogVersion(std::string_view label) override {
    RequireOpen();
    if (!FixedTablesExist()) {
      throw store::InvalidArgumentError(
          "the store holds no DuckLake catalog yet, so it has no catalog version to record");
    }
    OpenContainer& open = staged_.Open(OptionsMapping(), GlobalOptionsKey());
    if (!open.record) open.record = OptionsMapping().NewRecord();
    auto& options = static_cast<store::v1::OptionRecord&>(*open.record);
    store::v1::OptionEntry* version = nullptr;
    for (auto& entry : *options.mutable_entries()) {
      if (entry.key() == kVersionOption) version = &entry;
    }
    if (!version) {
      version = options.add_entries();
      version->set_key(std::string(kVersionOption));
      version->set_write_ordinal(staged_.NextWriteOrdinal());
    }
    version->set_value(std::string(label));
    open.dirty = true;
    replayable_ = false;
  }

  std::vector<tags::ProtectedTag> ProtectedTags() override {
    std::vector<tags::ProtectedTag> found;
    view_.Scan(tags::ProtectedTagRange(), [&](std::string_view, std::string_view value) {
      found.push_back(tags::DecodeProtectedTag(value));
    });
    return found;
  }

  uint64_t BaseBatchCount() const override { return head_.batch_count(); }

  std::vector<int64_t> FilesScheduledAfterBatch(uint64_t batch) override {
    staged_.FlushContainers();
    std::vector<int64_t> ids;
    view_.Scan(store::PrefixRange(store::Subspace::kCurrent, Kind::kFileScheduledForDeletion),
               [&](std::string_view, std::string_view value) {
                 store::v1::FileScheduledForDeletionRecord record;
                 store::UnframeValue(Kind::kFileScheduledForDeletion, value, &record);
                 if ((record.write_ordinal() >> 32) > batch) ids.push_back(record.data_file_id());
               });
    return ids;
  }

  std::vector<revert::RevertMark> RevertMarks() override {
    std::vector<revert::RevertMark> found;
    view_.Scan(revert::RevertMarkRange(), [&](std::string_view, std::string_view value) {
      found.push_back(revert::DecodeRevertMark(value));
    });
    return found;
  }

  void StageRevertMark(const revert::RevertMark& mark) override {
    RequireOpen();
    if (!FixedTablesExist()) {
      throw store::InvalidArgumentError(
          "the store holds no DuckLake catalog yet, so it has nothing to revert");
    }
    view_.Put(revert::RevertMarkKey(mark.snapshot_id), revert::EncodeRevertMark(mark));
    same_path_files_.reset();
    replayable_ = false;
  }

  void StageProtectedTag(const tags::ProtectedTag& tag) override {
    RequireOpen();
    if (!FixedTablesExist()) {
      throw store::InvalidArgumentError(
          "the store holds no DuckLake catalog yet, so it has no snapshot to tag");
    }
    view_.Put(tags::ProtectedTagKey(tag.tag_id), tags::EncodeProtectedTag(tag));
    tagged_snapshots_.reset();
    replayable_ = false;
  }

 private:
  // The snapshot rows of tagged snapshots are never deleted (see Delete).
  void RequireUntagged(std::string_view table, const Row& row) {
    if (table != "ducklake_snapshot") return;
    const auto snapshot = IntCellNamed(table, row, "snapshot_id", shape_);
    if (!snapshot) return;
    if (!tagged_snapshots_) {
      tagged_snapshots_.emplace();
      for (auto& tag : ProtectedTags()) {
        if (!tag.ended()) tagged_snapshots_->emplace(tag.snapshot_id, std::move(tag.name));
      }
    }
    const auto tagged = tagged_snapshots_->find(*snapshot);
    if (tagged == tagged_snapshots_->end()) return;
    throw store::ConstraintError("snapshot " + std::to_string(*snapshot) +
                                 " is protected by the tag '" + tagged->second +
                                 "' and cannot be expired; nothing was expired. Remove the tag "
                                 "with moraine_untag first if it is no longer needed");
  }

  // Whether `row`, about to be inserted into `table`, schedules for deletion
  // a file whose path another row this transaction sees still reads: a
  // revert gave the path a second id (revert_mark.h), and every id linked to
  // this one, through any number of reverts in either direction, shares it.
  // Lakes never reverted read one empty range, once per transaction.
  bool ScheduledPathStillRead(std::string_view table, const Row& row) {
    if (table != "ducklake_files_scheduled_for_deletion") return false;
    if (!same_path_files_) {
      same_path_files_.emplace();
      for (const auto& mark : RevertMarks()) {
        for (const auto& file : mark.revived_files) {
          same_path_files_->emplace(file.old_file_id, file);
          revert::RevivedFile back = file;
          std::swap(back.old_file_id, back.new_file_id);
          same_path_files_->emplace(file.new_file_id, back);
        }
      }
    }
    if (same_path_files_->empty()) return false;
    const auto scheduled = IntCellNamed(table, row, "data_file_id", shape_);
    if (!scheduled) return false;
    std::set<int64_t> seen{*scheduled};
    std::vector<int64_t> pending{*scheduled};
    while (!pending.empty()) {
      const int64_t id = pending.back();
      pending.pop_back();
      const auto [first, last] = same_path_files_->equal_range(id);
      for (auto link = first; link != last; ++link) {
        const revert::RevivedFile& file = link->second;
        if (!seen.insert(file.new_file_id).second) continue;
        if (FileRowExists(file.delete_file ? "ducklake_delete_file" : "ducklake_data_file",
                          file.table_id, file.new_file_id)) {
          return true;
        }
        pending.push_back(file.new_file_id);
      }
    }
    return false;
  }

  // Whether this transaction sees a row of file table `table` (data or
  // delete files, keyed by table_id then file id) with that table and id.
  bool FileRowExists(std::string_view table, int64_t table_id, int64_t file_id) {
    const std::string_view id_column =
        table == "ducklake_data_file" ? "data_file_id" : "delete_file_id";
    const auto spec = FindTable(table);
    size_t table_at = 0, id_at = 0;
    for (size_t i = 0; i < spec->columns.size(); ++i) {
      if (spec->columns[i].name == "table_id") table_at = i;
      if (spec->columns[i].name == id_column) id_at = i;
    }
    bool found = false;
    ScanProjected(
        table,
        {{ColumnBound{.column = table_at, .lower = table_id, .upper = table_id},
          ColumnBound{.column = id_at, .lower = file_id, .upper = file_id}},
         std::vector<size_t>{table_at, id_at},
         false,
         nullptr},
        [&](RowHandle, const Row& candidate) {
          if (candidate[table_at] == Cell{table_id} && candidate[id_at] == Cell{file_id}) {
            found = true;
          }
        });
    return found;
  }

  // Hands the row a scan found to `visit`, with a handle if the scan asked for them.
  void Emit(std::string_view table, std::string_view key, Row row, uint64_t ordinal, bool handles,
            const std::function<void(RowHandle, const Row&)>& visit) {
    if (!handles) {
      visit(kNoRowHandle, row);
      return;
    }
    const RowHandle handle = targets_.size();
    targets_.push_back({std::string(table), std::string(key), std::move(row), ordinal});
    visit(handle, targets_.back().row);
  }

  // The storage of `table`, which must exist in this transaction. Throws
  // store::NotFoundError otherwise.
  RowStorage& StorageOf(std::string_view table) {
    // An inlined table's storage is kept only while the table exists in this
    // transaction's view (DropTable forgets it), so its existence is read once,
    // not on every row a DELETE ends.
    auto found = storages_.find(table);
    if (found == storages_.end()) {
      const RowMapping* mapping = FixedMapping(table);
      std::optional<InlinedTableName> inlined;
      if (!mapping) inlined = RequireInlined(table);
      std::unique_ptr<RowStorage> storage;
      if (mapping) {
        storage = FixedRowStorage::For(*mapping, staged_);
      } else {
        storage = std::make_unique<InlinedRowStorage>(staged_, *inlined, std::string(table));
      }
      found = storages_.emplace(std::string(table), std::move(storage)).first;
    }
    return *found->second;
  }

  const RowMapping& OptionsMapping() const {
    return *catalog::FindRowMapping(shape_, "ducklake_metadata");
  }
  static std::string GlobalOptionsKey() {
    return store::Key(store::Subspace::kCurrent, Kind::kOption,
                      {static_cast<uint64_t>(store::OptionScope::kGlobal), 0})
        .Encode();
  }

  // The catalog version (version_option.h) is reserved from row writes once
  // the catalog exists.
  void RequireUnreservedOption(std::string_view table, const Row& row) const {
    if (!FixedTablesExist()) return;
    if (IsVersionOption(table, row)) {
      throw store::ConstraintError(
          "the catalog version is reserved: it is set when the catalog is created and moved "
          "only by moraine_raise_catalog_version");
    }
  }

  // A store DuckLake has initialized (or the verb path created) has a head.
  bool FixedTablesExist() const { return head_value_.has_value(); }

  // If this process has already landed a commit on this transaction's head,
  // this transaction's commit cannot land (any move of the head conflicts):
  // say so at its first write, before DuckLake stages a batch that would be
  // thrown away, so that its retry starts at once.
  void RequireHeadNotTaken() const {
    // A transaction that may rebase goes on to its commit, which may land.
    if (rebase_allowed_) return;
    // head_ is head_value_ decoded; no head decodes as no batches.
    if (store_.caching() && store_.caching()->LandedOn(head_.batch_count())) {
      throw store::ConflictError(kLostRace);
    }
  }

  void RequireOpen() const {
    if (finished_) throw store::InvalidArgumentError("the transaction has already finished");
  }

  const RowMapping* FixedMapping(std::string_view table) const {
    const RowMapping* mapping = catalog::FindRowMapping(shape_, table);
    if (mapping && !FixedTablesExist() && !created_fixed_.count(std::string(table))) {
      throw store::NotFoundError("table " + std::string(table) + " does not exist");
    }
    return mapping;
  }

  InlinedTableName RequireInlined(std::string_view table) {
    auto name = catalog::ParseInlinedTableName(table);
    if (!name || !view_.Get(inlined::ExistenceKey(*name).Encode())) {
      throw store::NotFoundError("table " + std::string(table) + " does not exist");
    }
    return *name;
  }

  RowTarget& RequireTarget(std::string_view table, RowHandle handle) {
    if (handle >= targets_.size() || targets_[handle].table != table || targets_[handle].removed) {
      throw store::NotFoundError("no row " + std::to_string(handle) + " of " + std::string(table) +
                                 " in this transaction");
    }
    return targets_[handle];
  }

  const CommitStore store_;  // the cache and commit turn too, when the registry opened it
  catalog::CatalogVersion shape_;
  StagedView view_;
  std::optional<std::string> head_value_;  // nullopt: DuckLake has not initialized the store
  store::v1::HeadRecord head_;
  StagedRecords staged_;                 // over view_
  std::set<std::string> created_fixed_;  // fixed tables created while initializing
  std::vector<RowTarget> targets_;       // indexed by RowHandle
  std::map<std::string, std::unique_ptr<RowStorage>, std::less<>> storages_;  // by table name
  std::optional<std::string> schema_name_;                                    // cached SchemaName()
  // Snapshot id -> name of an unended tag holding it, read at the first
  // snapshot row deleted and dropped when a tag is staged.
  std::optional<std::multimap<int64_t, std::string>> tagged_snapshots_;
  // File id -> each file a revert linked it to (both ways: old to new, new
  // to old), which reads the same path; read at the first scheduled deletion
  // and dropped when a mark is staged.
  std::optional<std::multimap<int64_t, revert::RevivedFile>> same_path_files_;
  bool finished_ = false;
  bool rebase_allowed_ = false;
  bool turn_held_by_caller_ = false;  // CommitTurnHeldByCaller
  // Every write went through Insert, Update or Delete after AllowRebase, and
  // is in writes_.
  bool replayable_ = true;
  std::vector<RowWrite> writes_;
  std::optional<Rebase> rebased_;
};

}  // namespace

std::unique_ptr<RowTransaction> BeginRowTransaction(const CommitStore& store,
                                                    catalog::CatalogVersion shape, BeginAt at) {
  return std::make_unique<StoreRowTransaction>(store, shape, at == BeginAt::kLandedHead);
}

std::optional<ReplayedCommit> ReplayCommitIntent(std::unique_ptr<store::KvSnapshot> view,
                                                 const CommitIntent& intent) {
  // It reads `view` and lands nothing: no store of its own.
  StoreRowTransaction onto(CommitStore(std::shared_ptr<store::KvStore>()), intent.shape,
                           std::move(view));
  return onto.StageIntent(intent);
}

}  // namespace moraine::commit
