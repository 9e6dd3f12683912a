#include "ducklake_adapter/expiry_filter.h"

#include <charconv>

namespace moraine::ducklake_adapter {
namespace {

constexpr std::string_view kNewestKept =
    "snapshot_id != (SELECT MAX(snapshot_id) FROM {METADATA_CATALOG}.ducklake_snapshot) AND ";
constexpr std::string_view kVersionsOpen = "snapshot_id IN (";
constexpr std::string_view kOlderThanOpen = "snapshot_time < '";

// "1, 2, 3" (DuckLake joins the list's values with ", "), or nullopt for
// anything else.
std::optional<std::vector<int64_t>> ParseIds(std::string_view list) {
  std::vector<int64_t> ids;
  while (!list.empty()) {
    int64_t id = 0;
    const auto [end, error] = std::from_chars(list.data(), list.data() + list.size(), id);
    if (error != std::errc()) return std::nullopt;
    ids.push_back(id);
    list.remove_prefix(static_cast<size_t>(end - list.data()));
    if (list.empty()) break;
    if (!list.starts_with(", ")) return std::nullopt;
    list.remove_prefix(2);
  }
  return ids;
}

}  // namespace

ExpiryFilter ReadExpiryFilter(std::string_view filter) {
  if (!filter.starts_with(kNewestKept)) return {};
  std::string_view rest = filter.substr(kNewestKept.size());
  if (rest.starts_with(kOlderThanOpen) && rest.ends_with("'") &&
      rest.find('\'', kOlderThanOpen.size()) == rest.size() - 1) {
    return {ExpiryFilter::Kind::kOlderThan, {}};
  }
  if (rest.starts_with(kVersionsOpen) && rest.ends_with(")")) {
    auto ids = ParseIds(rest.substr(kVersionsOpen.size(), rest.size() - kVersionsOpen.size() - 1));
    if (ids) return {ExpiryFilter::Kind::kVersions, std::move(*ids)};
  }
  return {};
}

std::string ExcludingSnapshots(std::string_view filter, const std::vector<int64_t>& snapshots) {
  std::string narrowed(filter);
  if (snapshots.empty()) return narrowed;
  narrowed += " AND snapshot_id NOT IN (";
  for (size_t i = 0; i < snapshots.size(); ++i) {
    if (i) narrowed += ", ";
    narrowed += std::to_string(snapshots[i]);
  }
  narrowed += ")";
  return narrowed;
}

}  // namespace moraine::ducklake_adapter
