// What moraine knows of one DuckLake build — one DuckLake commit compiled
// against one DuckDB release — as scripts/generate_ducklake_abi.sh reads it
// from DuckLake's headers at that commit (the files in abi/, never typed by
// hand):
//   - slots: the mangled name of the method in each slot of
//     DuckLakeMetadataManager's vtable, in order; the vtable is exactly this
//     long;
//   - layout: the size of each struct and the offset of each member listed in
//     declared_layouts.h, in that list's order.
//
// Thread-safety: constants only.
#pragma once

#include <cstdint>
#include <span>

namespace moraine::ducklake_adapter {

struct DuckLakeBuildAbi {
  const char* commit;   // DuckLake's full commit id
  const char* release;  // the DuckDB release it was compiled against, e.g. "v1.5.5"
  std::span<const char* const> slots;
  std::span<const uint32_t> layout;
};

}  // namespace moraine::ducklake_adapter
