// The compile-time proof that moraine's declarations of DuckLake's structs
// (duckdb_shim/ducklake_manager_abi.h, ducklake_catalog_abi.h) are laid out
// as every known DuckLake build of the DuckDB release this file is compiled
// for lays them out: the same list (declared_layouts.h), measured on both
// sides, must give the same numbers. A build that differs fails here.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ducklake_adapter/declared_layouts.h"
#include "ducklake_adapter/ducklake_catalog_abi.h"
#include "ducklake_adapter/ducklake_file_list_abi.h"
#include "ducklake_adapter/known_ducklake_builds.h"

namespace moraine::ducklake_adapter {
namespace {

using namespace ducklake_adapter::ducklake_abi;

// offsetof on classes that are not standard-layout (they hold std::string) is
// what the generator measures DuckLake's structs with, and GCC answers it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
#define MORAINE_SIZE(s) sizeof(s),
#define MORAINE_OFFSET(s, m) offsetof(s, m),
constexpr uint32_t kDeclaredLayout[] = {MORAINE_DUCKLAKE_LAYOUTS(MORAINE_SIZE, MORAINE_OFFSET)};
#undef MORAINE_SIZE
#undef MORAINE_OFFSET
#pragma GCC diagnostic pop

constexpr bool DeclaredAsBuilt(const DuckLakeBuildAbi& build) {
  return std::string_view(build.release) != MORAINE_DUCKDB_RELEASE ||
         std::ranges::equal(build.layout, kDeclaredLayout);
}

static_assert(std::ranges::all_of(kKnownDuckLakeBuilds, DeclaredAsBuilt),
              "a known DuckLake build lays out a struct otherwise than moraine declares it: "
              "compare its abi/ file's layout with declared_layouts.h");

}  // namespace
}  // namespace moraine::ducklake_adapter
