#include "commit/rows/table_rows.h"

#include <utility>

#include "store/error.h"

namespace moraine::commit {
namespace {

// Whether `row` holds integers within every one of `bounds` (integer bounds,
// either end open): a scan's bounds narrow what it reads, they do not
// promise to filter.
bool HoldsWithin(const std::vector<ColumnBound>& bounds, const Row& row) {
  for (const ColumnBound& bound : bounds) {
    const int64_t* value = std::get_if<int64_t>(&row[bound.column]);
    if (!value || (bound.lower && *value < *bound.lower) ||
        (bound.upper && *value > *bound.upper)) {
      return false;
    }
  }
  return true;
}

}  // namespace

TableRows::TableRows(RowTransaction& rows, std::string_view table,
                     std::vector<std::string_view> columns)
    : rows_(rows), table_(table) {
  const auto spec = rows.FindTable(table);
  if (!spec) throw store::NotFoundError("table " + std::string(table) + " does not exist");
  auto index_of = [&](std::string_view name) -> std::optional<size_t> {
    for (size_t i = 0; i < spec->columns.size(); ++i) {
      if (spec->columns[i].name == name) return i;
    }
    return std::nullopt;
  };
  for (std::string_view name : columns) {
    const auto index = index_of(name);
    if (!index) {
      throw store::InvalidArgumentError(std::string(table) + " has no column " + std::string(name));
    }
    at_.push_back(*index);
  }
  begin_ = index_of("begin_snapshot");
  end_ = index_of("end_snapshot");
}

void TableRows::ForEachWithKey(int64_t key, const Visit& visit) {
  ForEachWithin({ColumnBound{.column = at_[0], .lower = key, .upper = key}}, visit);
}

void TableRows::ForEachWithKeyWithin(int64_t key, size_t named, int64_t lower, int64_t upper,
                                     const Visit& visit) {
  ForEachWithin({ColumnBound{.column = at_[0], .lower = key, .upper = key},
                 ColumnBound{.column = at_[named], .lower = lower, .upper = upper}},
                visit);
}

void TableRows::ForEachFrom(std::optional<int64_t> lowest, const Visit& visit) {
  std::vector<ColumnBound> bounds;
  if (lowest)
    bounds.push_back(ColumnBound{.column = at_[0], .lower = *lowest, .upper = std::nullopt});
  ForEachWithin(std::move(bounds), visit);
}

void TableRows::ForEachWithin(std::vector<ColumnBound> bounds, const Visit& visit) {
  const ScanRequest request{std::move(bounds), at_, false, nullptr};
  rows_.ScanProjected(table_, request, [&](RowHandle, const Row& row) {
    if (HoldsWithin(request.bounds, row)) visit(at_, row);
  });
}

void TableRows::ForEachLive(std::optional<int64_t> snapshot, bool at_head, const Visit& visit,
                            std::optional<int64_t> key) {
  std::vector<ColumnBound> bounds;
  if (key) bounds.push_back(ColumnBound{.column = at_[0], .lower = *key, .upper = *key});
  ForEachLiveBounded(snapshot, at_head, std::move(bounds), visit);
}

void TableRows::ForEachLiveWithin(std::optional<int64_t> snapshot, bool at_head, int64_t key,
                                  size_t named, int64_t lower, int64_t upper, const Visit& visit) {
  ForEachLiveBounded(snapshot, at_head,
                     {ColumnBound{.column = at_[0], .lower = key, .upper = key},
                      ColumnBound{.column = at_[named], .lower = lower, .upper = upper}},
                     visit);
}

void TableRows::ForEachLiveBounded(std::optional<int64_t> snapshot, bool at_head,
                                   std::vector<ColumnBound> bounds, const Visit& visit) {
  std::vector<size_t> wanted = at_;
  ScanRequest request{bounds, std::nullopt, false, nullptr};
  const bool versioned = begin_ && end_ && snapshot;
  if (versioned) {
    wanted.push_back(*begin_);
    wanted.push_back(*end_);
    if (at_head) {
      request.bounds.push_back(ColumnBound{
          .column = *end_, .lower = std::nullopt, .upper = std::nullopt, .is_null = true});
    }
  }
  request.columns = wanted;
  rows_.ScanProjected(table_, request, [&](RowHandle, const Row& row) {
    if (!HoldsWithin(bounds, row)) return;
    if (versioned) {
      const Cell& begin = row[*begin_];
      const Cell& end = row[*end_];
      if (!std::holds_alternative<int64_t>(begin) || std::get<int64_t>(begin) > *snapshot) return;
      if (std::holds_alternative<int64_t>(end) && std::get<int64_t>(end) <= *snapshot) return;
    }
    visit(at_, row);
  });
}

}  // namespace moraine::commit
