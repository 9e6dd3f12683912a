// How a scan of a fixed DuckLake table is planned: which key ranges it visits
// and how it reads each record it finds there. Planning only narrows; the
// caller still applies its filters exactly, so a plan may visit more rows
// than match, never fewer.
//
// Thread-safety: plain data, and functions of their arguments.
#pragma once

#include <cstdint>
#include <vector>

#include "catalog/row_mapping.h"
#include "commit/rows/row_transaction.h"
#include "store/key_range.h"

namespace moraine::commit {

// How a scan reads each record: which columns it decodes, whether from
// the key alone, and whether it hands out row handles.
struct ScanPlan {
  std::vector<bool> wanted;  // one flag per column; empty: every column
  bool key_only = false;
  bool handles = true;
  // Ordered entries: the inclusive range of entry keys the bounds allow
  // (column_id of column stats: the narrowing a key component gave).
  int64_t entry_low = INT64_MIN;
  int64_t entry_high = INT64_MAX;
};

// The plan for reading the records of `mapping` that `request` asks for.
ScanPlan PlanScan(const catalog::RowMapping& mapping, const ScanRequest& request);

// The key ranges a scan of `mapping` narrowed by `bounds` must visit: the
// longest run of equalities on leading key columns, then a range on the next,
// in each subspace the table lives in (history skipped for live-only scans).
// Empty when no row can match. A versioned table yields its current range
// first and its history range second.
std::vector<store::KeyRange> PlanKeyRanges(const catalog::RowMapping& mapping,
                                           const std::vector<ColumnBound>& bounds);

}  // namespace moraine::commit
