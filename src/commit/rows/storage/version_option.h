// The global `version` option of ducklake_metadata names the DuckLake catalog
// version (the catalog shape moraine serves;
// docs/design/rfc-0012-schema-evolution-and-catalog-version.md). DuckLake writes it once, when it
// initializes the catalog; afterwards only a deliberate raise may move it, so row writes must not
// touch it.
#pragma once

#include <string>
#include <string_view>

#include "catalog/row.h"

namespace moraine::commit {

inline constexpr std::string_view kVersionOption = "version";

// Whether `row` of `table` is the global `version` option (a ducklake_metadata
// row keyed "version" with no scope).
inline bool IsVersionOption(std::string_view table, const catalog::Row& row) {
  return table == "ducklake_metadata" && row.size() >= 3 &&
         row[0] == catalog::Cell(std::string(kVersionOption)) && catalog::IsNull(row[2]);
}

}  // namespace moraine::commit
