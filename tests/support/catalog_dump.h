// Every row of every ducklake_* table of a store, as DuckLake reads them: the
// before/after of the store-format migration tests.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "catalog/row_mapping.h"
#include "commit/rows/row_transaction.h"
#include "store/kv_store.h"

namespace moraine::test {

inline std::map<std::string, std::vector<catalog::Row>> DumpCatalog(const std::string& location) {
  auto store = std::shared_ptr<store::KvStore>(
      store::OpenKvStore({.location = location, .read_only = true}));
  auto txn = commit::BeginRowTransaction(store);
  std::map<std::string, std::vector<catalog::Row>> dump;
  for (const auto& mapping : catalog::RowMappingsV1_0()) {
    auto& rows = dump[std::string(mapping.table().name)];
    txn->Scan(mapping.table().name, {},
              [&](commit::RowHandle, const catalog::Row& row) { rows.push_back(row); });
  }
  return dump;
}

}  // namespace moraine::test
