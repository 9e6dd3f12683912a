// Fuzzes the decode of stored records into the rows of DuckLake's catalog
// tables: catalog::RowMapping for every fixed table at both catalog versions
// (the calls the staged-row scan makes: UnframeValue, then ReadRecord or
// ReadEntry per entry; and the scan's reads from the wire form, ReadPayload
// for a record per row and ReadEntriesPayload for a container's entries,
// which must agree with the parsed record), and the inlined-table codec
// (commit/rows/inlined_tables.h) for inlined data rows, inlined deletes and
// inlined table shapes.
//
// Input: a selector byte (which table), then a record payload, which the
// harness seals into a valid frame of that table's kind: the frame itself is
// the value-frame target's subject, this one is about what lies behind it.
//
// Properties: decoding succeeds or throws store::Error; a decoded row has the
// table's width and every non-NULL cell the column's type (a record never
// reads as something else); a row written back reads back the same row; its
// key, where it has one, is of the table's kind.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "catalog/catalog_version.h"
#include "catalog/ducklake_tables.h"
#include "catalog/row_mapping.h"
#include "commit/rows/inlined_tables.h"
#include "fuzz_contract.h"
#include "quiet_protobuf.h"
#include "sealed_frame.h"
#include "store/value_frame.h"

using moraine::fuzz::Decodes;
using moraine::fuzz::Require;
namespace catalog = moraine::catalog;
namespace inlined = moraine::commit::inlined;
namespace store = moraine::store;
using catalog::Row;
using catalog::RowMapping;
using catalog::RowShape;

namespace {

bool CellHasType(const catalog::Cell& cell, catalog::CellType type) {
  switch (type) {
    case catalog::CellType::kBigint:
    case catalog::CellType::kTimestampTz:
      return std::holds_alternative<int64_t>(cell);
    case catalog::CellType::kVarchar:
    case catalog::CellType::kUuid:
      return std::holds_alternative<std::string>(cell);
    case catalog::CellType::kBoolean:
      return std::holds_alternative<bool>(cell);
  }
  return false;
}

void CheckRow(const RowMapping& mapping, const Row& row) {
  const auto& columns = mapping.table().columns;
  Require(row.size() == columns.size(), "a decoded row has its table's width");
  for (size_t i = 0; i < row.size(); ++i) {
    Require(catalog::IsNull(row[i]) || CellHasType(row[i], columns[i].type),
            "a decoded cell has its column's type");
  }
  // Written back into a fresh record, the row reads back unchanged.
  auto fresh = mapping.NewRecord();
  Row again;
  if (mapping.shape() == RowShape::kEntry) {
    mapping.WriteContainer(row, fresh.get());
    mapping.WriteEntry(row, mapping.AddEntry(fresh.get()));
    again = mapping.ReadEntry(*fresh, 0);
  } else {
    mapping.WriteRecord(row, fresh.get());
    again = mapping.ReadRecord(*fresh);
  }
  Require(again == row, "a decoded row written back reads back the same");
  // A row that identifies itself is keyed in its table's kind.
  std::optional<store::Key> key;
  if (Decodes([&] { key = mapping.KeyOf(row); })) {
    Require(key->kind() == mapping.kind(), "a row is keyed in its table's kind");
    Require(store::Key::Decode(key->Encode()) == *key, "a row's key round-trips");
  }
  // The served label of the catalog version option (row_transaction.cpp).
  if (mapping.table().name == "ducklake_metadata" && row[0] == catalog::Cell("version") &&
      std::holds_alternative<std::string>(row[1])) {
    const std::string& label = std::get<std::string>(row[1]);
    catalog::ParseCatalogVersion(label);
    catalog::ServedCatalogVersionLabel(label);
  }
}

// The scan's read of a record from its wire form (ReadPayload) against the
// parsed record's: a payload the parser takes reads as the same row, every
// column or some, with the same write ordinal. (ReadPayload checks only the
// fields it reads, so a payload the parser refuses may still read.)
void CheckPayloadRead(const RowMapping& mapping, const std::string& value, bool parsed,
                      const google::protobuf::Message& record) {
  const std::string_view payload = store::UnframePayload(mapping.kind(), value);
  std::vector<bool> some(mapping.table().columns.size());
  for (size_t i = 0; i < some.size(); i += 2) some[i] = true;
  Row every, part;
  uint64_t ordinal = 0, part_ordinal = 0;
  const bool read = Decodes([&] {
    every = mapping.ReadPayload(payload, {}, &ordinal);
    part = mapping.ReadPayload(payload, some, &part_ordinal);
  });
  if (!parsed) return;
  Require(read, "a payload the parser takes reads from its wire form");
  Require(every == mapping.ReadRecord(record), "the wire-form read is the parsed record's row");
  Require(part == mapping.ReadRecord(record, some),
          "the wire-form read of some columns is the parsed record's");
  Require(ordinal == mapping.WriteOrdinal(record) && part_ordinal == ordinal,
          "the wire-form read has the parsed record's write ordinal");
}

// The same for a container's entries (ReadEntriesPayload): a container the
// parser takes reads as the parsed entries' rows, in order, every column or
// some, and from a range of entry keys only the entries within it.
void CheckEntriesPayloadRead(const RowMapping& mapping, const std::string& value, bool parsed,
                             const google::protobuf::Message& record) {
  const std::string_view payload = store::UnframePayload(mapping.kind(), value);
  std::vector<bool> some(mapping.table().columns.size());
  for (size_t i = 0; i < some.size(); i += 2) some[i] = true;
  std::vector<std::pair<Row, uint64_t>> every, part, within;
  const bool read = Decodes([&] {
    every = mapping.ReadEntriesPayload(payload, {}, INT64_MIN, INT64_MAX);
    part = mapping.ReadEntriesPayload(payload, some, INT64_MIN, INT64_MAX);
    within = mapping.ReadEntriesPayload(payload, {}, 1, 2);
  });
  if (!parsed) return;
  Require(read, "a container the parser takes reads from its wire form");
  const auto count = static_cast<size_t>(mapping.EntryCount(record));
  Require(every.size() == count && part.size() == count,
          "the wire-form read shows every entry of the parsed container");
  size_t next_within = 0;
  for (int i = 0; i < mapping.EntryCount(record); ++i) {
    const Row row = mapping.ReadEntry(record, i);
    Require(every[i].first == row && every[i].second == mapping.EntryWriteOrdinal(record, i),
            "the wire-form read of an entry is the parsed entry's row and ordinal");
    for (size_t column = 0; column < some.size(); ++column) {
      Require(part[i].first[column] == (some[column] ? row[column] : catalog::Cell{}),
              "the wire-form read of some columns is the parsed entry's");
    }
    const int key = mapping.entry_key_column();
    if (key < 0 || (std::get<int64_t>(row[key]) >= 1 && std::get<int64_t>(row[key]) <= 2)) {
      Require(next_within < within.size() && within[next_within++].first == row,
              "an entry within the key range is shown");
    }
  }
  Require(next_within == within.size(), "only the entries within the key range are shown");
}

void FuzzMapping(const RowMapping& mapping, std::string_view payload) {
  const std::string value = moraine::fuzz::SealFrame(store::kValueCodecVersion,
                                                     static_cast<uint8_t>(mapping.kind()), payload);
  auto record = mapping.NewRecord();
  std::vector<Row> rows;
  const bool decoded = Decodes([&] {
    store::UnframeValue(mapping.kind(), value, record.get());
    if (mapping.shape() == RowShape::kEntry) {
      for (int i = 0; i < mapping.EntryCount(*record); ++i) {
        rows.push_back(mapping.ReadEntry(*record, i));
      }
    } else {
      rows.push_back(mapping.ReadRecord(*record));
    }
  });
  if (mapping.shape() == RowShape::kRecord) CheckPayloadRead(mapping, value, decoded, *record);
  if (mapping.shape() == RowShape::kEntry) {
    CheckEntriesPayloadRead(mapping, value, decoded, *record);
  }
  if (!decoded) return;
  for (const Row& row : rows) CheckRow(mapping, row);
}

void FuzzInlinedDelete(std::string_view payload) {
  const std::string value = moraine::fuzz::SealFrame(
      store::kValueCodecVersion, static_cast<uint8_t>(store::Kind::kInlinedDelete), payload);
  Row row;
  if (!Decodes([&] { row = inlined::ReadDeleteRow(value); })) return;
  Require(row.size() == catalog::InlinedDeleteColumns().size(),
          "an inlined delete has three columns");
  std::string written;
  if (!Decodes([&] { written = inlined::DeleteRowValue(row); })) return;
  Require(inlined::ReadDeleteRow(written) == row,
          "an inlined delete written back reads back the same");
  const catalog::InlinedTableName name{catalog::InlinedTableName::kDelete, 7, 0};
  Decodes([&] { inlined::RowKey(name, row); });
}

// A batch of a table with three user columns: one that reads decodes to the
// same rows, and those rows encode to a batch that reads back the same.
void FuzzInlinedBatch(std::string_view payload) {
  constexpr size_t kUserColumns = 3;
  const std::string value = moraine::fuzz::SealFrame(
      store::kValueCodecVersion, static_cast<uint8_t>(store::Kind::kInlinedRowBatch), payload);
  std::optional<inlined::InlinedRowBatchView> view;
  if (!Decodes([&] { view.emplace(value, kUserColumns); })) return;
  std::optional<inlined::InlinedRowBatch> batch;
  if (!Decodes([&] { batch.emplace(inlined::InlinedRowBatch::Decode(value, kUserColumns)); }) ||
      batch->empty()) {
    return;
  }
  const std::string written = batch->Encode();
  const inlined::InlinedRowBatchView again(written, kUserColumns);
  Require(again.CellsComplete(), "an encoded batch holds one cell per row and column");
  Require(again.size() == view->size(), "an encoded batch keeps its rows");
  for (size_t column = 0; column < kUserColumns; ++column) {
    auto before = view->ColumnCells(column);
    auto after = again.ColumnCells(column);
    for (size_t row = 0; row < view->size(); ++row) {
      Require(again.row_id(row) == view->row_id(row) &&
                  again.end_snapshot(row) == view->end_snapshot(row) &&
                  before.Next() == after.Next(),
              "an encoded batch reads back the same rows");
    }
  }
}

void FuzzInlinedShape(std::string_view payload) {
  const catalog::InlinedTableName name{catalog::InlinedTableName::kData, 7, 3};
  const std::string value = moraine::fuzz::SealFrame(
      store::kValueCodecVersion, static_cast<uint8_t>(store::Kind::kInlinedTableShape), payload);
  // A delta's base is another value: none here, so a delta must fail typed.
  const inlined::ShapeReader no_base = [](const std::string&) {
    return std::optional<std::string>();
  };
  moraine::commit::TableSpec spec;
  if (!Decodes([&] { spec = inlined::SpecOf(name, value, no_base); })) return;
  Require(spec.columns.size() ==
              catalog::InlinedDataLeadingColumns().size() + inlined::UserColumnCount(name, value),
          "an inlined table's column count agrees with its declaration");
  Require(spec.columns.size() >= catalog::InlinedDataLeadingColumns().size(),
          "an inlined table's shape starts with its family's columns");
  std::string written;
  if (!Decodes([&] { written = inlined::ExistenceValue(name, spec); })) return;
  const auto again = inlined::SpecOf(name, written, no_base);
  Require(again.columns.size() == spec.columns.size(), "an inlined shape written back reads back");
  for (size_t i = 0; i < spec.columns.size(); ++i) {
    Require(again.columns[i].name == spec.columns[i].name &&
                again.columns[i].type == spec.columns[i].type,
            "an inlined shape's columns read back the same");
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  moraine::fuzz::QuietProtobuf();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& v1_0 = catalog::RowMappings(catalog::CatalogVersion::kV1_0);
  const auto& v1_1 = catalog::RowMappings(catalog::CatalogVersion::kV1_1);
  const std::string_view payload(reinterpret_cast<const char*>(data) + 1, size - 1);
  size_t target = data[0] % (v1_0.size() + v1_1.size() + 3);
  if (target < v1_0.size()) return FuzzMapping(v1_0[target], payload), 0;
  target -= v1_0.size();
  if (target < v1_1.size()) return FuzzMapping(v1_1[target], payload), 0;
  target -= v1_1.size();
  if (target == 0) FuzzInlinedBatch(payload);
  if (target == 1) FuzzInlinedDelete(payload);
  if (target == 2) FuzzInlinedShape(payload);
  return 0;
}
