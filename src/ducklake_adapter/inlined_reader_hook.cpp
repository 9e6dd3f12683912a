#include "ducklake_adapter/inlined_reader_hook.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <optional>

#include "ducklake_adapter/ducklake_manager_abi.h"
#include "ducklake_adapter/ducklake_module.h"
#include "ducklake_adapter/vtable_slot_search.h"

namespace moraine::ducklake_adapter {
namespace {

using TryInitializeScanFunction = bool (*)(duckdb::BaseFileReader*, duckdb::ClientContext&,
                                           duckdb::GlobalTableFunctionState&,
                                           duckdb::LocalTableFunctionState&);

TryInitializeScanFunction original_try_initialize_scan = nullptr;
thread_local const InlinedReaderHook::Scan* current_scan = nullptr;

// DuckLake's reader's TryInitializeScan, with the reader's scan published to
// this thread while it runs (and the outer one restored after, also when it
// throws).
bool TryInitializeScanWithFilters(duckdb::BaseFileReader* reader, duckdb::ClientContext& context,
                                  duckdb::GlobalTableFunctionState& global_state,
                                  duckdb::LocalTableFunctionState& local_state) {
  InlinedReaderHook::Scan scan;
  scan.filters = reader->filters.get();
  scan.rows_must_stay = reader->deletion_filter != nullptr || !reader->expression_map.empty();
  if (scan.filters) {
    for (const auto& index : reader->column_indexes) {
      const auto column = index.GetPrimaryIndex();
      scan.column_types.push_back(column < reader->columns.size()
                                      ? reader->columns[column].type
                                      : duckdb::LogicalType(duckdb::LogicalTypeId::INVALID));
    }
  }
  struct Publish {
    const InlinedReaderHook::Scan* outer = current_scan;
    explicit Publish(const InlinedReaderHook::Scan* scan) { current_scan = scan; }
    ~Publish() { current_scan = outer; }
  } publish(&scan);
  return original_try_initialize_scan(reader, context, global_state, local_state);
}

// The byte offset of a virtual method's slot from its class's vtable address
// point: an Itanium pointer to a virtual member function holds 1 + that.
template <class Method>
std::optional<size_t> SlotOffset(Method method) {
  struct Representation {
    uintptr_t function;
    ptrdiff_t adjustment;
  } representation;
  static_assert(sizeof(Method) == sizeof(Representation));
  std::memcpy(&representation, &method, sizeof(representation));
  if ((representation.function & 1) == 0 || representation.adjustment != 0) return std::nullopt;
  return representation.function - 1;
}

struct RelroRange {
  const char* path;
  uintptr_t begin = 0, end = 0;
};

int FindRelro(dl_phdr_info* info, size_t, void* data) {
  auto& range = *static_cast<RelroRange*>(data);
  if (!info->dlpi_name || std::strcmp(info->dlpi_name, range.path) != 0) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& header = info->dlpi_phdr[i];
    if (header.p_type != PT_GNU_RELRO) continue;
    range.begin = info->dlpi_addr + header.p_vaddr;
    range.end = range.begin + header.p_memsz;
  }
  return 1;
}

}  // namespace

std::string InlinedReaderHook::Install(const DuckLakeModule& module) {
  static bool installed = false;
  if (installed) return {};
  void* try_initialize = module.Symbol(ducklake_abi::kInlinedReaderTryInitializeScanSymbol);
  void* scan = module.Symbol(ducklake_abi::kInlinedReaderScanSymbol);
  if (!try_initialize || !scan) return "DuckLake does not export its inlined reader's methods";
  const auto try_initialize_at = SlotOffset(&duckdb::BaseFileReader::TryInitializeScan);
  const auto scan_at = SlotOffset(&duckdb::BaseFileReader::Scan);
  if (!try_initialize_at || !scan_at) return "DuckDB's reader methods are not virtual here";
  RelroRange relro{module.path().c_str()};
  dl_iterate_phdr(FindRelro, &relro);
  if (relro.begin == relro.end) return "the loaded DuckLake has no read-only relocated data";
  // The vtable's address point is where both slots hold DuckLake's methods.
  const auto found = VtableSlotSearch{.begin = relro.begin,
                                      .end = relro.end,
                                      .first_offset = *try_initialize_at,
                                      .first = try_initialize,
                                      .second_offset = *scan_at,
                                      .second = scan}
                         .Run();
  if (found.places != 1) {
    return "the inlined reader's vtable is at " + std::to_string(found.places) +
           " places of the loaded DuckLake, not one";
  }
  void** slot = found.first_slot;
  const long page = sysconf(_SC_PAGESIZE);
  auto* page_start = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(slot) &
                                             ~static_cast<uintptr_t>(page - 1));
  if (mprotect(page_start, static_cast<size_t>(page), PROT_READ | PROT_WRITE) != 0) {
    return std::string("the inlined reader's vtable cannot be written: ") + std::strerror(errno);
  }
  original_try_initialize_scan = reinterpret_cast<TryInitializeScanFunction>(try_initialize);
  // One aligned word: a reader initializing a scan on another thread sees
  // DuckLake's function or the wrapper, each of which reads the rows.
  __atomic_store_n(slot, reinterpret_cast<void*>(&TryInitializeScanWithFilters), __ATOMIC_RELEASE);
  mprotect(page_start, static_cast<size_t>(page), PROT_READ);
  installed = true;
  return {};
}

const InlinedReaderHook::Scan* InlinedReaderHook::Current() { return current_scan; }

}  // namespace moraine::ducklake_adapter
