// Every DuckLake build moraine's native manager knows: one generated ABI file
// each (abi/, from scripts/generate_ducklake_abi.sh). To support another
// build, generate its file and add it here; a build whose struct layouts
// differ from moraine's declarations then fails to compile
// (declared_layout_check.cpp), never to run.
//
// Thread-safety: constants only.
#pragma once

#include "ducklake_adapter/abi/ducklake_5ef9e03d_v1_5_6.h"
#include "ducklake_adapter/abi/ducklake_d8a1881e_v1_5_5.h"
#include "ducklake_adapter/ducklake_build_abi.h"

namespace moraine::ducklake_adapter {

// DuckLake 1.5.5 as the registries serve it (duckdb-extension-ducklake 1.5.5),
// and the v1.5-variegata tip built for DuckDB 1.5.6 (scripts/build_ducklake.sh).
inline constexpr DuckLakeBuildAbi kKnownDuckLakeBuilds[] = {
    builds::kDuckLake_d8a1881e_v1_5_5,
    builds::kDuckLake_5ef9e03d_v1_5_6,
};

}  // namespace moraine::ducklake_adapter
