// DuckLake's next-column-id input, MAX(column_id) over every version of a
// table's columns, read from the ducklake_column keys alone: current keys are
// (table_id, column_id), history keys the same with the end snapshot after,
// so the greatest id of each subspace is its range's last key. Two seeks,
// whatever the number of ended versions.
//
// Thread-safety: as the view it reads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "catalog/records.h"
#include "store/key.h"
#include "store/key_range.h"

namespace moraine::catalog {

// `view` is anything with `std::optional<std::string> LastKeyIn(const
// store::KeyRange&) const` (a store::KvSnapshot, a transaction's staged
// view). nullopt when the table has no column rows.
template <class View>
std::optional<Id> MaxColumnIdIn(const View& view, Id table_id) {
  std::optional<Id> max;
  for (store::Subspace subspace : {store::Subspace::kCurrent, store::Subspace::kHistory}) {
    const auto key = view.LastKeyIn(
        store::TableRange(subspace, store::Kind::kColumn, static_cast<uint64_t>(table_id)));
    if (!key) continue;
    const auto column = static_cast<Id>(store::Key::Decode(*key).component(1));
    max = std::max(max.value_or(column), column);
  }
  return max;
}

}  // namespace moraine::catalog
