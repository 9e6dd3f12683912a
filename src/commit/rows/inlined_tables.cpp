#include "commit/rows/inlined_tables.h"

#include "store/error.h"
#include "store/value_frame.h"
#include "util/big_endian.h"

namespace moraine::commit::inlined {

using catalog::Cell;
using catalog::InlinedTableName;
using catalog::IsNull;
using catalog::Row;
using store::Kind;

namespace {

bool IsData(const InlinedTableName& name) { return name.kind == InlinedTableName::kData; }

uint64_t Id(const InlinedTableName& name, const Cell& cell, const char* column) {
  if (!std::holds_alternative<int64_t>(cell) || std::get<int64_t>(cell) < 0) {
    throw store::InvalidArgumentError(catalog::FormatInlinedTableName(name) + "." + column +
                                      " must be a non-negative BIGINT");
  }
  return static_cast<uint64_t>(std::get<int64_t>(cell));
}

std::optional<int64_t> OptionalBigint(const InlinedTableName& name, const Cell& cell,
                                      const char* column) {
  if (IsNull(cell)) return std::nullopt;
  if (!std::holds_alternative<int64_t>(cell)) {
    throw store::InvalidArgumentError(catalog::FormatInlinedTableName(name) + "." + column +
                                      " must be a BIGINT");
  }
  return std::get<int64_t>(cell);
}

Cell FromOptional(bool present, int64_t value) {
  return present ? Cell(value) : Cell(std::monostate{});
}

const std::vector<catalog::TableColumn>& FamilyColumns(const InlinedTableName& name) {
  return IsData(name) ? catalog::InlinedDataLeadingColumns() : catalog::InlinedDeleteColumns();
}

}  // namespace

store::Key ExistenceKey(const InlinedTableName& name) {
  const auto table = static_cast<uint64_t>(name.table_id);
  if (IsData(name)) {
    return store::Key::Current(Kind::kInlinedTableShape,
                               {table, static_cast<uint64_t>(name.schema_version)});
  }
  return store::Key::Current(Kind::kInlinedDeleteTable, {table});
}

store::KeyRange RowRange(const InlinedTableName& name) {
  const auto table = static_cast<uint64_t>(name.table_id);
  if (IsData(name)) {
    return store::PrefixRange(store::Subspace::kInlineData, Kind::kInlinedRowBatch,
                              {table, static_cast<uint64_t>(name.schema_version)});
  }
  return store::PrefixRange(store::Subspace::kInlineData, Kind::kInlinedDelete, {table});
}

store::Key RowKey(const InlinedTableName& name, const Row& row) {
  const auto table = static_cast<uint64_t>(name.table_id);
  if (row.size() < 3) {
    throw store::InvalidArgumentError(catalog::FormatInlinedTableName(name) +
                                      ": a row needs at least three columns");
  }
  if (IsData(name)) {
    // A row id has one version per begin snapshot (DuckLake updates an
    // inlined row by ending it and inserting the new version under the same
    // row id), so a batch holds a row id once.
    Id(name, row[0], "row_id");
    return BatchKey(name, static_cast<int64_t>(Id(name, row[1], "begin_snapshot")));
  }
  return store::Key::Current(Kind::kInlinedDelete,
                             {table, Id(name, row[0], "file_id"), Id(name, row[1], "row_id")});
}

store::Key BatchKey(const InlinedTableName& name, int64_t begin_snapshot) {
  return store::Key::Current(Kind::kInlinedRowBatch, {static_cast<uint64_t>(name.table_id),
                                                      static_cast<uint64_t>(name.schema_version),
                                                      static_cast<uint64_t>(begin_snapshot)});
}

int64_t BatchBeginSnapshot(std::string_view key) {
  // Subspace and kind bytes, then table id, schema version and begin
  // snapshot, fixed-width big-endian; any other size decodes (and throws)
  // in full.
  constexpr size_t kBatchKeySize = 2 + 3 * sizeof(uint64_t);
  const uint64_t begin = key.size() == kBatchKeySize
                             ? util::ReadBigEndian64(key.data() + key.size() - sizeof(uint64_t))
                             : store::Key::Decode(key).components()[2];
  return static_cast<int64_t>(begin);
}

TableSpec SpecOf(const InlinedTableName& name, std::string_view existence_value,
                 const ShapeReader& read_base) {
  TableSpec spec;
  spec.name = catalog::FormatInlinedTableName(name);
  for (const auto& column : FamilyColumns(name)) {
    spec.columns.push_back({std::string(column.name), "BIGINT", true});
  }
  if (IsData(name)) {
    for (auto& column : ShapeColumns(name, existence_value, read_base)) {
      spec.columns.push_back(std::move(column));
    }
  }
  return spec;
}

size_t UserColumnCount(const InlinedTableName& name, std::string_view existence_value) {
  return IsData(name) ? ShapeColumnCount(existence_value) : 0;
}

std::string ExistenceValue(const InlinedTableName& name, const TableSpec& spec) {
  const auto& family = FamilyColumns(name);
  const std::string table = catalog::FormatInlinedTableName(name);
  if (spec.columns.size() < family.size() ||
      (!IsData(name) && spec.columns.size() != family.size())) {
    throw store::InvalidArgumentError(table + " does not have the columns DuckLake gives it");
  }
  for (size_t i = 0; i < family.size(); ++i) {
    if (spec.columns[i].name != family[i].name || spec.columns[i].type != "BIGINT") {
      throw store::InvalidArgumentError(table + ": column " + std::to_string(i + 1) + " must be " +
                                        std::string(family[i].name) + " BIGINT");
    }
  }
  if (!IsData(name)) {
    store::v1::InlinedDeleteTableRecord marker;
    marker.set_table_id(name.table_id);
    return store::FrameValue(Kind::kInlinedDeleteTable, marker);
  }
  store::v1::InlinedTableShapeRecord shape;
  shape.set_table_id(name.table_id);
  shape.set_schema_version(name.schema_version);
  for (size_t i = family.size(); i < spec.columns.size(); ++i) {
    auto* column = shape.add_columns();
    column->set_name(spec.columns[i].name);
    column->set_type(spec.columns[i].type);
  }
  return store::FrameValue(Kind::kInlinedTableShape, shape);
}

std::string DeleteRowValue(const Row& row) {
  const InlinedTableName name{InlinedTableName::kDelete, 0, 0};
  if (row.size() != catalog::InlinedDeleteColumns().size()) {
    throw store::InvalidArgumentError("an inlined delete table has " +
                                      std::to_string(catalog::InlinedDeleteColumns().size()) +
                                      " columns, the row has " + std::to_string(row.size()));
  }
  store::v1::InlinedDeleteRecord record;
  record.set_file_id(static_cast<int64_t>(Id(name, row[0], "file_id")));
  record.set_row_id(static_cast<int64_t>(Id(name, row[1], "row_id")));
  if (auto begin = OptionalBigint(name, row[2], "begin_snapshot"))
    record.set_begin_snapshot(*begin);
  return store::FrameValue(Kind::kInlinedDelete, record);
}

Row ReadDeleteRow(std::string_view value) {
  store::v1::InlinedDeleteRecord record;
  store::UnframeValue(Kind::kInlinedDelete, value, &record);
  return {record.file_id(), record.row_id(),
          FromOptional(record.has_begin_snapshot(), record.begin_snapshot())};
}

InlinedRowBatch::Row BatchRowOf(const InlinedTableName& name, const Row& row, size_t user_columns) {
  const size_t leading = catalog::InlinedDataLeadingColumns().size();
  const std::string table = catalog::FormatInlinedTableName(name);
  if (row.size() != leading + user_columns) {
    throw store::InvalidArgumentError(table + " has " + std::to_string(leading + user_columns) +
                                      " columns, the row has " + std::to_string(row.size()));
  }
  InlinedRowBatch::Row out;
  out.row_id = static_cast<int64_t>(Id(name, row[0], "row_id"));
  if (!IsNull(row[2])) out.end_snapshot = static_cast<int64_t>(Id(name, row[2], "end_snapshot"));
  out.cells.reserve(user_columns);
  for (size_t i = leading; i < row.size(); ++i) {
    if (IsNull(row[i])) {
      out.cells.emplace_back();
    } else if (const auto* cell = std::get_if<catalog::OpaqueValue>(&row[i])) {
      out.cells.emplace_back(cell->bytes);
    } else {
      throw store::InvalidArgumentError(table + ": user columns take opaque values");
    }
  }
  return out;
}

}  // namespace moraine::commit::inlined
