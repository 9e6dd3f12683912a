#include "ducklake_adapter/cleanup_filter.h"

namespace moraine::ducklake_adapter {

std::optional<std::string> CleanupFilterKeeping(std::string_view filter,
                                                const std::vector<int64_t>& kept) {
  constexpr std::string_view kByTime = "WHERE schedule_start < '";
  const bool by_time = filter.starts_with(kByTime) && filter.ends_with("'") &&
                       filter.find('\'', kByTime.size()) == filter.size() - 1;
  if (!filter.empty() && !by_time) return std::nullopt;
  std::string narrowed(filter);
  if (kept.empty()) return narrowed;
  narrowed += filter.empty() ? "WHERE data_file_id NOT IN (" : " AND data_file_id NOT IN (";
  for (size_t i = 0; i < kept.size(); ++i) {
    if (i) narrowed += ", ";
    narrowed += std::to_string(kept[i]);
  }
  narrowed += ")";
  return narrowed;
}

}  // namespace moraine::ducklake_adapter
