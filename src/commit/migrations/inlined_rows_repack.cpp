#include "commit/migrations/inlined_rows_repack.h"

#include <map>
#include <string>
#include <tuple>

#include "catalog/ducklake_tables.h"
#include "commit/rows/inlined_row_batch.h"
#include "commit/rows/inlined_tables.h"
#include "store/error.h"
#include "store/key.h"
#include "store/key_range.h"
#include "store/records.pb.h"
#include "store/value_frame.h"

namespace moraine::commit {

using store::Kind;

namespace {

// A data table's user column count, from its shape record.
size_t UserColumns(const store::KvSnapshot& snapshot, const catalog::InlinedTableName& name,
                   const std::string& row_key) {
  const auto shape = snapshot.Get(inlined::ExistenceKey(name).Encode());
  if (!shape) {
    throw store::CorruptionError("inlined row " + row_key + " belongs to no inlined table");
  }
  return inlined::UserColumnCount(name, *shape);
}

}  // namespace

InlinedRowsRepackCounts RepackInlinedRows(const store::KvSnapshot& snapshot,
                                          store::WriteBatch* batch) {
  InlinedRowsRepackCounts counts;
  // Batches by key; the old keys sort by (table, version, row id, begin), so
  // each batch receives its rows in row id order.
  std::map<std::string, inlined::InlinedRowBatch> batches;
  const auto range = store::PrefixRange(store::Subspace::kInlineData, Kind::kInlinedRow, {});
  std::tuple<uint64_t, uint64_t> table_of_columns{UINT64_MAX, UINT64_MAX};
  size_t user_columns = 0;
  for (auto it = snapshot.Scan(range); it->Valid(); it->Next()) {
    const auto key = store::Key::Decode(it->key());
    const auto c = key.components();
    const catalog::InlinedTableName name{catalog::InlinedTableName::kData,
                                         static_cast<int64_t>(c[0]), static_cast<int64_t>(c[1])};
    if (table_of_columns != std::tuple(c[0], c[1])) {
      user_columns = UserColumns(snapshot, name, key.ToString());
      table_of_columns = {c[0], c[1]};
    }
    store::v1::InlinedRowRecord record;
    store::UnframeValue(Kind::kInlinedRow, it->value(), &record);
    if (record.cells_size() != static_cast<int>(user_columns)) {
      throw store::CorruptionError("inlined row " + key.ToString() + " has " +
                                   std::to_string(record.cells_size()) + " cells, its table " +
                                   std::to_string(user_columns) + " user columns");
    }
    inlined::InlinedRowBatch::Row row;
    row.row_id = static_cast<int64_t>(c[2]);
    if (record.has_end_snapshot()) row.end_snapshot = record.end_snapshot();
    for (const auto& cell : record.cells()) {
      row.cells.push_back(cell.has_value() ? std::optional<std::string>(cell.value())
                                           : std::nullopt);
    }
    const std::string batch_key =
        store::Key::Current(Kind::kInlinedRowBatch, {c[0], c[1], c[3]}).Encode();
    auto found = batches.try_emplace(batch_key, user_columns).first;
    found->second.Append(std::move(row));
    batch->Delete(std::string(it->key()));
    ++counts.rows;
  }
  for (const auto& [key, rows] : batches) batch->Put(key, rows.Encode());
  counts.batches = batches.size();
  return counts;
}

}  // namespace moraine::commit
