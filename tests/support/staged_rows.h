// Rows the way DuckLake writes them through the staged-row path, shared by
// the RowTransaction tests: the catalog DuckLake initializes (in a new store,
// too), a ducklake_column row, and everything a store snapshot holds.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/ducklake_tables.h"
#include "catalog/row.h"
#include "commit/rows/row_transaction.h"
#include "store/key_range.h"
#include "store/kv_store.h"

namespace moraine::test {

inline const catalog::Cell kNull = std::monostate{};

// What DuckLake writes when it initializes a fresh catalog: the 28 tables,
// snapshot 0 and the version option.
inline void InitializeLikeDuckLake(commit::RowTransaction& txn) {
  for (const auto& table : catalog::CatalogTablesV1_0()) {
    commit::TableSpec spec{std::string(table.name), {}, {}};
    for (const auto& column : table.columns) {
      spec.columns.push_back(
          {std::string(column.name), std::string(catalog::CellTypeName(column.type)), true});
    }
    txn.CreateTable(spec);
  }
  txn.Insert("ducklake_snapshot",
             {int64_t{0}, int64_t{1700000000000000}, int64_t{0}, int64_t{1}, int64_t{0}});
  txn.Insert("ducklake_snapshot_changes",
             {int64_t{0}, std::string("created_schema:\"main\""), kNull, kNull, kNull});
  txn.Insert("ducklake_metadata", {std::string("version"), std::string("1.0"), kNull, kNull});
}

// A new RocksDB store at `location` holding the catalog DuckLake initializes.
inline std::shared_ptr<store::KvStore> NewStoreLikeDuckLake(const std::string& location) {
  std::shared_ptr<store::KvStore> store = store::OpenKvStore({.location = location});
  auto init = commit::BeginRowTransaction(store);
  InitializeLikeDuckLake(*init);
  init->Commit();
  return store;
}

// Every key and value `snapshot` holds, in key order.
inline std::map<std::string, std::string> AllKeyValues(const store::KvSnapshot& snapshot) {
  std::map<std::string, std::string> all;
  for (auto it = snapshot.Scan(store::KeyRange{}); it->Valid(); it->Next()) {
    all.emplace(it->key(), it->value());
  }
  return all;
}

// A ducklake_column row of an int32 column whose column_order is its id.
inline catalog::Row ColumnRow(int64_t table_id, int64_t column_id, const std::string& name,
                              int64_t begin, catalog::Cell end = kNull) {
  return {column_id,
          begin,
          end,
          table_id,
          column_id,
          name,
          std::string("int32"),
          kNull,
          std::string("NULL"),
          true,
          kNull,
          std::string("literal"),
          std::string("duckdb")};
}

// Every (handle, row) a projected scan of `table` visits, in order.
inline std::vector<std::pair<commit::RowHandle, catalog::Row>> ScanAll(
    commit::RowTransaction& txn, std::string_view table, const commit::ScanRequest& request = {}) {
  std::vector<std::pair<commit::RowHandle, catalog::Row>> rows;
  txn.ScanProjected(table, request, [&](commit::RowHandle handle, const catalog::Row& row) {
    rows.emplace_back(handle, row);
  });
  return rows;
}

}  // namespace moraine::test
