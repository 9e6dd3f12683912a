// The DuckLake extension loaded into this process, found without DuckLake's
// cooperation and identified, before any of it is used, as one of the
// DuckLake builds moraine knows (ducklake_adapter/known_ducklake_builds.h):
// the one whose generated vtable the loaded vtable is, slot for slot.
//
// How moraine reaches DuckLake's symbols: DuckDB loads extensions with
// dlopen(RTLD_LOCAL), so they are not in the global scope and moraine cannot
// link against them. Find() walks the loaded objects (dl_iterate_phdr) for a
// file named ducklake.duckdb_extension, takes a handle to it with
// dlopen(RTLD_NOLOAD) (which loads nothing and promotes nothing), and reads
// the exported symbols it needs with dlsym on that handle.
//
// Thread-safety: Find and CheckSlots are safe from any thread; a found module
// is immutable. The handle is never closed (DuckDB never unloads extensions).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "ducklake_adapter/ducklake_build_abi.h"
#include "ducklake_adapter/ducklake_manager_abi.h"
#include "ducklake_adapter/last_committed_snapshot_read.h"

namespace moraine::ducklake_adapter {

class DuckLakeModule {
 public:
  // The loaded DuckLake, or nullopt with `why` set: DuckLake is not loaded
  // (yet), a symbol is missing, or the vtable is none of `builds`' (those of
  // the DuckDB release moraine is compiled for, by default).
  static std::optional<DuckLakeModule> Find(std::string* why);
  static std::optional<DuckLakeModule> Find(
      std::span<const ducklake_adapter::DuckLakeBuildAbi> builds, std::string* why);

  // Whether the vtable at `vtable` (the exported symbol's address) holds, slot
  // by slot, the address dlsym gives for `symbols` in `handle`, and is exactly
  // that long. Returns "" when it does, otherwise the first difference.
  static std::string CheckSlots(void* handle, const void* vtable,
                                std::span<const char* const> symbols);

  // The build the loaded DuckLake is.
  const ducklake_adapter::DuckLakeBuildAbi& build() const { return build_; }
  // The slot of `method` in that build's vtable, or nullopt where it has none.
  std::optional<size_t> SlotOf(ducklake_abi::ManagerMethod method) const;

  // Whether the exported function `name` is, byte for byte, `code`. Returns
  // "" when it is, otherwise what differs.
  template <size_t N>
  std::string CheckCode(const char* name, const std::array<unsigned char, N>& code) const {
    return CheckCodeBytes(name, code.data(), N);
  }

  // Whether DuckLake's last committed snapshot id lives at `place`: a
  // function the constructor of ducklake_last_committed_snapshot() names in
  // %rdx reads it there (last_committed_snapshot_read.h). Returns "" when so,
  // otherwise what differs.
  std::string CheckLastCommittedSnapshot(
      const LastCommittedSnapshotPlace& place = {
          ducklake_abi::kTransactionCatalogOffset, ducklake_abi::kCatalogCommitLockOffset,
          ducklake_abi::kCatalogLastCommittedSnapshotOffset}) const;

  const std::string& path() const { return path_; }
  void* handle() const { return handle_; }
  // The exported vtable, from its offset-to-top word on.
  void* const* vtable() const { return vtable_; }
  void* register_function() const { return register_; }
  void* constructor() const { return constructor_; }
  void* get_connection() const { return get_connection_; }
  // Another exported symbol of the module, or nullptr.
  void* Symbol(const char* name) const;

 private:
  DuckLakeModule() = default;
  std::string CheckCodeBytes(const char* name, const unsigned char* code, size_t size) const;
  // The code of the exported function `name`, as long as its symbol says;
  // empty with `why` set when it is not exported or has no size.
  std::span<const unsigned char> FunctionCode(const char* name, std::string* why) const;

  std::string path_;
  void* handle_ = nullptr;
  void* const* vtable_ = nullptr;
  void* register_ = nullptr;
  void* constructor_ = nullptr;
  void* get_connection_ = nullptr;
  // By value: its spans are of the generated files' static arrays.
  ducklake_adapter::DuckLakeBuildAbi build_{};
};

}  // namespace moraine::ducklake_adapter
