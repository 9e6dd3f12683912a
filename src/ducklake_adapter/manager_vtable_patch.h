// The vtable moraine's native manager objects point at: a copy of the loaded
// DuckLake build's DuckLakeMetadataManager vtable in which each method moraine
// answers holds moraine's function instead of DuckLake's. Slots are found by
// the method's mangled name in the build's ABI file (DuckLakeModule::SlotOf),
// never by number, so a build that moved a method still gets it replaced. A
// method the build lacks — gone, or with another signature, whose mangled
// name is then another — keeps DuckLake's function, and so does every method
// whose replacement calls a lacking one: only the answers that need what
// changed fall back to DuckLake's SQL.
//
// Thread-safety: none. Built and patched once, under the registration's lock,
// then only read.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "ducklake_adapter/ducklake_manager_abi.h"

namespace moraine::ducklake_adapter {

class ManagerVtablePatch {
 public:
  using SlotOf = std::array<std::optional<size_t>, ducklake_abi::kManagerMethodCount>;

  // `vtable`: the build's vtable words from its offset-to-top word on
  // (kVtableHeaderWords, then the slots); `slot_of`: each method's slot, or
  // nullopt where the build has no method of that signature. Throws
  // std::invalid_argument if a slot lies outside the vtable.
  ManagerVtablePatch(std::vector<void*> vtable, const SlotOf& slot_of);

  bool Has(ducklake_abi::ManagerMethod method) const;
  // DuckLake's own function for `method`, which the build must have.
  void* Original(ducklake_abi::ManagerMethod method) const;

  // Puts `replacement` into `method`'s slot when the build has `method` and
  // every method in `calls` (those the replacement calls on DuckLake), and
  // returns true. Otherwise leaves the slot to DuckLake, records `method` as
  // kept, and returns false.
  bool Replace(ducklake_abi::ManagerMethod method, void* replacement,
               std::initializer_list<ducklake_abi::ManagerMethod> calls = {});

  // What an object's vptr points at: the first slot of the patched copy.
  void* const* address_point() const { return patched_.data() + ducklake_abi::kVtableHeaderWords; }
  // The methods left to DuckLake, by name, with the lacking method each
  // needed: "GetGlobalTableStats (not in this build), ...". Empty when none.
  const std::string& kept() const { return kept_; }

 private:
  std::vector<void*> original_;
  std::vector<void*> patched_;
  SlotOf slot_of_;
  std::string kept_;
};

}  // namespace moraine::ducklake_adapter
