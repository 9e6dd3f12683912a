#include "duckdb_shim/native_metadata_manager.h"

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>

#include "duckdb/catalog/catalog_search_path.hpp"
#include "duckdb/common/exception.hpp"
#include "duckdb/main/client_data.hpp"
#include "duckdb/main/connection.hpp"
#include "duckdb/main/database_manager.hpp"
#include "duckdb_shim/ducklake_manager_abi.h"
#include "duckdb_shim/ducklake_module.h"
#include "duckdb_shim/moraine_catalog.h"
#include "duckdb_shim/moraine_transaction.h"

namespace moraine::duckdb_shim {
namespace {

namespace abi = ducklake_abi;

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

// The member functions that fill replaced slots. Never constructed: `this` is
// a DuckLake manager built by CreateManager. Being members, they have exactly
// the calling convention of the methods they replace (`this` first, a
// returned unique_ptr through the hidden result pointer).
class ManagerSlots {
 public:
  void Delete();
  duckdb::unique_ptr<abi::DuckLakeSnapshot> GetSnapshot();
  duckdb::vector<abi::DuckLakeGlobalStatsInfo> GetGlobalTableStats(abi::DuckLakeSnapshot snapshot,
                                                                   abi::TableIndex table_id);
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
  // The base vtable with moraine's slots, from its offset-to-top word on.
  void* vtable[abi::kVtableHeaderWords + abi::kManagerSlotCount] = {};
  std::atomic<bool> registered{false};
  std::atomic<uint64_t> managers_created{0};
  std::atomic<uint64_t> native_snapshot_reads{0};
  std::atomic<uint64_t> native_stats_reads{0};
};

Registration& TheRegistration() {
  static auto* registration = new Registration();  // never destroyed: managers may outlive statics
  return *registration;
}

void* OriginalSlot(size_t slot) {
  return TheRegistration().module->vtable()[abi::kVtableHeaderWords + slot];
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
  *static_cast<void**>(memory) = &registration.vtable[abi::kVtableHeaderWords];
  registration.managers_created.fetch_add(1, std::memory_order_relaxed);
  return duckdb::unique_ptr<ManagerObject>(static_cast<ManagerObject*>(memory));
}

void ManagerSlots::Delete() {
  (this->*MemberAt<void (ManagerSlots::*)()>(OriginalSlot(abi::kCompleteDestructorSlot)))();
  ::operator delete(static_cast<void*>(this));
}

// The moraine catalog DuckLake's metadata connection reads (DuckLake sets
// the connection's default catalog to it), if it is one and lets the native
// manager answer; nullptr otherwise.
MoraineCatalog* NativeCatalogOf(duckdb::ClientContext& metadata_context) {
  const auto& entry = duckdb::ClientData::Get(metadata_context).catalog_search_path->GetDefault();
  auto database =
      duckdb::DatabaseManager::Get(metadata_context).GetDatabase(metadata_context, entry.catalog);
  if (!database) return nullptr;
  auto& catalog = database->GetCatalog();
  if (catalog.GetCatalogType() != "moraine") return nullptr;
  auto& moraine = catalog.Cast<MoraineCatalog>();
  return moraine.native_manager() ? &moraine : nullptr;
}

// The metadata connection of the DuckLake transaction a manager serves, with
// its transaction begun, and the moraine catalog it reads if the native
// manager may answer for it.
struct MetadataConnection {
  duckdb::ClientContext& context;
  MoraineCatalog* catalog;
};

MetadataConnection MetadataConnectionOf(void* manager) {
  auto get_connection =
      reinterpret_cast<GetConnectionFunction>(TheRegistration().module->get_connection());
  auto& context = *get_connection(StateOf(manager).ducklake_transaction).context;
  return {context, NativeCatalogOf(context)};
}

duckdb::unique_ptr<abi::DuckLakeSnapshot> ManagerSlots::GetSnapshot() {
  auto metadata = MetadataConnectionOf(this);
  if (!metadata.catalog) {
    return (this->*MemberAt<decltype(&ManagerSlots::GetSnapshot)>(
                       OriginalSlot(abi::kGetSnapshotSlot)))();
  }
  auto head =
      MoraineTransaction::Get(metadata.context, *metadata.catalog)
          .WithRows(false, [](commit::RowTransaction& rows) { return rows.LatestSnapshot(); });
  if (!head) throw duckdb::InvalidInputException("No snapshot found in DuckLake");
  TheRegistration().native_snapshot_reads.fetch_add(1, std::memory_order_relaxed);
  return duckdb::unique_ptr<abi::DuckLakeSnapshot>(new abi::DuckLakeSnapshot{
      static_cast<uint64_t>(head->snapshot_id), static_cast<uint64_t>(head->schema_version),
      static_cast<uint64_t>(head->next_catalog_id), static_cast<uint64_t>(head->next_file_id)});
}

// DuckLake's query reads the stats rows as the metadata transaction sees them
// (they are not versioned; the snapshot only names the transaction's).
duckdb::vector<abi::DuckLakeGlobalStatsInfo> ManagerSlots::GetGlobalTableStats(
    abi::DuckLakeSnapshot snapshot, abi::TableIndex table_id) {
  auto metadata = MetadataConnectionOf(this);
  if (!metadata.catalog) {
    return (this->*MemberAt<decltype(&ManagerSlots::GetGlobalTableStats)>(
                       OriginalSlot(abi::kGetGlobalTableStatsSlot)))(snapshot, table_id);
  }
  auto stats = MoraineTransaction::Get(metadata.context, *metadata.catalog)
                   .WithRows(false, [&](commit::RowTransaction& rows) {
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

}  // namespace

void NativeMetadataManager::EnsureRegistered() {
  auto& registration = TheRegistration();
  if (registration.registered.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(registration.mutex);
  if (registration.state != State::kWaiting) return;
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
  std::memcpy(registration.vtable, registration.module->vtable(), sizeof(registration.vtable));
  void** slots = &registration.vtable[abi::kVtableHeaderWords];
  slots[abi::kDeletingDestructorSlot] = AddressOf(&ManagerSlots::Delete);
  slots[abi::kGetSnapshotSlot] = AddressOf(&ManagerSlots::GetSnapshot);
  slots[abi::kGetGlobalTableStatsSlot] = AddressOf(&ManagerSlots::GetGlobalTableStats);
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
  registration.state = State::kRegistered;
  registration.reason.clear();
  registration.registered.store(true, std::memory_order_release);
}

NativeMetadataManager::Status NativeMetadataManager::CurrentStatus() {
  auto& registration = TheRegistration();
  std::lock_guard<std::mutex> lock(registration.mutex);
  Status status;
  status.state = registration.state;
  status.reason = registration.reason;
  if (registration.module) status.ducklake_path = registration.module->path();
  status.managers_created = registration.managers_created.load();
  status.native_snapshot_reads = registration.native_snapshot_reads.load();
  status.native_stats_reads = registration.native_stats_reads.load();
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

}  // namespace moraine::duckdb_shim
