#include "commit/inlined_tables.h"

#include "store/error.h"
#include "store/payload_fields.h"
#include "store/value_frame.h"

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
    return store::PrefixRange(store::Subspace::kInlineData, Kind::kInlinedRow,
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
    // A row id has one version per begin snapshot: DuckLake updates an inlined
    // row by ending it and inserting the new version under the same row id.
    return store::Key::Current(Kind::kInlinedRow,
                               {table, static_cast<uint64_t>(name.schema_version),
                                Id(name, row[0], "row_id"), Id(name, row[1], "begin_snapshot")});
  }
  return store::Key::Current(Kind::kInlinedDelete,
                             {table, Id(name, row[0], "file_id"), Id(name, row[1], "row_id")});
}

TableSpec SpecOf(const InlinedTableName& name, std::string_view existence_value) {
  TableSpec spec;
  spec.name = catalog::FormatInlinedTableName(name);
  for (const auto& column : FamilyColumns(name)) {
    spec.columns.push_back({std::string(column.name), "BIGINT", true});
  }
  if (IsData(name)) {
    store::v1::InlinedTableShapeRecord shape;
    store::UnframeValue(Kind::kInlinedTableShape, existence_value, &shape);
    for (const auto& column : shape.columns()) {
      spec.columns.push_back({column.name(), column.type(), true});
    }
  }
  return spec;
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

std::string RowValue(const InlinedTableName& name, const Row& row, size_t columns) {
  if (row.size() != columns) {
    throw store::InvalidArgumentError(catalog::FormatInlinedTableName(name) + " has " +
                                      std::to_string(columns) + " columns, the row has " +
                                      std::to_string(row.size()));
  }
  if (!IsData(name)) {
    store::v1::InlinedDeleteRecord record;
    record.set_file_id(static_cast<int64_t>(Id(name, row[0], "file_id")));
    record.set_row_id(static_cast<int64_t>(Id(name, row[1], "row_id")));
    if (auto begin = OptionalBigint(name, row[2], "begin_snapshot"))
      record.set_begin_snapshot(*begin);
    return store::FrameValue(Kind::kInlinedDelete, record);
  }
  store::v1::InlinedRowRecord record;
  record.set_row_id(static_cast<int64_t>(Id(name, row[0], "row_id")));
  if (auto begin = OptionalBigint(name, row[1], "begin_snapshot"))
    record.set_begin_snapshot(*begin);
  if (auto end = OptionalBigint(name, row[2], "end_snapshot")) record.set_end_snapshot(*end);
  for (size_t i = 3; i < row.size(); ++i) {
    auto* cell = record.add_cells();
    if (IsNull(row[i])) continue;
    if (!std::holds_alternative<catalog::OpaqueValue>(row[i])) {
      throw store::InvalidArgumentError(catalog::FormatInlinedTableName(name) +
                                        ": user columns take opaque values");
    }
    cell->set_value(std::get<catalog::OpaqueValue>(row[i]).bytes);
  }
  return store::FrameValue(Kind::kInlinedRow, record);
}

Row ReadRow(const InlinedTableName& name, std::string_view value) {
  Row row;
  if (!IsData(name)) {
    store::v1::InlinedDeleteRecord record;
    store::UnframeValue(Kind::kInlinedDelete, value, &record);
    row = {record.file_id(), record.row_id(),
           FromOptional(record.has_begin_snapshot(), record.begin_snapshot())};
    return row;
  }
  store::v1::InlinedRowRecord record;
  store::UnframeValue(Kind::kInlinedRow, value, &record);
  row = {record.row_id(), FromOptional(record.has_begin_snapshot(), record.begin_snapshot()),
         FromOptional(record.has_end_snapshot(), record.end_snapshot())};
  for (const auto& cell : record.cells()) {
    row.push_back(cell.has_value() ? Cell(catalog::OpaqueValue{cell.value()})
                                   : Cell(std::monostate{}));
  }
  return row;
}

Row ReadLeadingColumns(const InlinedTableName& name, std::string_view value) {
  using store::FieldRead;
  using WireFormat = store::PayloadWireFormat;
  if (!IsData(name)) return ReadRow(name, value);  // a delete row is all leading columns
  // The fields of InlinedRowRecord (store/records.proto): row_id,
  // begin_snapshot and end_snapshot are 1 to 3, in column order; cells 4.
  constexpr int kRowId = 1, kEnd = 3, kCells = 4;
  Row row = {int64_t{0}, std::monostate{}, std::monostate{}};
  const bool parsed = store::ForEachPayloadField(
      store::UnframePayload(Kind::kInlinedRow, value),
      [&](int number, auto wire_type, auto& input) {
        // A field of another wire type than declared is an unknown field to
        // the parser: skipped here too.
        if (wire_type == WireFormat::WIRETYPE_VARINT && number >= kRowId && number <= kEnd) {
          uint64_t cell = 0;
          if (!input.ReadVarint64(&cell)) return FieldRead::kFailed;
          row[number - kRowId] = static_cast<int64_t>(cell);
          return FieldRead::kRead;
        }
        if (number == kCells && wire_type == WireFormat::WIRETYPE_LENGTH_DELIMITED) {
          row.emplace_back(std::monostate{});
        }
        return FieldRead::kSkip;
      });
  if (!parsed) {
    store::ThrowUnparsablePayload(Kind::kInlinedRow, store::v1::InlinedRowRecord().GetTypeName());
  }
  return row;
}

}  // namespace moraine::commit::inlined
