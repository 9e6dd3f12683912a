// Every row of the 28 ducklake_* tables of a store (current and ended
// versions, so equal dumps mean equal catalogs at every snapshot), as text,
// sorted per table, with the cells DuckLake itself makes random or
// writer-specific replaced by a placeholder: UUID columns (DuckLake writes
// UUID()), TIMESTAMPTZ columns (NOW()), and the created_by option (the
// writing program's build, DuckDB's for DuckLake, moraine's for the verbs).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "catalog/ducklake_tables.h"
#include "catalog/row_mapping.h"
#include "commit/rows/row_transaction.h"
#include "store/kv_store.h"

namespace moraine::test {

using NormalizedCatalog = std::map<std::string, std::vector<std::string>>;

inline std::string NormalizedCell(const catalog::TableColumn& column, const catalog::Cell& cell) {
  if (catalog::IsNull(cell)) return "NULL";
  if (column.type == catalog::CellType::kUuid) return "<uuid>";
  if (column.type == catalog::CellType::kTimestampTz) return "<time>";
  if (const auto* number = std::get_if<int64_t>(&cell)) return std::to_string(*number);
  if (const auto* flag = std::get_if<bool>(&cell)) return *flag ? "true" : "false";
  if (const auto* text = std::get_if<std::string>(&cell)) return "'" + *text + "'";
  return "<opaque>";
}

inline NormalizedCatalog DumpNormalized(std::shared_ptr<store::KvStore> store) {
  auto txn = commit::BeginRowTransaction(std::move(store));
  NormalizedCatalog dump;
  for (const auto& mapping : catalog::RowMappingsV1_0()) {
    const catalog::CatalogTable& table = mapping.table();
    auto& rows = dump[std::string(table.name)];
    txn->Scan(table.name, {}, [&](commit::RowHandle, const catalog::Row& row) {
      std::string line;
      const bool created_by =
          table.name == "ducklake_metadata" && row[0] == catalog::Cell(std::string("created_by"));
      for (size_t i = 0; i < row.size(); ++i) {
        std::string cell = NormalizedCell(table.columns[i], row[i]);
        if (created_by && table.columns[i].name == "value") cell = "<writer>";
        line += (i ? ", " : "") + std::string(table.columns[i].name) + "=" + cell;
      }
      rows.push_back(std::move(line));
    });
    std::sort(rows.begin(), rows.end());
  }
  // The inlined tables DuckLake declares alongside (their shapes; their rows
  // are user data, which neither side writes here).
  for (const std::string& name : txn->TableNames()) {
    if (catalog::FindRowMapping(catalog::CatalogVersion::kV1_0, name)) continue;
    auto spec = txn->FindTable(name);
    std::string line;
    for (const auto& column : spec->columns) {
      line += (line.empty() ? "" : ", ") + column.name + " " + column.type +
              (column.nullable ? "" : " NOT NULL");
    }
    dump["(inlined) " + name].push_back(line);
  }
  txn->Rollback();
  return dump;
}

// The tables whose rows differ, each with both sides' rows.
inline std::string DescribeDifferences(const NormalizedCatalog& verbs,
                                       const NormalizedCatalog& ducklake) {
  std::string out;
  for (const auto& [table, rows] : ducklake) {
    auto it = verbs.find(table);
    const std::vector<std::string> empty;
    const auto& theirs = it == verbs.end() ? empty : it->second;
    if (theirs == rows) continue;
    out += table + "\n  DuckLake:\n";
    for (const auto& row : rows) out += "    " + row + "\n";
    out += "  verbs:\n";
    for (const auto& row : theirs) out += "    " + row + "\n";
  }
  return out;
}

}  // namespace moraine::test
