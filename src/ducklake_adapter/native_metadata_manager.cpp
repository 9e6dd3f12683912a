#include "ducklake_adapter/native_metadata_manager.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <vector>

#include "commit/lake/ducklake_path.h"
#include "commit/lake/lake_catalog.h"
#include "commit/rows/table_rows.h"
#include "duckdb/catalog/catalog_search_path.hpp"
#include "duckdb/common/exception.hpp"
#include "duckdb/common/string_util.hpp"
#include "duckdb/main/attached_database.hpp"
#include "duckdb/main/client_data.hpp"
#include "duckdb/main/connection.hpp"
#include "duckdb/main/database_manager.hpp"
#include "duckdb/planner/tableref/bound_at_clause.hpp"
#include "duckdb/transaction/transaction.hpp"
#include "duckdb/transaction/transaction_manager.hpp"
#include "duckdb_shim/commit_loop_state.h"
#include "duckdb_shim/moraine_catalog.h"
#include "duckdb_shim/moraine_transaction.h"
#include "duckdb_shim/moraine_transaction_manager.h"
#include "ducklake_adapter/catalog_query_results.h"
#include "ducklake_adapter/cleanup_filter.h"
#include "ducklake_adapter/commit_batch_stager.h"
#include "ducklake_adapter/conflict_check_result.h"
#include "ducklake_adapter/ducklake_catalog_abi.h"
#include "ducklake_adapter/ducklake_manager_abi.h"
#include "ducklake_adapter/ducklake_module.h"
#include "ducklake_adapter/expiry_filter.h"
#include "ducklake_adapter/file_list_read.h"
#include "ducklake_adapter/inlined_data_result.h"
#include "ducklake_adapter/inlined_reader_hook.h"
#include "ducklake_adapter/latest_inlined_table_result.h"
#include "ducklake_adapter/manager_vtable_patch.h"

namespace moraine::ducklake_adapter {

using duckdb_shim::CatalogStore;
using duckdb_shim::CommitLoopState;
using duckdb_shim::MoraineCatalog;
using duckdb_shim::MoraineTransaction;
using duckdb_shim::MoraineTransactionManager;
namespace {

namespace abi = ducklake_abi;

// Whether the code facts (ducklake_manager_abi.h) can be read from DuckLake's
// code. Not in a ThreadSanitizer build: it loads only DuckLake built from the
// pinned commit with ThreadSanitizer (cmake/DuckDB.cmake), whose code calls
// into TSan's runtime before every read, so no declared byte sequence is
// there. Instrumentation changes code, never layout: that build's fields lie
// where the pinned binary's do, whose code the uninstrumented builds check.
#if defined(__SANITIZE_THREAD__)
constexpr bool kCodeFactsReadable = false;
#else
constexpr bool kCodeFactsReadable = true;
#endif

// What moraine keeps in each manager, past the base object (kManagerStateOffset).
struct ManagerState {
  void* ducklake_transaction;  // the DuckLakeTransaction the manager serves
};
static_assert(abi::kManagerStateOffset + sizeof(ManagerState) <= abi::kManagerAllocation);

ManagerState& StateOf(void* manager) {
  return *reinterpret_cast<ManagerState*>(static_cast<std::byte*>(manager) +
                                          abi::kManagerStateOffset);
}

// A DuckLakeMetadataManager as moraine holds it: polymorphic, deleted through
// its own vtable (whose deleting destructor is ManagerSlots::Delete).
class ManagerObject {
 public:
  virtual ~ManagerObject() = 0;
};

class TransactionMethods;
// duckdb::TransactionChangeInformation, only ever passed on by reference.
class TransactionChanges;

// The member functions that fill replaced slots. Never constructed: `this` is
// a DuckLake manager built by CreateManager. Being members, they have exactly
// the calling convention of the methods they replace (`this` first, a
// returned unique_ptr through the hidden result pointer).
class ManagerSlots {
 public:
  void Delete();
  bool MetadataExists();
  abi::DuckLakeMetadata LoadDuckLake();
  duckdb::unique_ptr<abi::DuckLakeSnapshot> GetSnapshot();
  duckdb::unique_ptr<abi::DuckLakeSnapshot> GetSnapshotAt(duckdb::BoundAtClause& at,
                                                          abi::SnapshotBound bound);
  duckdb::vector<abi::DuckLakeGlobalStatsInfo> GetGlobalTableStats(abi::DuckLakeSnapshot snapshot,
                                                                   abi::TableIndex table_id);
  uint64_t GetNextColumnId(abi::TableIndex table_id);
  duckdb::vector<abi::DuckLakeSnapshotInfo> GetAllSnapshots(const std::string& filter);
  duckdb::vector<abi::DuckLakeFileForCleanup> GetOldFilesForCleanup(const std::string& filter);
  duckdb::vector<abi::DuckLakeFileListEntry> GetFilesForTable(
      abi::DuckLakeTableEntry& table, abi::DuckLakeSnapshot snapshot,
      const abi::FilterPushdownInfo* filter_info);
  duckdb::vector<abi::DuckLakeFileListExtendedEntry> GetExtendedFilesForTable(
      abi::DuckLakeTableEntry& table, abi::DuckLakeSnapshot snapshot,
      const abi::FilterPushdownInfo* filter_info);
  duckdb::unique_ptr<duckdb::QueryResult> ReadInlinedData(
      abi::DuckLakeSnapshot snapshot, const std::string& table,
      const duckdb::vector<std::string>& columns);
  uint64_t GetNetDataFileRowCount(abi::TableIndex table_id, abi::DuckLakeSnapshot snapshot);
  uint64_t GetNetInlinedRowCount(const std::string& inlined_table, abi::DuckLakeSnapshot snapshot);
  std::string GetInlinedDeletionTableName(abi::TableIndex table_id, abi::DuckLakeSnapshot snapshot,
                                          bool create_if_not_exists);
  abi::DuckLakeCatalogInfo GetCatalogForSnapshot(abi::DuckLakeSnapshot snapshot);
  duckdb::unique_ptr<duckdb::QueryResult> QueryAtSnapshot(abi::DuckLakeSnapshot snapshot,
                                                          std::string& query);
  duckdb::unique_ptr<duckdb::QueryResult> ExecuteCommitBatch(abi::DuckLakeSnapshot snapshot,
                                                             std::string& batch);
  // Not slots: DuckLakeMetadataManager's exported placeholder substitutions.
  void SubstituteSnapshotPlaceholders(abi::DuckLakeSnapshot snapshot, std::string& query) const;
  void SubstituteCatalogPlaceholders(std::string& query) const;
  void FlushChangesServerSide(TransactionMethods& transaction,
                              abi::DuckLakeSnapshot transaction_snapshot,
                              const TransactionChanges& changes,
                              const abi::DuckLakeRetryConfig& retry_config);
  // Not slots: DuckLakeMetadataManager::GetPathSeparator and IsEncrypted, exported.
  std::string GetPathSeparator(const std::string& path);
  bool IsEncrypted() const;
};

// DuckLakeTableEntry's exported methods. Never constructed: `this` is
// DuckLake's table entry.
class TableEntryMethods {
 public:
  const std::string& DataPath() const;
};

// DuckLakeTransaction's exported methods. Never constructed: `this` is
// DuckLake's transaction.
class TransactionMethods {
 public:
  void RunCommitLoop(abi::DuckLakeSnapshot transaction_snapshot, const TransactionChanges& changes,
                     const abi::DuckLakeRetryConfig& retry_config);
};

// DuckLakeCatalog's exported methods. Never constructed: `this` is DuckLake's
// catalog.
class CatalogMethods {
 public:
  std::string GetDataPath();
};

// An Itanium C++ ABI pointer to a non-virtual member function: its address
// and a `this` adjustment (0 here).
struct MemberPointerWords {
  void* address;
  std::ptrdiff_t adjustment;
};

template <class Member>
void* AddressOf(Member member) {
  static_assert(sizeof(Member) == sizeof(MemberPointerWords));
  MemberPointerWords words;
  std::memcpy(&words, &member, sizeof(words));
  return words.address;
}

template <class Member>
Member MemberAt(void* address) {
  static_assert(sizeof(Member) == sizeof(MemberPointerWords));
  const MemberPointerWords words{address, 0};
  Member member;
  std::memcpy(&member, &words, sizeof(member));
  return member;
}

using RegisterFunction = void (*)(const std::string&, void*);
using ConstructorFunction = void (*)(void* self, void* ducklake_transaction);
using GetConnectionFunction = duckdb::Connection& (*)(void* ducklake_transaction);

struct Registration {
  std::mutex mutex;
  NativeMetadataManager::State state = NativeMetadataManager::State::kWaiting;
  std::string reason = "DuckLake is not loaded in this process";
  std::optional<DuckLakeModule> module;
  // The loaded build's vtable with moraine's methods in it.
  std::optional<ManagerVtablePatch> vtable;
  std::atomic<bool> registered{false};
  // The counters of native_manager_columns.h.
#define MORAINE_REGISTRATION_COUNTER(name, meaning) std::atomic<uint64_t> name{0};
  MORAINE_NATIVE_MANAGER_COLUMNS(MORAINE_REGISTRATION_COUNTER, MORAINE_NATIVE_MANAGER_SKIP,
                                 MORAINE_NATIVE_MANAGER_SKIP)
#undef MORAINE_REGISTRATION_COUNTER
  // The text of DuckLake's conflict-check query, as DuckLake returns it.
  std::string conflict_check_query;
  // The texts of DuckLake's six catalog queries, as DuckLake sends them;
  // nullopt leaves them to DuckLake's SQL.
  std::optional<CatalogQueryTexts> catalog_queries;
  // DuckLake's text of the newest-inlined-table lookup; null leaves it to SQL.
  LatestInlinedTableQueryFunction latest_inlined_table_query = nullptr;
  // Whether DuckLake hands its commit loops to moraine's managers, and why not.
  bool in_catalog_retry = false;
  std::string in_catalog_retry_reason;
  // Whether a commit that lost its race may be rebased (DuckLake's last
  // committed snapshot id can be set to where it landed), and why not.
  bool rebase = false;
  std::string rebase_reason;
  // Why scans of inlined rows are not filtered here (inlined_reader_hook.h).
  std::string inlined_filter_reason;
  void* run_commit_loop = nullptr;
  void* get_data_path = nullptr;
  void* get_path_separator = nullptr;
  void* table_data_path = nullptr;
  void* is_encrypted = nullptr;
  void* parse_quoted_list = nullptr;
  void* substitute_snapshot_placeholders = nullptr;
  void* substitute_catalog_placeholders = nullptr;
};

Registration& TheRegistration() {
  static auto* registration = new Registration();  // never destroyed: managers may outlive statics
  return *registration;
}

// DuckLake's own method in `method`'s slot. Only replaced methods call it, and
// a method is replaced only where the build has it and every method it calls.
void* OriginalSlot(abi::ManagerMethod method) { return TheRegistration().vtable->Original(method); }

// Calls DuckLake's own method in `method`'s slot on `self`, as a `Member`
// (a pointer-to-member type with DuckLake's signature).
template <class Member, class Self, class... Args>
decltype(auto) CallOriginalAs(Self* self, abi::ManagerMethod method, Args&&... args) {
  return (self->*MemberAt<Member>(OriginalSlot(method)))(std::forward<Args>(args)...);
}

// The same, typed as moraine's replacement of the slot, which declares
// DuckLake's signature.
template <auto Replacement, class Self, class... Args>
decltype(auto) CallOriginal(Self* self, abi::ManagerMethod method, Args&&... args) {
  return CallOriginalAs<decltype(Replacement)>(self, method, std::forward<Args>(args)...);
}

template <class T>
T& At(void* object, size_t offset) {
  return *reinterpret_cast<T*>(static_cast<std::byte*>(object) + offset);
}

// Sets the flag of the transaction's DuckLakeCatalog that makes DuckLake's
// FlushChanges call FlushChangesServerSide, through the offsets read from
// ExecuteRetrialsServerSide's code (checked at registration). The manager
// must hold its transaction where that code reads it, or nothing is written.
// The flag is only ever set, never cleared: a racing reader sees either
// value, and both run a correct commit.
//
// It is the catalog's, read by every transaction's manager, and DuckLake's
// base manager throws (and DuckDB invalidates the database) when handed the
// loop. So it may be set only once no transaction of the lake still runs a
// base manager: only the one of the ATTACH that loaded the lake can (it was
// built before moraine registered), and that ATTACH's transaction is the
// first the metadata catalog saw. Until it has ended, DuckLake's own loop runs.
void HandCommitLoopsToManagers(void* manager, void* ducklake_transaction) {
  if (At<void*>(manager, abi::kManagerTransactionOffset) != ducklake_transaction) {
    static std::atomic<bool> said{false};
    if (!said.exchange(true)) {
      std::fprintf(stderr,
                   "moraine: DuckLake's manager does not hold its transaction where "
                   "ExecuteRetrialsServerSide reads it; commits keep DuckLake's client backoff\n");
    }
    return;
  }
  void* catalog = At<void*>(ducklake_transaction, abi::kTransactionCatalogOffset);
  auto& retrials_server_side = At<bool>(catalog, abi::kCatalogRetrialsServerSideOffset);
  if (!retrials_server_side) retrials_server_side = true;
}

// Tells DuckLake's catalog that the commit its loop staged as snapshot
// `rebase.staged_snapshot` landed as `rebase.landed_snapshot`, through the
// offsets read from ducklake_last_committed_snapshot's bind (checked at
// registration), under the catalog's own commit_lock. Only if DuckLake's id
// is still the one it staged: a later commit of another connection may have
// set its own since.
void SetLastCommittedSnapshot(void* ducklake_transaction,
                              const commit::RowTransaction::Rebase& rebase) {
  void* catalog = At<void*>(ducklake_transaction, abi::kTransactionCatalogOffset);
  std::lock_guard<std::mutex> guard(At<std::mutex>(catalog, abi::kCatalogCommitLockOffset));
  auto& id = At<duckdb::idx_t>(catalog, abi::kCatalogLastCommittedSnapshotOffset);
  if (id == static_cast<duckdb::idx_t>(rebase.staged_snapshot)) {
    id = static_cast<duckdb::idx_t>(rebase.landed_snapshot);
  }
}

duckdb::unique_ptr<ManagerObject> CreateManager(void* ducklake_transaction) {
  auto& registration = TheRegistration();
  void* memory = ::operator new(abi::kManagerAllocation);
  std::memset(memory, 0, abi::kManagerAllocation);
  try {
    reinterpret_cast<ConstructorFunction>(registration.module->constructor())(memory,
                                                                              ducklake_transaction);
  } catch (...) {
    ::operator delete(memory);
    throw;
  }
  StateOf(memory).ducklake_transaction = ducklake_transaction;
  *static_cast<void* const**>(memory) = registration.vtable->address_point();
  registration.managers_created.fetch_add(1, std::memory_order_relaxed);
  return duckdb::unique_ptr<ManagerObject>(static_cast<ManagerObject*>(memory));
}

void ManagerSlots::Delete() {
  // DuckLake's complete destructor: its signature is Delete's.
  CallOriginal<&ManagerSlots::Delete>(this, abi::ManagerMethod::kCompleteDestructor);
  ::operator delete(static_cast<void*>(this));
}

// The metadata connection of the DuckLake transaction a manager serves, with
// its transaction begun, and the moraine catalog it reads if the native
// manager may answer for it: the catalog DuckLake sets as the connection's
// default, with the store of the metadata schema it sets beside it.
struct MetadataConnection {
  duckdb::ClientContext& context;
  MoraineCatalog* catalog = nullptr;  // nullptr: DuckLake's SQL answers
  CatalogStore where;
};

MetadataConnection MetadataConnectionOf(void* manager) {
  auto get_connection =
      reinterpret_cast<GetConnectionFunction>(TheRegistration().module->get_connection());
  auto& context = *get_connection(StateOf(manager).ducklake_transaction).context;
  MetadataConnection metadata{context, nullptr, {}};
  const auto& entry = duckdb::ClientData::Get(context).catalog_search_path->GetDefault();
  auto database = duckdb::DatabaseManager::Get(context).GetDatabase(context, entry.catalog);
  if (!database) return metadata;
  auto& catalog = database->GetCatalog();
  if (catalog.GetCatalogType() != "moraine") return metadata;
  auto& moraine = catalog.Cast<MoraineCatalog>();
  if (!moraine.native_manager()) return metadata;
  auto where = moraine.StoreOfSchema(MoraineTransaction::Get(context, moraine), entry.schema);
  // DuckLake names "main" when the lake was attached without METADATA_SCHEMA:
  // the store's own catalog then serves it under whatever name it has.
  if (!where && entry.schema == "main") where = moraine.catalog_store();
  if (!where) return metadata;
  metadata.catalog = &moraine;
  metadata.where = *where;
  return metadata;
}

duckdb::unique_ptr<abi::DuckLakeSnapshot> NewSnapshot(const commit::SnapshotCounters& counters) {
  return duckdb::unique_ptr<abi::DuckLakeSnapshot>(new abi::DuckLakeSnapshot{
      static_cast<uint64_t>(counters.snapshot_id), static_cast<uint64_t>(counters.schema_version),
      static_cast<uint64_t>(counters.next_catalog_id),
      static_cast<uint64_t>(counters.next_file_id)});
}

duckdb::unique_ptr<abi::DuckLakeSnapshot> ManagerSlots::GetSnapshot() {
  auto metadata = MetadataConnectionOf(this);
  if (!metadata.catalog) {
    return CallOriginal<&ManagerSlots::GetSnapshot>(this, abi::ManagerMethod::kGetSnapshot);
  }
  if (TheRegistration().in_catalog_retry && metadata.catalog->GetAttached()
                                                .GetTransactionManager()
                                                .Cast<MoraineTransactionManager>()
                                                .FirstTransactionEnded()) {
    HandCommitLoopsToManagers(this, StateOf(this).ducklake_transaction);
  }
  auto head = MoraineTransaction::Get(metadata.context, *metadata.catalog)
                  .WithRows(metadata.where, false,
                            [](commit::RowTransaction& rows) { return rows.LatestSnapshot(); });
  if (!head) throw duckdb::InvalidInputException("No snapshot found in DuckLake");
  TheRegistration().native_snapshot_reads.fetch_add(1, std::memory_order_relaxed);
  return NewSnapshot(*head);
}

// AT (VERSION => n) by key; AT (TIMESTAMP => t) stays DuckLake's query, which
// orders every snapshot by its time.
duckdb::unique_ptr<abi::DuckLakeSnapshot> ManagerSlots::GetSnapshotAt(duckdb::BoundAtClause& at,
                                                                      abi::SnapshotBound bound) {
  auto metadata = MetadataConnectionOf(this);
  if (!metadata.catalog || !duckdb::StringUtil::CIEquals(at.Unit(), "version")) {
    return CallOriginal<&ManagerSlots::GetSnapshotAt>(this, abi::ManagerMethod::kGetSnapshotAt, at,
                                                      bound);
  }
  const auto version =
      at.GetValue().DefaultCastAs(duckdb::LogicalType::UBIGINT).GetValue<uint64_t>();
  std::optional<commit::SnapshotCounters> found;
  if (version <= static_cast<uint64_t>(INT64_MAX)) {
    found = MoraineTransaction::Get(metadata.context, *metadata.catalog)
                .WithRows(metadata.where, false, [&](commit::RowTransaction& rows) {
                  return rows.SnapshotAt(static_cast<int64_t>(version));
                });
  }
  if (!found) {
    throw duckdb::InvalidInputException("No snapshot found at version %s",
                                        at.GetValue().ToString());
  }
  TheRegistration().native_snapshot_reads.fetch_add(1, std::memory_order_relaxed);
  return NewSnapshot(*found);
}

// DuckLake's query reads the stats rows as the metadata transaction sees them
// (they are not versioned; the snapshot only names the transaction's).
duckdb::vector<abi::DuckLakeGlobalStatsInfo> ManagerSlots::GetGlobalTableStats(
    abi::DuckLakeSnapshot snapshot, abi::TableIndex table_id) {
  auto metadata = MetadataConnectionOf(this);
  if (!metadata.catalog) {
    return CallOriginal<&ManagerSlots::GetGlobalTableStats>(
        this, abi::ManagerMethod::kGetGlobalTableStats, snapshot, table_id);
  }
  auto stats = MoraineTransaction::Get(metadata.context, *metadata.catalog)
                   .WithRows(metadata.where, false, [&](commit::RowTransaction& rows) {
                     return rows.GlobalTableStats(static_cast<int64_t>(table_id.index));
                   });
  TheRegistration().native_stats_reads.fetch_add(1, std::memory_order_relaxed);
  duckdb::vector<abi::DuckLakeGlobalStatsInfo> result;
  if (!stats) return result;
  abi::DuckLakeGlobalStatsInfo& info = result.emplace_back();
  info.table_id = table_id;
  info.initialized = true;
  info.record_count = static_cast<uint64_t>(stats->record_count);
  info.next_row_id = static_cast<uint64_t>(stats->next_row_id);
  info.table_size_bytes = static_cast<uint64_t>(stats->file_size_bytes);
  for (const auto& column : stats->columns) {
    abi::DuckLakeGlobalColumnStatsInfo& out = info.column_stats.emplace_back();
    out.column_id = {static_cast<uint64_t>(column.column_id)};
    out.has_contains_null = column.contains_null.has_value();
    out.contains_null = column.contains_null.value_or(false);
    out.has_contains_nan = column.contains_nan.has_value();
    out.contains_nan = column.contains_nan.value_or(false);
    out.has_min = column.min_value.has_value();
    out.min_val = column.min_value.value_or("");
    out.has_max = column.max_value.has_value();
    out.max_val = column.max_value.value_or("");
    out.has_extra_stats = column.extra_stats.has_value();
    out.extra_stats = column.extra_stats.value_or("");
  }
  return result;
}

using ParseQuotedListFunction = duckdb::vector<std::string> (*)(const std::string&, char);

void CopyTags(const std::vector<commit::LakeTag>& from, duckdb::vector<abi::DuckLakeTag>& to) {
  for (const auto& tag : from) to.push_back({tag.key, tag.value});
}

abi::DuckLakeColumnInfo ColumnInfo(const commit::LakeColumn& column) {
  abi::DuckLakeColumnInfo info;
  info.id = {static_cast<uint64_t>(column.id)};
  info.name = column.name;
  info.type = column.type;
  if (column.initial_default) info.initial_default = duckdb::Value(*column.initial_default);
  if (column.default_value) info.default_value = duckdb::Value(*column.default_value);
  info.default_value_type = column.default_value_type;
  info.nulls_allowed = column.nulls_allowed;
  for (const auto& child : column.children) info.children.push_back(ColumnInfo(child));
  CopyTags(column.tags, info.tags);
  return info;
}

// The catalog at `snapshot` from the store: at the head (or after it, as a
// commit builds the catalog at the snapshot it is writing: nothing begins
// after the head) from the catalog kept at the head, unless this transaction
// has staged writes; otherwise the records live at the snapshot.
std::shared_ptr<const commit::LakeCatalog> LakeCatalogAt(void* manager,
                                                         const MetadataConnection& metadata,
                                                         abi::DuckLakeSnapshot snapshot) {
  auto& registration = TheRegistration();
  // The DuckLake catalog of the transaction: a duckdb::Transaction is the
  // DuckLakeTransaction's first base, and its manager's database is the lake.
  auto& transaction = *static_cast<duckdb::Transaction*>(StateOf(manager).ducklake_transaction);
  auto& lake = transaction.manager.GetDB().GetCatalog();
  const std::string data_path =
      (reinterpret_cast<CatalogMethods*>(&lake)->*MemberAt<decltype(&CatalogMethods::GetDataPath)>(
                                                      registration.get_data_path))();
  const std::string separator =
      (static_cast<ManagerSlots*>(manager)->*MemberAt<decltype(&ManagerSlots::GetPathSeparator)>(
                                                 registration.get_path_separator))(data_path);
  auto& moraine = MoraineTransaction::Get(metadata.context, *metadata.catalog);
  auto& head_catalog = metadata.where.store->head_catalog();
  const bool may_cache = !moraine.wrote(metadata.where);
  return moraine.WithRows(metadata.where, false, [&](commit::RowTransaction& rows) {
    const auto wanted = static_cast<int64_t>(snapshot.snapshot_id);
    const auto head = rows.LatestSnapshot();
    if (may_cache && head && head->snapshot_id <= wanted) {
      auto served = head_catalog.AtHead(rows, head->snapshot_id, data_path, separator);
      using Source = commit::HeadCatalogCache::Source;
      auto& count = served.source == Source::kCached   ? registration.catalog_cache_hits
                    : served.source == Source::kReread ? registration.catalog_cache_rereads
                                                       : registration.catalog_full_reads;
      count.fetch_add(1, std::memory_order_relaxed);
      return served.catalog;
    }
    return std::shared_ptr<const commit::LakeCatalog>(std::make_shared<commit::LakeCatalog>(
        commit::ReadLakeCatalog(rows, wanted, data_path, separator)));
  });
}

// DuckLake's six catalog queries, answered from the records live at the
// snapshot (at the head: from `current` alone).
abi::DuckLakeCatalogInfo ManagerSlots::GetCatalogForSnapshot(abi::DuckLakeSnapshot snapshot) {
  auto& registration = TheRegistration();
  auto metadata = MetadataConnectionOf(this);
  auto original = [&] {
    return CallOriginal<&ManagerSlots::GetCatalogForSnapshot>(
        this, abi::ManagerMethod::kGetCatalogForSnapshot, snapshot);
  };
  if (!metadata.catalog) return original();
  const auto lake_catalog = LakeCatalogAt(this, metadata, snapshot);
  if (lake_catalog->needs_sql()) return original();
  auto parse_quoted_list =
      reinterpret_cast<ParseQuotedListFunction>(registration.parse_quoted_list);

  abi::DuckLakeCatalogInfo info;
  for (const auto& schema : lake_catalog->schemas) {
    info.schemas.push_back(
        {{static_cast<uint64_t>(schema.id)}, schema.uuid, schema.name, schema.path, {}});
  }
  info.tables.reserve(lake_catalog->tables.size());
  for (const auto& shared : lake_catalog->tables) {
    const commit::LakeTable& table = *shared;
    abi::DuckLakeTableInfo& out = info.tables.emplace_back();
    out.id = {static_cast<uint64_t>(table.id)};
    out.schema_id = {static_cast<uint64_t>(table.schema_id)};
    out.uuid = table.uuid;
    out.name = table.name;
    out.path = table.path;
    for (const auto& column : table.columns) out.columns.push_back(ColumnInfo(column));
    CopyTags(table.tags, out.tags);
    // One per schema version the table had with inlining on: thousands after
    // many column changes.
    out.inlined_data_tables.reserve(table.inlined_data_tables.size());
    for (const auto& inlined : table.inlined_data_tables) {
      out.inlined_data_tables.push_back(
          {inlined.name, static_cast<uint64_t>(inlined.schema_version)});
    }
  }
  for (const auto& view : lake_catalog->views) {
    abi::DuckLakeViewInfo& out = info.views.emplace_back();
    out.id = {static_cast<uint64_t>(view.id)};
    out.schema_id = {static_cast<uint64_t>(view.schema_id)};
    out.uuid = view.uuid;
    out.name = view.name;
    out.dialect = view.dialect;
    out.column_aliases = parse_quoted_list(view.column_aliases, ',');
    out.sql = view.sql;
    CopyTags(view.tags, out.tags);
  }
  for (const auto& partition : lake_catalog->partitions) {
    abi::DuckLakePartitionInfo& out = info.partitions.emplace_back();
    out.id = duckdb::optional_idx(static_cast<duckdb::idx_t>(partition.id));
    out.table_id = {static_cast<uint64_t>(partition.table_id)};
    for (const auto& field : partition.fields) {
      out.fields.push_back({static_cast<uint64_t>(field.key_index),
                            {static_cast<uint64_t>(field.column_id)},
                            field.transform});
    }
  }
  for (const auto& sort : lake_catalog->sorts) {
    abi::DuckLakeSortInfo& out = info.sorts.emplace_back();
    out.id = duckdb::optional_idx(static_cast<duckdb::idx_t>(sort.id));
    out.table_id = {static_cast<uint64_t>(sort.table_id)};
    for (const auto& field : sort.fields) {
      out.fields.push_back(
          {static_cast<uint64_t>(field.key_index), field.expression, field.dialect,
           field.descending ? duckdb::OrderType::DESCENDING : duckdb::OrderType::ASCENDING,
           field.nulls_first ? duckdb::OrderByNullType::NULLS_FIRST
                             : duckdb::OrderByNullType::NULLS_LAST});
    }
  }
  registration.native_catalog_reads.fetch_add(1, std::memory_order_relaxed);
  return info;
}

// ducklake_metadata's rows as DuckLake's LoadDuckLake sorts them: global
// settings (scope NULL) as tags, schema and table ones by their object. False
// when the table is missing or a row has a scope, or lacks an id, that only
// DuckLake's own load knows what to say of.
bool ReadLakeSettings(commit::RowTransaction& rows, abi::DuckLakeMetadata& settings) {
  if (!rows.FindTable("ducklake_metadata")) return false;
  bool understood = true;
  commit::TableRows(rows, "ducklake_metadata", {"key", "value", "scope", "scope_id"})
      .ForEachFrom(std::nullopt, [&](const std::vector<size_t>& at, const catalog::Row& row) {
        const auto* key = std::get_if<std::string>(&row[at[0]]);
        const auto* value = std::get_if<std::string>(&row[at[1]]);
        const auto* scope = std::get_if<std::string>(&row[at[2]]);
        const auto* scope_id = std::get_if<int64_t>(&row[at[3]]);
        if (!key || !value) {
          understood = false;
          return;
        }
        abi::DuckLakeTag tag{*key, *value};
        if (!scope) {
          settings.tags.push_back(std::move(tag));
        } else if (*scope == "schema" && scope_id) {
          settings.schema_settings.push_back({{static_cast<uint64_t>(*scope_id)}, std::move(tag)});
        } else if (*scope == "table" && scope_id) {
          settings.table_settings.push_back({{static_cast<uint64_t>(*scope_id)}, std::move(tag)});
        } else {
          understood = false;
        }
      });
  return understood;
}

// DuckLake's probe at ATTACH: whether the store holds a DuckLake catalog,
// asked of the store instead of by a query whose failure means "no".
bool ManagerSlots::MetadataExists() {
  auto metadata = MetadataConnectionOf(this);
  if (!metadata.catalog) {
    return CallOriginal<&ManagerSlots::MetadataExists>(this, abi::ManagerMethod::kMetadataExists);
  }
  const bool exists = MoraineTransaction::Get(metadata.context, *metadata.catalog)
                          .WithRows(metadata.where, false, [](commit::RowTransaction& rows) {
                            return rows.FindTable("ducklake_metadata").has_value();
                          });
  TheRegistration().native_attach_reads.fetch_add(1, std::memory_order_relaxed);
  return exists;
}

// The lake's settings at ATTACH, from the same rows DuckLake's query reads
// (the catalog version as served); DuckLake's own answer, and its own error,
// for a row of a scope it does not know.
abi::DuckLakeMetadata ManagerSlots::LoadDuckLake() {
  auto original = [&] {
    return CallOriginal<&ManagerSlots::LoadDuckLake>(this, abi::ManagerMethod::kLoadDuckLake);
  };
  auto metadata = MetadataConnectionOf(this);
  if (!metadata.catalog) return original();
  abi::DuckLakeMetadata settings;
  const bool read = MoraineTransaction::Get(metadata.context, *metadata.catalog)
                        .WithRows(metadata.where, false, [&](commit::RowTransaction& rows) {
                          return ReadLakeSettings(rows, settings);
                        });
  if (!read) return original();
  TheRegistration().native_attach_reads.fetch_add(1, std::memory_order_relaxed);
  return settings;
}

// Every column version's id, ended ones included: a dropped column's id is
// never reused (field ids are eternal).
uint64_t ManagerSlots::GetNextColumnId(abi::TableIndex table_id) {
  auto metadata = MetadataConnectionOf(this);
  std::optional<int64_t> max;
  if (metadata.catalog) {
    max = MoraineTransaction::Get(metadata.context, *metadata.catalog)
              .WithRows(metadata.where, false, [&](commit::RowTransaction& rows) {
                return rows.MaxColumnId(static_cast<int64_t>(table_id.index));
              });
  }
  // DuckLake's own answer for a lake it serves alone, and its own error for a
  // table without columns.
  if (!max) {
    return CallOriginal<&ManagerSlots::GetNextColumnId>(this, abi::ManagerMethod::kGetNextColumnId,
                                                        table_id);
  }
  TheRegistration().native_column_id_reads.fetch_add(1, std::memory_order_relaxed);
  return static_cast<uint64_t>(*max) + 1;
}

// An expiry never chooses a tagged snapshot (expiry_filter.h): one that names
// one in `versions` is refused here, at bind, with nothing expired; one by
// time passes over them. The catalog refuses to delete a tagged snapshot's
// row on every path (RowTransaction::Delete); this makes the expiry by time
// (CHECKPOINT's among them) succeed around the tags instead of failing.
duckdb::vector<abi::DuckLakeSnapshotInfo> ManagerSlots::GetAllSnapshots(const std::string& filter) {
  auto original = [&](const std::string& text) {
    return CallOriginal<&ManagerSlots::GetAllSnapshots>(this, abi::ManagerMethod::kGetAllSnapshots,
                                                        text);
  };
  const ExpiryFilter expiry = ReadExpiryFilter(filter);
  auto metadata = MetadataConnectionOf(this);
  if (expiry.kind == ExpiryFilter::Kind::kOther || !metadata.catalog) return original(filter);
  const auto tags = MoraineTransaction::Get(metadata.context, *metadata.catalog)
                        .WithRows(metadata.where, false, [](commit::RowTransaction& rows) {
                          return rows.ProtectedTags();
                        });
  std::vector<int64_t> tagged;
  for (const auto& tag : tags) {
    if (tag.ended()) continue;
    if (expiry.kind == ExpiryFilter::Kind::kVersions &&
        std::find(expiry.versions.begin(), expiry.versions.end(), tag.snapshot_id) !=
            expiry.versions.end()) {
      throw duckdb::InvalidInputException(
          "ducklake_expire_snapshots: snapshot %lld is protected by the tag '%s'; nothing was "
          "expired. Leave it out of versions, or remove the tag with moraine_untag first",
          static_cast<long long>(tag.snapshot_id), tag.name);
    }
    tagged.push_back(tag.snapshot_id);
  }
  if (expiry.kind == ExpiryFilter::Kind::kVersions) return original(filter);
  TheRegistration().native_expiries_narrowed.fetch_add(1, std::memory_order_relaxed);
  return original(ExcludingSnapshots(filter, tagged));
}

// A held backup (moraine_backup) may read files a compaction or an expiry
// scheduled for deletion after it was taken: the old-files cleanup leaves
// them out until the backup is released (cleanup_filter.h).
duckdb::vector<abi::DuckLakeFileForCleanup> ManagerSlots::GetOldFilesForCleanup(
    const std::string& filter) {
  auto original = [&](const std::string& text) {
    return CallOriginal<&ManagerSlots::GetOldFilesForCleanup>(
        this, abi::ManagerMethod::kGetOldFilesForCleanup, text);
  };
  auto metadata = MetadataConnectionOf(this);
  if (!metadata.catalog) return original(filter);
  const auto held =
      MoraineTransaction::Get(metadata.context, *metadata.catalog)
          .WithRows(metadata.where, false, [](commit::RowTransaction& rows) {
            std::optional<uint64_t> after;
            for (const auto& tag : rows.ProtectedTags()) {
              if (tag.ended() || !tag.holds_files_after_batch) continue;
              after = std::min(after.value_or(UINT64_MAX), *tag.holds_files_after_batch);
            }
            return after ? rows.FilesScheduledAfterBatch(*after) : std::vector<int64_t>();
          });
  if (held.empty()) return original(filter);
  const auto narrowed = CleanupFilterKeeping(filter, held);
  if (!narrowed) {
    throw duckdb::InvalidInputException(
        "ducklake_cleanup_old_files: a held backup may read files scheduled for deletion, and "
        "this DuckLake's cleanup filter is not one moraine can narrow; release the backup with "
        "moraine_release_backup first");
  }
  TheRegistration().native_cleanups_narrowed.fetch_add(1, std::memory_order_relaxed);
  return original(*narrowed);
}

// Whether a read at `snapshot` reads the head of a transaction that wrote
// nothing (`wrote`, asked before WithRows, which holds the transaction's
// lock): the live rows are then the unended ones, which sit in `current`.
bool ReadsAtHead(bool wrote, commit::RowTransaction& rows, abi::DuckLakeSnapshot snapshot) {
  if (wrote) return false;
  const auto head = rows.LatestSnapshot();
  return head && static_cast<uint64_t>(head->snapshot_id) <= snapshot.snapshot_id;
}

// A row count `count(rows, at_head)` reads in the store (nullopt: DuckLake's
// query answers), or nullopt for a lake DuckLake's SQL serves.
template <class Count>
std::optional<int64_t> CountInStore(void* manager, abi::DuckLakeSnapshot snapshot,
                                    const Count& count) {
  auto metadata = MetadataConnectionOf(manager);
  if (!metadata.catalog) return std::nullopt;
  auto& moraine = MoraineTransaction::Get(metadata.context, *metadata.catalog);
  const bool wrote = moraine.wrote(metadata.where);
  return moraine.WithRows(metadata.where, false, [&](commit::RowTransaction& rows) {
    return count(rows, ReadsAtHead(wrote, rows, snapshot));
  });
}

// The name of the table's inlined deletion table if the transaction sees it,
// else empty (as DuckLake's GetInlinedDeletionTableName answers).
std::string InlinedDeletionTableIn(commit::RowTransaction& rows, abi::TableIndex table_id) {
  std::string name = "ducklake_inlined_delete_" + std::to_string(table_id.index);
  return rows.FindTable(name) ? name : std::string();
}

// DuckLake asks whether the table has an inlined deletion table by querying
// it and taking an error for "absent" (a DuckDB bind error thrown and caught
// at the first scan of every table); the store knows. Creating one stays
// DuckLake's, which also caches that it did.
std::string ManagerSlots::GetInlinedDeletionTableName(abi::TableIndex table_id,
                                                      abi::DuckLakeSnapshot snapshot,
                                                      bool create_if_not_exists) {
  auto metadata = MetadataConnectionOf(this);
  if (!metadata.catalog || create_if_not_exists) {
    return CallOriginal<&ManagerSlots::GetInlinedDeletionTableName>(
        this, abi::ManagerMethod::kGetInlinedDeletionTableName, table_id, snapshot,
        create_if_not_exists);
  }
  std::string name = MoraineTransaction::Get(metadata.context, *metadata.catalog)
                         .WithRows(metadata.where, false, [&](commit::RowTransaction& rows) {
                           return InlinedDeletionTableIn(rows, table_id);
                         });
  TheRegistration().native_row_counts.fetch_add(1, std::memory_order_relaxed);
  return name;
}

// The count(*) DuckLake answers from its catalog: data files' record counts
// less their deletions. A negative sum (a catalog DuckLake itself would fail
// to read as idx_t) is left to DuckLake's query and its error.
uint64_t ManagerSlots::GetNetDataFileRowCount(abi::TableIndex table_id,
                                              abi::DuckLakeSnapshot snapshot) {
  const auto count = CountInStore(this, snapshot, [&](commit::RowTransaction& rows, bool at_head) {
    const std::string deletions = InlinedDeletionTableIn(rows, table_id);
    return std::optional<int64_t>(rows.NetDataFileRowCount(
        static_cast<int64_t>(table_id.index), static_cast<int64_t>(snapshot.snapshot_id), at_head,
        deletions.empty() ? std::nullopt : std::optional<std::string_view>(deletions)));
  });
  if (!count || *count < 0) {
    return CallOriginal<&ManagerSlots::GetNetDataFileRowCount>(
        this, abi::ManagerMethod::kGetNetDataFileRowCount, table_id, snapshot);
  }
  TheRegistration().native_row_counts.fetch_add(1, std::memory_order_relaxed);
  return static_cast<uint64_t>(*count);
}

// The live rows of one of the table's inlined data tables; a table the store
// does not hold is left to DuckLake's query and its error.
uint64_t ManagerSlots::GetNetInlinedRowCount(const std::string& inlined_table,
                                             abi::DuckLakeSnapshot snapshot) {
  const auto count = CountInStore(
      this, snapshot, [&](commit::RowTransaction& rows, bool) -> std::optional<int64_t> {
        if (!rows.FindTable(inlined_table)) return std::nullopt;
        return rows.LiveInlinedRowCount(inlined_table, static_cast<int64_t>(snapshot.snapshot_id));
      });
  if (!count) {
    return CallOriginal<&ManagerSlots::GetNetInlinedRowCount>(
        this, abi::ManagerMethod::kGetNetInlinedRowCount, inlined_table, snapshot);
  }
  TheRegistration().native_row_counts.fetch_add(1, std::memory_order_relaxed);
  return static_cast<uint64_t>(*count);
}

// A table's inlined rows, from the store's batches (inlined_data_result.h);
// a projection moraine does not read, or a table the store does not hold,
// stays DuckLake's query.
duckdb::unique_ptr<duckdb::QueryResult> ManagerSlots::ReadInlinedData(
    abi::DuckLakeSnapshot snapshot, const std::string& table,
    const duckdb::vector<std::string>& columns) {
  auto metadata = MetadataConnectionOf(this);
  duckdb::unique_ptr<duckdb::QueryResult> result;
  if (metadata.catalog && snapshot.snapshot_id <= static_cast<uint64_t>(INT64_MAX)) {
    // Binding and casting hold no lock of the transaction (inlined_data_result.h).
    auto& transaction = MoraineTransaction::Get(metadata.context, *metadata.catalog);
    const auto spec = transaction.WithRows(
        metadata.where, false,
        [&](commit::RowTransaction& rows) { return InlinedDataRead::FindTable(rows, table); });
    InlinedDataRead read;
    if (spec && read.Bind(metadata.context, *spec, columns)) {
      // The filters DuckLake's reader applies to this answer, when it is
      // that reader asking (inlined_reader_hook.h).
      const auto* scan = InlinedReaderHook::Current();
      if (scan && scan->filters && !scan->rows_must_stay) {
        read.Filter(metadata.context, *scan->filters, scan->column_types);
      }
      transaction.WithRows(metadata.where, false, [&](commit::RowTransaction& rows) {
        read.Read(rows, table, static_cast<int64_t>(snapshot.snapshot_id));
      });
      result = read.Finish(metadata.context);
      TheRegistration().inlined_rows_pruned.fetch_add(read.pruned(), std::memory_order_relaxed);
      TheRegistration().inlined_batches_skipped.fetch_add(read.batches_skipped(),
                                                          std::memory_order_relaxed);
    }
  }
  if (!result) {
    return CallOriginal<&ManagerSlots::ReadInlinedData>(this, abi::ManagerMethod::kReadInlinedData,
                                                        snapshot, table, columns);
  }
  TheRegistration().native_inlined_reads.fetch_add(1, std::memory_order_relaxed);
  return result;
}

// Reads a table scan's file list of `shape` from the store, pruned by the
// per-file column stats (file_list_read.h), and hands it to `finish` with
// DuckLake's path loader; nullopt for DuckLake's SQL to answer (what moraine
// does not mirror, a lake DuckLake's SQL serves, an encrypted lake).
template <class Finish>
auto ReadFileList(ManagerSlots* manager, FileListRead::Shape shape, abi::DuckLakeTableEntry& table,
                  abi::DuckLakeSnapshot snapshot, const abi::FilterPushdownInfo* filter_info,
                  const Finish& finish)
    -> std::optional<decltype(finish(std::declval<FileListRead&>(),
                                     std::declval<const FileListRead::LoadPath&>()))> {
  auto& registration = TheRegistration();
  auto metadata = MetadataConnectionOf(manager);
  if (!metadata.catalog || snapshot.snapshot_id > static_cast<uint64_t>(INT64_MAX) ||
      table.table_id.index > static_cast<uint64_t>(INT64_MAX) ||
      (manager->*MemberAt<decltype(&ManagerSlots::IsEncrypted)>(registration.is_encrypted))()) {
    return std::nullopt;
  }
  FileListRead read;
  if (filter_info && !read.AddFilters(*filter_info)) return std::nullopt;
  auto& moraine = MoraineTransaction::Get(metadata.context, *metadata.catalog);
  const bool wrote = moraine.wrote(metadata.where);
  // The summaries are decided holding no lock, as Finish decides the rows.
  const bool summarized =
      moraine.WithRows(metadata.where, false, [&](commit::RowTransaction& rows) {
        return read.ReadSummaries(rows, static_cast<int64_t>(table.table_id.index),
                                  static_cast<int64_t>(snapshot.snapshot_id));
      });
  if (summarized) read.DecideSummarized();
  const bool was_read = moraine.WithRows(metadata.where, false, [&](commit::RowTransaction& rows) {
    return read.Read(rows, shape, static_cast<int64_t>(table.table_id.index),
                     static_cast<int64_t>(snapshot.snapshot_id), ReadsAtHead(wrote, rows, snapshot),
                     shape == FileListRead::Shape::kFiles
                         ? InlinedDeletionTableIn(rows, table.table_id)
                         : std::string());
  });
  if (!was_read) return std::nullopt;
  const std::string& data_path =
      (reinterpret_cast<const TableEntryMethods*>(&table)
           ->*MemberAt<decltype(&TableEntryMethods::DataPath)>(registration.table_data_path))();
  const std::string separator = (manager->*MemberAt<decltype(&ManagerSlots::GetPathSeparator)>(
                                               registration.get_path_separator))(data_path);
  const FileListRead::LoadPath load_path = [&](const std::string& path, bool relative) {
    return commit::LoadedDuckLakePath(path, relative, data_path, separator);
  };
  auto files = finish(read, load_path);
  registration.native_file_lists.fetch_add(1, std::memory_order_relaxed);
  registration.files_pruned.fetch_add(read.pruned(), std::memory_order_relaxed);
  if (summarized) registration.summarized_file_lists.fetch_add(1, std::memory_order_relaxed);
  registration.file_summary_pages_skipped.fetch_add(read.pages_skipped(),
                                                    std::memory_order_relaxed);
  return files;
}

duckdb::vector<abi::DuckLakeFileListEntry> ManagerSlots::GetFilesForTable(
    abi::DuckLakeTableEntry& table, abi::DuckLakeSnapshot snapshot,
    const abi::FilterPushdownInfo* filter_info) {
  auto files = ReadFileList(this, FileListRead::Shape::kFiles, table, snapshot, filter_info,
                            [&](FileListRead& read, const FileListRead::LoadPath& load_path) {
                              return read.Finish(load_path, snapshot.snapshot_id);
                            });
  if (files) return std::move(*files);
  return CallOriginal<&ManagerSlots::GetFilesForTable>(this, abi::ManagerMethod::kGetFilesForTable,
                                                       table, snapshot, filter_info);
}

duckdb::vector<abi::DuckLakeFileListExtendedEntry> ManagerSlots::GetExtendedFilesForTable(
    abi::DuckLakeTableEntry& table, abi::DuckLakeSnapshot snapshot,
    const abi::FilterPushdownInfo* filter_info) {
  auto files = ReadFileList(this, FileListRead::Shape::kExtended, table, snapshot, filter_info,
                            [](FileListRead& read, const FileListRead::LoadPath& load_path) {
                              return read.FinishExtended(load_path);
                            });
  if (files) return std::move(*files);
  return CallOriginal<&ManagerSlots::GetExtendedFilesForTable>(
      this, abi::ManagerMethod::kGetExtendedFilesForTable, table, snapshot, filter_info);
}

// DuckLake's own commit loop, run inside the catalog. A commit that lost the
// head only to commits that changed the data of other tables is rebased onto
// the new head as it lands (commit::RowTransaction::AllowRebase), and
// DuckLake is told the id it landed at; DuckLake sees no lost race. Any other
// lost race goes to DuckLake's retry: it re-checks DuckLake's conflicts on the
// new head (answered from the store, QueryAtSnapshot) and re-writes its batch,
// holding from that first retry on the process's turn to commit to the store,
// which every rebasing commit of the process lands under too, so its retries
// lose only to other processes. ducklake_max_retry_count still bounds them. A
// true conflict ends the loop with DuckLake's own error, as it would anyway.
// A lake DuckLake's SQL serves gets DuckLake's loop with the user's settings,
// exactly as DuckLake would run it.
void ManagerSlots::FlushChangesServerSide(TransactionMethods& transaction,
                                          abi::DuckLakeSnapshot transaction_snapshot,
                                          const TransactionChanges& changes,
                                          const abi::DuckLakeRetryConfig& retry_config) {
  auto& registration = TheRegistration();
  auto run_commit_loop =
      MemberAt<decltype(&TransactionMethods::RunCommitLoop)>(registration.run_commit_loop);
  auto metadata = MetadataConnectionOf(this);
  if (!metadata.catalog) {
    (transaction.*run_commit_loop)(transaction_snapshot, changes, retry_config);
    return;
  }
  // Where contending commits take turns (the process's turn on RocksDB, the
  // commit queue on etcd), a retry waits for its turn, not for a backoff: it
  // can start at once. Without turns (an etcd handle without its watch),
  // retrying at once makes writers collide again in lockstep; DuckLake's
  // randomized backoff spreads them.
  abi::DuckLakeRetryConfig in_catalog = retry_config;
  if (metadata.where.store->ContendingCommitsTakeTurns()) {
    in_catalog.retry_wait_ms = 0;
    in_catalog.retry_backoff = 1.0;
  }
  auto& loop = CommitLoopState::Of(metadata.context);
  loop.Begin(registration.rebase, &metadata.where.store->commit_turn());
  struct EndLoop {
    CommitLoopState& loop;
    ~EndLoop() { loop.End(); }
  } end_loop{loop};
  try {
    (transaction.*run_commit_loop)(transaction_snapshot, changes, in_catalog);
  } catch (...) {
    // A loop that gave up (a conflict, its retries spent) gives up its turn
    // in the store's commit queue too, so that other writers need not wait.
    metadata.where.store->LeaveCommitQueue();
    throw;
  }
  if (const auto& rebased = loop.rebased()) {
    SetLastCommittedSnapshot(&transaction, *rebased);
    registration.rebased_commits.fetch_add(1, std::memory_order_relaxed);
    if (rebased->by_another_writer) {
      registration.group_landed_commits.fetch_add(1, std::memory_order_relaxed);
    }
  }
  registration.in_catalog_commits.fetch_add(1, std::memory_order_relaxed);
}

// Three of DuckLake's queries answered from the store: the six catalog
// queries of a commit of a new table or table version
// (catalog_query_results.h), the newest-inlined-table lookup of a commit that
// inlines rows (latest_inlined_table_result.h) and the conflict check after a
// lost race (conflict_check_result.h); every other query stays DuckLake's.
duckdb::unique_ptr<duckdb::QueryResult> ManagerSlots::QueryAtSnapshot(
    abi::DuckLakeSnapshot snapshot, std::string& query) {
  auto& registration = TheRegistration();
  auto original = [&] {
    return CallOriginal<&ManagerSlots::QueryAtSnapshot>(this, abi::ManagerMethod::kQueryAtSnapshot,
                                                        snapshot, query);
  };
  // Which of the queries moraine answers this is, if any.
  const auto catalog_query = registration.catalog_queries
                                 ? FindCatalogQuery(*registration.catalog_queries, query)
                                 : std::nullopt;
  const auto inlined_table_id =
      !catalog_query && registration.latest_inlined_table_query
          ? LatestInlinedTableQueryOf(registration.latest_inlined_table_query, query)
          : std::nullopt;
  if (!catalog_query && !inlined_table_id && query != registration.conflict_check_query) {
    return original();
  }
  if (!catalog_query && !inlined_table_id) {
    // A retry of a commit loop: its first read of the store comes after this.
    auto get_connection =
        reinterpret_cast<GetConnectionFunction>(registration.module->get_connection());
    CommitLoopState::Of(*get_connection(StateOf(this).ducklake_transaction).context)
        .TakeTurnForRetries();
  }
  auto metadata = MetadataConnectionOf(this);
  if (!metadata.catalog) return original();
  if (catalog_query) {
    const auto lake_catalog = LakeCatalogAt(this, metadata, snapshot);
    if (lake_catalog->needs_sql()) return original();
    // Inside a commit, DuckLake builds the catalog only to diff the
    // partition and sort keys it writes (DuckLakeTransactionState::
    // CommitChanges reads nothing else of it); answering the schemas, tables,
    // views and macros there would cost the whole lake's columns per commit.
    const bool keys_only = *catalog_query != CatalogQuery::kPartitions &&
                           *catalog_query != CatalogQuery::kSorts &&
                           CommitLoopState::Of(metadata.context).running();
    const commit::LakeCatalog nothing;
    registration.native_catalog_queries.fetch_add(1, std::memory_order_relaxed);
    return CatalogQueryResult(metadata.context, *catalog_query,
                              keys_only ? nothing : *lake_catalog);
  }
  auto& moraine = MoraineTransaction::Get(metadata.context, *metadata.catalog);
  if (inlined_table_id) {
    auto result = moraine.WithRows(metadata.where, false, [&](commit::RowTransaction& rows) {
      return LatestInlinedTableResult(metadata.context, rows, *inlined_table_id);
    });
    registration.native_inlined_table_lookups.fetch_add(1, std::memory_order_relaxed);
    return result;
  }
  auto result = moraine.WithRows(metadata.where, false, [&](commit::RowTransaction& rows) {
    const auto head = rows.LatestSnapshot();
    if (!head) throw duckdb::InvalidInputException("No snapshot found in DuckLake");
    return ConflictCheckResult(metadata.context, *head,
                               rows.ChangesAfter(static_cast<int64_t>(snapshot.snapshot_id)),
                               rows.AllTableStats());
  });
  registration.native_conflict_checks.fetch_add(1, std::memory_order_relaxed);
  return result;
}

// DuckLake's commit batch, its plain INSERTs and UPDATEs staged straight into
// the store's transaction (commit_batch_stager.h), the rest run as DuckDB
// SQL, in order. A lake DuckLake's SQL serves gets DuckLake's Execute.
duckdb::unique_ptr<duckdb::QueryResult> ManagerSlots::ExecuteCommitBatch(
    abi::DuckLakeSnapshot snapshot, std::string& batch) {
  auto& registration = TheRegistration();
  auto metadata = MetadataConnectionOf(this);
  if (!metadata.catalog) {
    return CallOriginal<&ManagerSlots::ExecuteCommitBatch>(this, abi::ManagerMethod::kExecute,
                                                           snapshot, batch);
  }
  (this->*MemberAt<decltype(&ManagerSlots::SubstituteSnapshotPlaceholders)>(
              registration.substitute_snapshot_placeholders))(snapshot, batch);
  (this->*MemberAt<decltype(&ManagerSlots::SubstituteCatalogPlaceholders)>(
              registration.substitute_catalog_placeholders))(batch);
  auto run_sql = [this](std::string sql) {
    using Query = duckdb::unique_ptr<duckdb::QueryResult> (ManagerSlots::*)(std::string&);
    return CallOriginalAs<Query>(this, abi::ManagerMethod::kQuery, sql);
  };
  if (CommitLoopState::Of(metadata.context).rebase_allowed()) {
    MoraineTransaction::Get(metadata.context, *metadata.catalog)
        .WithRows(metadata.where, false, [](commit::RowTransaction& rows) { rows.AllowRebase(); });
  }
  CommitBatchStager::Counts counts;
  auto result = CommitBatchStager(metadata.context, *metadata.catalog, metadata.where)
                    .Run(batch, run_sql, counts);
  registration.staged_batch_statements.fetch_add(counts.staged, std::memory_order_relaxed);
  registration.sql_batch_statements.fetch_add(counts.sql, std::memory_order_relaxed);
  return result;
}

}  // namespace

void NativeMetadataManager::EnsureRegistered() {
  auto& registration = TheRegistration();
  if (registration.registered.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(registration.mutex);
  if (registration.state != State::kWaiting) return;
  // The operator's switch for the whole process (every lake attached in it),
  // beside the per-lake META_NATIVE_MANAGER.
  if (const char* switch_value = std::getenv("MORAINE_NATIVE_MANAGER");
      switch_value && std::string_view(switch_value) == "off") {
    registration.state = State::kRefused;
    registration.reason = "turned off by MORAINE_NATIVE_MANAGER=off";
    return;
  }
  std::string why;
  auto module = DuckLakeModule::Find(&why);
  if (!module) {
    if (why == "DuckLake is not loaded in this process") return;  // an attach without DuckLake
    registration.state = State::kRefused;
    registration.reason = why;
    std::fprintf(stderr,
                 "moraine: the native DuckLake metadata manager is off, DuckLake's SQL serves "
                 "the catalog: %s\n",
                 why.c_str());
    return;
  }
  registration.module = std::move(module);
  const auto& build = registration.module->build();
  ManagerVtablePatch::SlotOf slot_of;
  for (size_t method = 0; method < abi::kManagerMethodCount; ++method) {
    slot_of[method] = registration.module->SlotOf(static_cast<abi::ManagerMethod>(method));
  }
  registration.vtable.emplace(std::vector<void*>(registration.module->vtable(),
                                                 registration.module->vtable() +
                                                     abi::kVtableHeaderWords + build.slots.size()),
                              slot_of);
  auto& vtable = *registration.vtable;
  // moraine's state lives in the object, so its deleting destructor must be
  // moraine's: a build without both destructors in their slots gets no manager.
  if (!vtable.Replace(abi::ManagerMethod::kDeletingDestructor, AddressOf(&ManagerSlots::Delete),
                      {abi::ManagerMethod::kCompleteDestructor})) {
    registration.state = State::kRefused;
    registration.reason =
        "the loaded DuckLake's manager has no virtual destructor where moraine "
        "expects it";
    std::fprintf(stderr, "moraine: the native DuckLake metadata manager is off: %s\n",
                 registration.reason.c_str());
    return;
  }
  using M = abi::ManagerMethod;
  vtable.Replace(M::kMetadataExists, AddressOf(&ManagerSlots::MetadataExists));
  vtable.Replace(M::kLoadDuckLake, AddressOf(&ManagerSlots::LoadDuckLake));
  vtable.Replace(M::kGetSnapshot, AddressOf(&ManagerSlots::GetSnapshot));
  vtable.Replace(M::kGetGlobalTableStats, AddressOf(&ManagerSlots::GetGlobalTableStats));
  vtable.Replace(M::kGetNextColumnId, AddressOf(&ManagerSlots::GetNextColumnId));
  vtable.Replace(M::kGetSnapshotAt, AddressOf(&ManagerSlots::GetSnapshotAt));
  vtable.Replace(M::kGetNetDataFileRowCount, AddressOf(&ManagerSlots::GetNetDataFileRowCount));
  vtable.Replace(M::kGetNetInlinedRowCount, AddressOf(&ManagerSlots::GetNetInlinedRowCount));
  vtable.Replace(M::kGetInlinedDeletionTableName,
                 AddressOf(&ManagerSlots::GetInlinedDeletionTableName));
  vtable.Replace(M::kReadInlinedData, AddressOf(&ManagerSlots::ReadInlinedData));
  vtable.Replace(M::kGetAllSnapshots, AddressOf(&ManagerSlots::GetAllSnapshots));
  vtable.Replace(M::kGetOldFilesForCleanup, AddressOf(&ManagerSlots::GetOldFilesForCleanup));
  registration.table_data_path = registration.module->Symbol(abi::kTableDataPathSymbol);
  registration.is_encrypted = registration.module->Symbol(abi::kIsEncryptedSymbol);
  registration.get_data_path = registration.module->Symbol(abi::kGetDataPathSymbol);
  registration.get_path_separator = registration.module->Symbol(abi::kGetPathSeparatorSymbol);
  registration.parse_quoted_list = registration.module->Symbol(abi::kParseQuotedListSymbol);
  if (registration.table_data_path && registration.is_encrypted &&
      registration.get_path_separator) {
    vtable.Replace(M::kGetFilesForTable, AddressOf(&ManagerSlots::GetFilesForTable));
    vtable.Replace(M::kGetExtendedFilesForTable,
                   AddressOf(&ManagerSlots::GetExtendedFilesForTable));
  }
  const bool catalog_replaced =
      registration.get_data_path && registration.get_path_separator &&
      registration.parse_quoted_list &&
      vtable.Replace(M::kGetCatalogForSnapshot, AddressOf(&ManagerSlots::GetCatalogForSnapshot));
  void* conflict_query_text = registration.module->Symbol(abi::kConflictCheckQuerySymbol);
  if (conflict_query_text &&
      vtable.Replace(M::kQueryAtSnapshot, AddressOf(&ManagerSlots::QueryAtSnapshot))) {
    registration.conflict_check_query = reinterpret_cast<std::string (*)()>(conflict_query_text)();
    registration.latest_inlined_table_query = reinterpret_cast<LatestInlinedTableQueryFunction>(
        registration.module->Symbol(abi::kLatestInlinedTableQuerySymbol));
    // The catalog queries are answered from the same catalog the replaced
    // GetCatalogForSnapshot serves, so only where that slot is moraine's.
    void* build_catalog = registration.module->Symbol(abi::kBuildCatalogForSnapshotSymbol);
    if (build_catalog && catalog_replaced) {
      std::string not_recorded;
      registration.catalog_queries = RecordCatalogQueryTexts(build_catalog, &not_recorded);
      if (!registration.catalog_queries) {
        std::fprintf(stderr, "moraine: DuckLake's catalog queries stay DuckLake's SQL: %s\n",
                     not_recorded.c_str());
      }
    }
  }
  registration.substitute_snapshot_placeholders =
      registration.module->Symbol(abi::kSubstituteSnapshotPlaceholdersSymbol);
  registration.substitute_catalog_placeholders =
      registration.module->Symbol(abi::kSubstituteCatalogPlaceholdersSymbol);
  if (registration.substitute_snapshot_placeholders &&
      registration.substitute_catalog_placeholders) {
    vtable.Replace(M::kExecute, AddressOf(&ManagerSlots::ExecuteCommitBatch), {M::kQuery});
  }
  registration.run_commit_loop = registration.module->Symbol(abi::kRunCommitLoopSymbol);
  registration.in_catalog_retry_reason.clear();
  if (!registration.run_commit_loop) {
    registration.in_catalog_retry_reason =
        std::string("DuckLake does not export ") + abi::kRunCommitLoopSymbol;
  } else if (kCodeFactsReadable) {
    registration.in_catalog_retry_reason = registration.module->CheckCode(
        abi::kExecuteRetrialsServerSideSymbol, abi::kExecuteRetrialsServerSideCode);
  }
  registration.in_catalog_retry = registration.in_catalog_retry_reason.empty();
  if (registration.in_catalog_retry &&
      !vtable.Replace(M::kFlushChangesServerSide,
                      AddressOf(&ManagerSlots::FlushChangesServerSide))) {
    registration.in_catalog_retry = false;
    registration.in_catalog_retry_reason =
        std::string("DuckLake has no ") + abi::ManagerMethodName(M::kFlushChangesServerSide);
  }
  if (registration.in_catalog_retry) {
    registration.rebase_reason =
        kCodeFactsReadable ? registration.module->CheckLastCommittedSnapshot() : std::string();
    registration.rebase = registration.rebase_reason.empty();
    if (!registration.rebase) {
      std::fprintf(stderr,
                   "moraine: commits that lose a race are retried by DuckLake, never rebased: %s\n",
                   registration.rebase_reason.c_str());
    }
  } else {
    std::fprintf(stderr,
                 "moraine: DuckLake's commits retry with DuckLake's client backoff, not inside "
                 "the catalog: %s\n",
                 registration.in_catalog_retry_reason.c_str());
  }
  try {
    reinterpret_cast<RegisterFunction>(registration.module->register_function())(
        "moraine", reinterpret_cast<void*>(&CreateManager));
  } catch (const std::exception& error) {
    // Another copy of moraine in this process (our host linked with the
    // loadable extension loaded too) registered first; its manager serves.
    registration.state = State::kRefused;
    registration.reason = std::string("DuckLake refused the registration: ") + error.what();
    return;
  }
  registration.inlined_filter_reason = InlinedReaderHook::Install(*registration.module);
  if (!registration.inlined_filter_reason.empty()) {
    std::fprintf(stderr, "moraine: scans of inlined rows read every live row: %s\n",
                 registration.inlined_filter_reason.c_str());
  }
  registration.state = State::kRegistered;
  registration.reason.clear();
  if (!vtable.kept().empty()) {
    std::fprintf(stderr, "moraine: DuckLake %s keeps its own answers of: %s\n",
                 std::string(build.commit).substr(0, 8).c_str(), vtable.kept().c_str());
  }
  registration.registered.store(true, std::memory_order_release);
}

NativeMetadataManager::Status NativeMetadataManager::CurrentStatus() {
  auto& registration = TheRegistration();
  std::lock_guard<std::mutex> lock(registration.mutex);
  Status status;
  status.state = registration.state;
  status.reason = registration.reason;
  if (registration.module) {
    status.ducklake_path = registration.module->path();
    const auto& build = registration.module->build();
    status.ducklake_build =
        std::string(build.commit).substr(0, 8) + " for DuckDB " + std::string(build.release);
  }
  if (registration.vtable) status.kept_methods = registration.vtable->kept();
#define MORAINE_LOAD_COUNTER(name, meaning) status.name = registration.name.load();
  MORAINE_NATIVE_MANAGER_COLUMNS(MORAINE_LOAD_COUNTER, MORAINE_NATIVE_MANAGER_SKIP,
                                 MORAINE_NATIVE_MANAGER_SKIP)
#undef MORAINE_LOAD_COUNTER
  status.in_catalog_retry = registration.in_catalog_retry;
  status.in_catalog_retry_reason = registration.in_catalog_retry_reason;
  status.rebase = registration.rebase;
  status.rebase_reason = registration.rebase_reason;
  status.inlined_filter_reason = registration.inlined_filter_reason;
  return status;
}

const char* NativeMetadataManager::StateName(State state) {
  switch (state) {
    case State::kWaiting:
      return "waiting";
    case State::kRegistered:
      return "registered";
    case State::kRefused:
      return "refused";
  }
  return "unknown";
}

}  // namespace moraine::ducklake_adapter
