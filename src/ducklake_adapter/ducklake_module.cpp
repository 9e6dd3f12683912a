#include "ducklake_adapter/ducklake_module.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "ducklake_adapter/known_ducklake_builds.h"

namespace moraine::ducklake_adapter {
namespace {

constexpr std::string_view kDuckLakeFile = "ducklake.duckdb_extension";

int RememberDuckLake(dl_phdr_info* info, size_t, void* found) {
  const std::string_view name = info->dlpi_name ? info->dlpi_name : "";
  if (name.size() >= kDuckLakeFile.size() &&
      name.substr(name.size() - kDuckLakeFile.size()) == kDuckLakeFile &&
      (name.size() == kDuckLakeFile.size() ||
       name[name.size() - kDuckLakeFile.size() - 1] == '/')) {
    *static_cast<std::string*>(found) = std::string(name);
    return 1;
  }
  return 0;
}

}  // namespace

std::optional<DuckLakeModule> DuckLakeModule::Find(std::string* why) {
  std::vector<ducklake_adapter::DuckLakeBuildAbi> builds;
  for (const auto& build : ducklake_adapter::kKnownDuckLakeBuilds) {
    if (std::string_view(build.release) == MORAINE_DUCKDB_RELEASE) builds.push_back(build);
  }
  return Find(builds, why);
}

std::optional<DuckLakeModule> DuckLakeModule::Find(
    std::span<const ducklake_adapter::DuckLakeBuildAbi> builds, std::string* why) {
  std::string path;
  dl_iterate_phdr(RememberDuckLake, &path);
  if (path.empty()) {
    *why = "DuckLake is not loaded in this process";
    return std::nullopt;
  }
  DuckLakeModule module;
  module.path_ = path;
  module.handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (!module.handle_) {
    *why = "the loaded DuckLake (" + path + ") gave no handle: " + dlerror();
    return std::nullopt;
  }
  auto symbol = [&](const char* name) -> void* {
    void* address = dlsym(module.handle_, name);
    if (!address && why->empty()) {
      *why = std::string("the loaded DuckLake does not export ") + name +
             ": it is no DuckLake build moraine knows";
    }
    return address;
  };
  why->clear();
  module.vtable_ = static_cast<void* const*>(symbol(ducklake_abi::kVtableSymbol));
  module.register_ = symbol(ducklake_abi::kRegisterSymbol);
  module.constructor_ = symbol(ducklake_abi::kConstructorSymbol);
  module.get_connection_ = symbol(ducklake_abi::kGetConnectionSymbol);
  if (!why->empty()) return std::nullopt;
  // The first build whose vtable the loaded one is; otherwise each build's
  // first difference, so that the reason says what changed.
  std::string differences;
  for (const auto& build : builds) {
    const std::string differs = CheckSlots(module.handle_, module.vtable_, build.slots);
    if (differs.empty()) {
      module.build_ = build;
      return module;
    }
    differences += std::string(differences.empty() ? "" : "; ") + "DuckLake " +
                   std::string(build.commit).substr(0, 8) + " for DuckDB " + build.release + ": " +
                   differs;
  }
  *why = "the loaded DuckLake is none of the " + std::to_string(builds.size()) +
         " DuckLake builds moraine knows for DuckDB " MORAINE_DUCKDB_RELEASE +
         (differences.empty() ? std::string() : " (" + differences + ")");
  return std::nullopt;
}

std::optional<size_t> DuckLakeModule::SlotOf(ducklake_abi::ManagerMethod method) const {
  const std::string_view symbol = ducklake_abi::ManagerMethodSymbol(method);
  for (size_t slot = 0; slot < build_.slots.size(); ++slot) {
    if (build_.slots[slot] == symbol) return slot;
  }
  return std::nullopt;
}

void* DuckLakeModule::Symbol(const char* name) const { return dlsym(handle_, name); }

std::span<const unsigned char> DuckLakeModule::FunctionCode(const char* name,
                                                            std::string* why) const {
  const void* function = dlsym(handle_, name);
  if (!function) {
    *why = "DuckLake does not export " + std::string(name);
    return {};
  }
  Dl_info info;
  void* symbol_entry = nullptr;
  if (!dladdr1(function, &info, &symbol_entry, RTLD_DL_SYMENT) || !symbol_entry) {
    *why = std::string(name) + " has no symbol entry";
    return {};
  }
  const auto* entry = static_cast<const ElfW(Sym)*>(symbol_entry);
  return {static_cast<const unsigned char*>(function), entry->st_size};
}

std::string DuckLakeModule::CheckCodeBytes(const char* name, const unsigned char* code,
                                           size_t size) const {
  std::string why;
  const auto function = FunctionCode(name, &why);
  if (function.empty()) return why;
  // The symbol's size first: reading `size` bytes of a shorter function
  // would compare whatever follows it.
  if (function.size() != size) {
    return std::string(name) + " is " + std::to_string(function.size()) + " bytes of code, not " +
           std::to_string(size);
  }
  if (std::memcmp(function.data(), code, size) != 0) {
    return std::string(name) + " is not the code the declared offsets were read from";
  }
  return "";
}

std::string DuckLakeModule::CheckLastCommittedSnapshot(
    const LastCommittedSnapshotPlace& place) const {
  std::string why;
  const auto constructor = FunctionCode(ducklake_abi::kLastCommittedSnapshotFunctionSymbol, &why);
  if (constructor.empty()) return why;
  const auto candidates = RdxLeaTargets(constructor);
  if (candidates.empty()) {
    return "DuckLakeLastCommittedSnapshotFunction's constructor names no bind in %rdx";
  }
  // The bind is a local function, with no symbol to size it by: the window
  // reaches past the reads in every build seen (they are within its first
  // 0x120 bytes), and stays inside DuckLake's text, which goes on far beyond
  // any one table function.
  constexpr size_t kBindWindow = 512;
  for (const unsigned char* bind : candidates) {
    why = CheckLastCommittedSnapshotRead({bind, kBindWindow}, place);
    if (why.empty()) return "";
  }
  return why;
}

std::string DuckLakeModule::CheckSlots(void* handle, const void* vtable,
                                       std::span<const char* const> symbols) {
  // The symbol's size says how many slots the class really has: one more or
  // one fewer virtual method and every later slot would be another method.
  Dl_info info;
  void* symbol_entry = nullptr;
  if (!dladdr1(vtable, &info, &symbol_entry, RTLD_DL_SYMENT) || !symbol_entry) {
    return "the DuckLake metadata manager's vtable has no symbol entry";
  }
  const size_t expected = (ducklake_abi::kVtableHeaderWords + symbols.size()) * sizeof(void*);
  const auto* entry = static_cast<const ElfW(Sym)*>(symbol_entry);
  if (entry->st_size != expected) {
    return "the DuckLake metadata manager's vtable is " + std::to_string(entry->st_size) +
           " bytes, not the " + std::to_string(expected) + " of the declared " +
           std::to_string(symbols.size()) + " slots";
  }
  auto* const* slots = static_cast<void* const*>(vtable) + ducklake_abi::kVtableHeaderWords;
  for (size_t slot = 0; slot < symbols.size(); ++slot) {
    void* method = dlsym(handle, symbols[slot]);
    if (!method) return "DuckLake does not export " + std::string(symbols[slot]);
    if (slots[slot] != method) {
      Dl_info held;
      const bool named = dladdr(slots[slot], &held) && held.dli_sname;
      return "slot " + std::to_string(slot) + " of the DuckLake metadata manager's vtable holds " +
             (named ? std::string(held.dli_sname) : std::string("an unnamed function")) +
             ", not the declared " + symbols[slot];
    }
  }
  return "";
}

}  // namespace moraine::ducklake_adapter
