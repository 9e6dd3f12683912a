// Shared helpers for tests of the catalog core: a fresh in-memory catalog and
// ways to count what a commit wrote.
#pragma once

#include <string>
#include <vector>

#include "commit/verbs/catalog.h"
#include "store/key.h"
#include "store/key_range.h"

namespace moraine::test {

inline std::unique_ptr<commit::Catalog> NewMemoryCatalog() {
  return commit::Catalog::Open(commit::CatalogOptions{.location = "memory://"});
}

// Keys of `kind` in the history subspace whose end_snapshot is `snapshot`:
// the versions that commit ended.
inline std::vector<store::Key> HistoryWrittenAt(commit::Catalog& catalog, store::Kind kind,
                                                catalog::Id snapshot) {
  std::vector<store::Key> keys;
  auto view = catalog.store().GetSnapshot();
  for (auto it = view->Scan(store::PrefixRange(store::Subspace::kHistory, kind)); it->Valid();
       it->Next()) {
    store::Key key = store::Key::Decode(it->key());
    auto components = key.components();
    if (static_cast<catalog::Id>(components.back()) == snapshot) keys.push_back(key);
  }
  return keys;
}

// Live (current) column records of a table whose begin_snapshot is `snapshot`.
inline size_t CurrentColumnsBegunAt(const catalog::TableState& table, catalog::Id snapshot) {
  size_t count = 0;
  table.columns.ForEach([&](catalog::Id, const catalog::ColumnRecord& column) {
    if (column.begin_snapshot() == snapshot) ++count;
    return true;
  });
  return count;
}

inline std::vector<catalog::ColumnDef> IntColumns(const std::vector<std::string>& names) {
  std::vector<catalog::ColumnDef> columns;
  for (const auto& name : names) columns.push_back(catalog::ColumnDef::Leaf(name, "int32"));
  return columns;
}

}  // namespace moraine::test
