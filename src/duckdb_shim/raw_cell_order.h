// How the raw cells the column codec writes (column_codec.h) order, for the
// bounds of inlined row batches' summaries (commit/rows/inlined_batch_summary.h):
// two cells of one plain type order as DuckDB orders their values. Integers
// of every width, BOOLEAN, DATE, TIME and the TIMESTAMPs by their numbers;
// VARCHAR and BLOB bytewise, a prefix first (DuckDB's string comparison).
// Floating point (NaN), HUGEINT, INTERVAL, UUID, TIME_TZ, serialized cells
// and cells of different types are not ordered.
//
// Thread-safety: stateless; Install is idempotent and safe from any thread.
#pragma once

#include <optional>
#include <string_view>

#include "commit/rows/inlined_batch_summary.h"

namespace moraine::duckdb_shim {

class RawCellOrder final : public commit::inlined::CellOrder {
 public:
  std::optional<bool> Less(std::string_view a, std::string_view b) const override;

  // Makes this the order the core's summaries use.
  static void Install();
};

}  // namespace moraine::duckdb_shim
