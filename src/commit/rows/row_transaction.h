// The staged-row path (RFC 0006): DuckLake speaks SQL to its catalog, and the
// DuckDB shim turns that SQL's scans and INSERT/UPDATE/DELETE into calls on a
// RowTransaction. Rows of every `ducklake_*` table (and of the per-table
// inlined families) are mapped onto the store's records and keys here, so the
// shim holds no catalog knowledge.
//
// One convention is interpreted, everything else is stored verbatim: an
// UPDATE that sets end_snapshot on a live version ends it, moving the record
// from `current` to `history` (keyed with its end snapshot). Ids, counters and
// schema versions are DuckLake's own.
//
// A transaction reads one consistent store snapshot plus its own staged
// writes (DuckLake re-reads what it just wrote, e.g. during expiry), and
// lands everything as exactly one atomic batch at Commit, conditional on the
// head it began at. A lost race throws store::ConflictError whose message
// contains "conflict", which is what makes DuckLake retry.
//
// Thread-safety: a RowTransaction is not thread-safe; use it from one thread
// at a time (the shim's MoraineTransaction holds a lock around every call).
// Any number of transactions, on any threads, may be open on one store at
// once: each reads its own snapshot, and their commits race on the head.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "catalog/catalog_version.h"
#include "catalog/ducklake_tables.h"
#include "catalog/row.h"
#include "commit/lake/commit_store.h"
#include "commit/revert/revert_mark.h"
#include "commit/rows/inlined_row_batch.h"
#include "commit/rows/shape_change.h"
#include "commit/tags/protected_tag.h"
#include "store/kv_store.h"
#include "store/records.pb.h"

namespace moraine::commit {

namespace inlined {
class SummaryPage;
}  // namespace inlined

struct CommitIntent;  // commit_intent.h

using catalog::Cell;
using catalog::OpaqueValue;
using catalog::Row;

// A column of a table as the shim must declare it to DuckDB. `type` is a SQL
// type name ("BIGINT", "VARCHAR", "BOOLEAN", "UUID", "TIMESTAMP WITH TIME ZONE",
// or for inlined user columns whatever DuckDB type DuckLake declared).
struct ColumnSpec {
  std::string name;
  std::string type;
  bool nullable = true;
  bool operator==(const ColumnSpec&) const = default;
};

struct TableSpec {
  std::string name;
  std::vector<ColumnSpec> columns;
  std::vector<std::string> primary_key;
};

// An inclusive range on one BIGINT column, used to narrow a scan. A scan may
// return rows outside the bounds; the caller applies its filters exactly.
// `is_null`: the column must be NULL (an IS NULL filter); on a versioned
// table's end_snapshot that confines the scan to live versions.
struct ColumnBound {
  size_t column = 0;
  std::optional<int64_t> lower;
  std::optional<int64_t> upper;
  bool is_null = false;
};

// Identifies a row within one transaction, from a scan to an update/delete.
using RowHandle = uint64_t;
// The handle of a row visited by a scan that asked for none.
inline constexpr RowHandle kNoRowHandle = UINT64_MAX;

// What a scan must deliver, so it does no work nobody reads.
struct ScanRequest {
  std::vector<ColumnBound> bounds;
  // The columns the caller reads; the others may be NULL in visited rows.
  // nullopt: every column. A projection of key columns only is served from
  // the keys, without decoding values.
  std::optional<std::vector<size_t>> columns;
  // Whether visited rows need handles (to update or delete them). Without,
  // the transaction keeps nothing per visited row.
  bool handles = true;
  // When set, only the rows it accepts are visited (and given handles): a
  // caller that updates a few rows of a large table keeps nothing for the
  // others. It sees each row as the visitor would.
  std::function<bool(const Row&)> candidates;
};

// The counters DuckLake keeps per snapshot (a ducklake_snapshot row without
// its time): what a DuckLake transaction pins when it begins.
struct SnapshotCounters {
  int64_t snapshot_id = 0;
  int64_t schema_version = 0;
  int64_t next_catalog_id = 0;
  int64_t next_file_id = 0;
  bool operator==(const SnapshotCounters&) const = default;
};

// A table's ducklake_table_stats row joined with its ducklake_table_column_stats
// rows: what DuckLake reads before a commit to the table. An unset optional is
// a NULL cell.
struct ColumnStats {
  int64_t column_id = 0;
  std::optional<bool> contains_null;
  std::optional<bool> contains_nan;
  std::optional<std::string> min_value;
  std::optional<std::string> max_value;
  std::optional<std::string> extra_stats;
  bool operator==(const ColumnStats&) const = default;
};
struct TableStats {
  int64_t table_id = 0;
  int64_t record_count = 0;
  int64_t next_row_id = 0;
  int64_t file_size_bytes = 0;
  std::vector<ColumnStats> columns;  // by column_id
  bool operator==(const TableStats&) const = default;
};

// The schema a catalog's tables are served under unless it was created under
// another name.
inline constexpr std::string_view kDefaultSchemaName = "main";

class RowTransaction {
 public:
  virtual ~RowTransaction() = default;

  // --- The schema ---
  // A store holds exactly one catalog, served under one schema name: the
  // default, or the name given to CreateSchema before the catalog was
  // initialized (DuckLake's METADATA_SCHEMA). That name is kept in the store.
  virtual std::string SchemaName() = 0;
  // Names the schema of a catalog that does not exist yet; the name lands
  // with the commit that initializes the catalog. Throws store::ConstraintError
  // if the schema already exists, store::InvalidArgumentError if the store
  // already serves its catalog under another name.
  virtual void CreateSchema(std::string_view name) = 0;

  // --- Tables ---
  // The table of that name as it exists in this transaction: one of the
  // fixed tables of the transaction's catalog shape (28 at 1.0, 29 at 1.1),
  // or an inlined data/delete table once created. nullopt if
  // absent. In a store DuckLake has not initialized yet (no head), every
  // table is absent: DuckLake's probe then fails with a catalog error and it
  // initializes the lake itself.
  virtual std::optional<TableSpec> FindTable(std::string_view name) = 0;
  virtual std::vector<std::string> TableNames() = 0;
  // Creates a table: one of the fixed tables while the store is being
  // initialized (its shape must be exactly the transaction's shape), or an
  // inlined data or delete table. Throws store::ConstraintError if it exists
  // and store::InvalidArgumentError for any other name or a wrong shape.
  virtual void CreateTable(const TableSpec& table) = 0;
  // Drops an inlined table and its rows. Throws store::NotFoundError if absent.
  virtual void DropTable(std::string_view name) = 0;
  // Creates inlined data table `name` for a schema change of its table that
  // touched the top-level columns `changes` names: its shape a delta of what
  // changed where the table's newest shape allows, else the columns
  // `all_columns` gives (inlined::StageChangedShape). Returns false, creating
  // nothing, when `all_columns` gives nullopt. Call it before inserting the
  // change's ducklake_schema_versions row. Throws store::ConstraintError if
  // the table exists.
  virtual bool CreateChangedInlinedTable(
      const catalog::InlinedTableName& name, const std::vector<inlined::ShapeChange>& changes,
      const std::function<std::optional<std::vector<inlined::KeyedColumn>>()>& all_columns) = 0;

  // --- Rows ---
  // Visits the rows of `table` (current and ended versions alike), narrowed
  // by `bounds` where the table's keys allow it. Staged writes are visible.
  // Rows come in the order they were first written (an update keeps a row's
  // place), as a DuckDB table returns them, for every table whose key order
  // can differ from that (records.proto, "Write ordinals"); rows written
  // without an ordinal come first, in key order.
  void Scan(std::string_view table, const std::vector<ColumnBound>& bounds,
            const std::function<void(RowHandle, const Row&)>& visit) {
    ScanProjected(table, {bounds, std::nullopt, true, nullptr}, visit);
  }
  // The same rows, with only what `request` asks for filled in.
  virtual void ScanProjected(std::string_view table, const ScanRequest& request,
                             const std::function<void(RowHandle, const Row&)>& visit) = 0;
  // Throws store::ConstraintError for a duplicate primary key (or duplicate
  // identity), store::InvalidArgumentError for a row of the wrong shape.
  // A ducklake_files_scheduled_for_deletion row is not written while a file
  // row a revert linked to its id (revert_mark.h: the same path under another
  // id, through any number of reverts) remains: the path is still read, and
  // DuckLake's expiry of the other row must not schedule it.
  virtual void Insert(std::string_view table, const Row& row) = 0;
  // Replaces the row `handle` (from a Scan of this transaction) with `row`.
  virtual void Update(std::string_view table, RowHandle handle, const Row& row) = 0;
  // The row `handle` names, as this transaction sees it now.
  virtual Row GetRow(RowHandle handle) = 0;
  // Throws store::ConstraintError, naming the tag, for the ducklake_snapshot
  // row of a snapshot an unended protected tag holds: no DuckLake path
  // (expiry, with the native manager or without) deletes a tagged snapshot.
  virtual void Delete(std::string_view table, RowHandle handle) = 0;

  // The newest snapshot this transaction sees, staged rows included: the row
  // DuckLake's `MAX(snapshot_id)` probe finds, read in O(1) from the head
  // instead of over every snapshot. nullopt while DuckLake has not
  // initialized the store. Throws store::CorruptionError if the head names a
  // snapshot the store does not hold.
  virtual std::optional<SnapshotCounters> LatestSnapshot() = 0;
  // The snapshot `snapshot_id` (DuckLake's AT (VERSION => n)), or nullopt if
  // this transaction sees no such snapshot (never taken, or expired).
  std::optional<SnapshotCounters> SnapshotAt(int64_t snapshot_id);

  // The stats of table `table_id` as this transaction sees them, or nullopt
  // when it has no ducklake_table_stats row with a record count and a size
  // (DuckLake's own query skips such a row too).
  std::optional<TableStats> GlobalTableStats(int64_t table_id);
  // What DuckLake reads to re-check a commit that lost its race: the stats
  // of every table (as GlobalTableStats gives each), by table_id.
  std::vector<TableStats> AllTableStats();
  // The changes_made text of every snapshot after `snapshot_id`, in snapshot
  // order (NULL texts left out, as DuckLake's STRING_AGG does).
  std::vector<std::string> ChangesAfter(int64_t snapshot_id);
  // The largest column_id any version of a column of `table_id` ever had
  // (dropped and renamed versions included), nullopt when the table has no
  // column rows: one seek from the end of its current keys and one of its
  // history keys, whatever the number of ended versions.
  virtual std::optional<int64_t> MaxColumnId(int64_t table_id) = 0;
  // The rows DuckLake counts for `table_id` in its data files at `snapshot`
  // (its GetNetDataFileRowCount): the record counts of the data files live
  // then, less the delete counts of the delete files live then on data files
  // live then, less the rows of `inlined_deletions` (the table's inlined
  // deletion table, if it has one) on those data files that were deleted by
  // then. `at_head`: `snapshot` is the newest and this transaction wrote
  // nothing, so live rows are the unended ones. May be negative, as
  // DuckLake's own sum may.
  int64_t NetDataFileRowCount(int64_t table_id, int64_t snapshot, bool at_head,
                              std::optional<std::string_view> inlined_deletions);
  // The rows of inlined data table `table` live at `snapshot` (DuckLake's
  // GetNetInlinedRowCount). Throws store::NotFoundError for a table the
  // transaction does not serve.
  int64_t LiveInlinedRowCount(std::string_view table, int64_t snapshot);
  // The row batches of inlined data table `table` (commit/rows/inlined_row_batch.h)
  // whose rows began at or before `snapshot`, in begin_snapshot order, staged
  // writes visible: visit(begin_snapshot, batch), the batch valid for the
  // call. Rows of a batch may have ended by `snapshot`. Throws
  // store::NotFoundError for a table the transaction does not serve.
  using InlinedBatchVisitor =
      std::function<void(int64_t begin_snapshot, const inlined::InlinedRowBatchView& batch)>;
  virtual void ScanInlinedBatches(std::string_view table, int64_t snapshot,
                                  const InlinedBatchVisitor& visit) = 0;
  // Visits the summaries (commit/rows/inlined_batch_summary.h) of the
  // batches ScanInlinedBatches would visit, in the same order: visit(page,
  // batch), the page valid for the call. Returns false, visiting nothing,
  // unless the lake keeps one for every batch (its head says so) and this
  // transaction stages no batch of `table`: then the batches are to be read.
  // Throws what ScanInlinedBatches throws.
  using InlinedSummaryVisitor = std::function<void(const inlined::SummaryPage& page, size_t batch)>;
  virtual bool VisitInlinedBatchSummaries(std::string_view table, int64_t snapshot,
                                          const InlinedSummaryVisitor& visit) = 0;
  // The schema versions of table `table_id`'s inlined data tables that hold
  // a row batch, staged writes visible, in descending order: one seek per
  // such version, however many versions hold none.
  virtual std::vector<int64_t> InlinedVersionsWithRows(int64_t table_id) = 0;
  // The batches of `table` that began at `begin_snapshots` (ascending), as
  // ScanInlinedBatches visits them; a begin snapshot with no batch is
  // passed over. Throws what ScanInlinedBatches throws.
  virtual void ReadInlinedBatches(std::string_view table,
                                  const std::vector<int64_t>& begin_snapshots,
                                  const InlinedBatchVisitor& visit) = 0;

  // --- Data file summaries (commit/rows/data_file_summary.h) ---
  // Visits the summary of every ducklake_data_file row of table `table_id`,
  // live or not, in (data_file_id, end_snapshot) order, except those of
  // pages whose bounds `may_hold` rules out (where the lake keeps bounds; a
  // lake that does not has every page visited, and `may_hold` never called).
  // Returns false, visiting nothing, unless the lake keeps one for every row
  // (its head says so) and this transaction stages no data file row or file
  // stats of the table: then the rows are to be read. Throws
  // store::CorruptionError for a page or bounds that does not decode, and
  // for bounds without their page.
  using SummaryPageFilter = std::function<bool(const store::v1::DataFileSummaryBounds& bounds)>;
  using DataFileSummaryVisitor = std::function<void(const store::v1::DataFileSummary& summary)>;
  virtual bool VisitDataFileSummaries(int64_t table_id, const SummaryPageFilter& may_hold,
                                      const DataFileSummaryVisitor& visit) = 0;

  // --- The catalog version (RFC 0012) ---
  // The global `version` option exactly as recorded (DuckLake's scans see
  // the label of the shape served instead), or nullopt if none is recorded.
  virtual std::optional<std::string> RecordedCatalogVersion() = 0;
  // Records `label` as the global `version` option. The option is reserved
  // from every row write; this is the only way to move it, and the catalog
  // version raise its only caller. Throws store::InvalidArgumentError for a
  // store that holds no catalog yet.
  virtual void RecordCatalogVersion(std::string_view label) = 0;

  // --- Protected tags (commit/tags/protected_tag.h) ---
  // Every tag this transaction sees, ended ones and staged ones included, in
  // tag id order. Throws store::CorruptionError for a damaged tag record.
  virtual std::vector<tags::ProtectedTag> ProtectedTags() = 0;
  // Stages `tag` under its id: a new tag, or an existing one ended. It lands
  // with Commit like any write, so it conflicts with every commit that landed
  // since this transaction began (an expiry among them). Throws
  // store::InvalidArgumentError for a store that holds no catalog yet.
  virtual void StageProtectedTag(const tags::ProtectedTag& tag) = 0;
  // The number of batches the store had landed when this transaction began
  // (its head's count; 0 for a store without one): its own commit lands as
  // the next.
  virtual uint64_t BaseBatchCount() const = 0;
  // The data_file_id of every ducklake_files_scheduled_for_deletion row this
  // transaction sees that a commit after batch `batch` wrote (a row's write
  // ordinal names its commit), in id order.
  virtual std::vector<int64_t> FilesScheduledAfterBatch(uint64_t batch) = 0;

  // --- Reverts (commit/revert/revert_mark.h) ---
  // Every revert mark this transaction sees, staged ones included, in
  // snapshot order. Throws store::CorruptionError for a damaged mark.
  virtual std::vector<revert::RevertMark> RevertMarks() = 0;
  // Stages `mark` under its snapshot id; it lands with Commit. Throws
  // store::InvalidArgumentError for a store that holds no catalog yet.
  virtual void StageRevertMark(const revert::RevertMark& mark) = 0;

  // Lands every staged write as one batch. Throws store::ConflictError (the
  // message contains "conflict") if another commit moved the head since this
  // transaction began; nothing is written then. The transaction is finished
  // either way.
  //
  // After AllowRebase, a commit that lost its race to commits that changed
  // only the data of other tables is instead moved onto the newer head and
  // lands there, at the next snapshot id (snapshot_rebase.h); rebased() then
  // says where. It lands while holding its store's commit turn
  // (CatalogCachingStore::commit_turn) when the store has one, so a rebase
  // loses only to other processes.
  //
  // Returns once the batch is durable; it gives up the turn before it waits
  // for its sync, so the next commit lands meanwhile and shares that sync
  // (KvStore::LandIfHeadUnchanged). Throws store::IoError if the sync fails.
  virtual void Commit() = 0;
  // Lets Commit rebase a lost race, for a caller that can live with its
  // snapshot landing at another id than the one it staged. Writes made before
  // it are not kept for a replay, so a transaction that wrote before it is
  // never rebased. From then on a write no longer fails early when this
  // process already moved the head past the transaction's base.
  virtual void AllowRebase() = 0;
  // Tells Commit that its caller already holds the store's commit turn on
  // this commit's behalf (a commit loop that took it for its retries), so
  // Commit must not take it again. The turn is a mutex of the thread that
  // took it, and a commit may run on another one: DuckDB executes the COMMIT
  // of DuckLake's metadata connection on any of its worker threads, which
  // deadlocked against the loop's own thread waiting for that COMMIT.
  virtual void CommitTurnHeldByCaller() = 0;
  // Where a rebased commit landed: the snapshot id its rows named when staged
  // and the one they landed as.
  struct Rebase {
    int64_t staged_snapshot = 0;
    int64_t landed_snapshot = 0;
    // Another writer landed it with its own commit (store::CommitOffer).
    bool by_another_writer = false;
  };
  // Set by a Commit that landed rebased; nullopt otherwise.
  virtual std::optional<Rebase> rebased() const = 0;
  // This transaction's commit as an intent that another writer may land for
  // it (commit_intent.h, ReplayCommitIntent), under a fresh id: nullopt
  // unless a rebase could move it (AllowRebase came before every write, and
  // it is a data-only commit, snapshot_rebase.h). Throws
  // store::InvalidArgumentError once the transaction has finished.
  virtual std::optional<CommitIntent> Intent() = 0;
  virtual void Rollback() = 0;
};

// Which head a transaction begins at.
enum class BeginAt {
  // The newest durable head (KvStore::GetSnapshot): what it reads survives a
  // crash. Every transaction but the one below.
  kDurableHead,
  // The newest landed head, durable or not (KvStore::GetSnapshotForCommit):
  // only for a transaction that commits after it, whose own sync covers
  // those batches; begun on the durable head, it would lose its race to
  // every commit whose sync is still running.
  kLandedHead,
};

// Begins a transaction on `store` at its current head, serving the fixed
// tables in the shape of catalog version `shape` (chosen once per attach).
std::unique_ptr<RowTransaction> BeginRowTransaction(
    const CommitStore& store, catalog::CatalogVersion shape = catalog::CatalogVersion::kV1_0,
    BeginAt at = BeginAt::kDurableHead);

}  // namespace moraine::commit
