#include "commit/rows/storage/scan_plan.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace moraine::commit {

using catalog::RowMapping;
using catalog::RowShape;
using store::Kind;

ScanPlan PlanScan(const RowMapping& mapping, const ScanRequest& request) {
  ScanPlan plan{{}, false, request.handles};
  for (const ColumnBound& bound : request.bounds) {
    if (!mapping.ordered_entries() ||
        bound.column != static_cast<size_t>(mapping.entry_key_column())) {
      continue;
    }
    if (bound.is_null) {  // an entry key is never NULL
      plan.entry_low = INT64_MAX;
      plan.entry_high = INT64_MIN;
    }
    if (bound.lower) plan.entry_low = std::max(plan.entry_low, *bound.lower);
    if (bound.upper) plan.entry_high = std::min(plan.entry_high, *bound.upper);
  }
  // A handle's row is what UPDATE builds its new row from: always whole.
  if (request.handles || !request.columns) return plan;
  plan.wanted.assign(mapping.table().columns.size(), false);
  for (size_t column : *request.columns) {
    if (column < plan.wanted.size()) plan.wanted[column] = true;
  }
  plan.key_only = mapping.KeyCovers(plan.wanted);
  return plan;
}

std::vector<store::KeyRange> PlanKeyRanges(const RowMapping& mapping,
                                           const std::vector<ColumnBound>& bounds) {
  std::vector<uint64_t> prefix;
  std::optional<std::pair<uint64_t, uint64_t>> next_range;
  // Options are keyed by a scope derived from two columns: never narrowed.
  if (mapping.shape() != RowShape::kEntry || mapping.kind() != Kind::kOption) {
    for (int column : mapping.key_columns()) {
      std::optional<int64_t> lower, upper;
      for (const auto& bound : bounds) {
        if (bound.column != static_cast<size_t>(column)) continue;
        if (bound.is_null) return {};  // key columns are never NULL
        if (bound.lower) lower = lower ? std::max(*lower, *bound.lower) : *bound.lower;
        if (bound.upper) upper = upper ? std::min(*upper, *bound.upper) : *bound.upper;
      }
      if (lower && upper && *lower > *upper) return {};  // nothing can match
      if (upper && *upper < 0) return {};                // ids are never negative
      if (lower && upper && *lower == *upper) {
        prefix.push_back(static_cast<uint64_t>(*lower));
        continue;
      }
      if (lower || upper) {
        next_range = {static_cast<uint64_t>(std::max<int64_t>(lower.value_or(0), 0)),
                      upper ? static_cast<uint64_t>(*upper) : UINT64_MAX};
      }
      break;
    }
  }
  // end_snapshot IS NULL: only live versions, which never sit in history.
  const bool live_only = std::any_of(bounds.begin(), bounds.end(), [&](const ColumnBound& bound) {
    return bound.is_null && static_cast<int>(bound.column) == mapping.end_column();
  });
  std::vector<store::KeyRange> ranges;
  for (store::Subspace subspace : mapping.Subspaces()) {
    if (live_only && subspace == store::Subspace::kHistory) continue;
    if (!next_range) {
      ranges.push_back(store::PrefixRange(subspace, mapping.kind(), prefix));
      continue;
    }
    auto low = prefix, high = prefix;
    low.push_back(next_range->first);
    high.push_back(next_range->second);
    ranges.push_back({store::PrefixRange(subspace, mapping.kind(), low).begin,
                      store::PrefixRange(subspace, mapping.kind(), high).end});
  }
  return ranges;
}

}  // namespace moraine::commit
