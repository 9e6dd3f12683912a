#include "commit/rows/inlined_table_shape.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <map>

#include "commit/rows/inlined_tables.h"
#include "store/error.h"
#include "store/key.h"
#include "store/key_range.h"
#include "store/records.pb.h"
#include "store/value_frame.h"

namespace moraine::commit::inlined {

using catalog::InlinedTableName;
using google::protobuf::internal::WireFormatLite;
using store::Kind;

namespace {

using ShapeRecord = store::v1::InlinedTableShapeRecord;
constexpr int kPlainColumnsField = ShapeRecord::kColumnsFieldNumber;
constexpr int kBaseField = ShapeRecord::kBaseSchemaVersionFieldNumber;
constexpr int kCountField = ShapeRecord::kColumnCountFieldNumber;
constexpr int kKeyedColumnsField = ShapeRecord::kKeyedColumnsFieldNumber;

// What a shape value says without its columns decoded.
struct ShapeHead {
  size_t plain_columns = 0;
  size_t keyed_columns = 0;
  std::optional<int64_t> base;
  uint64_t column_count = 0;
};

[[noreturn]] void ThrowUnparsable() {
  store::ThrowUnparsablePayload(Kind::kInlinedTableShape, "InlinedTableShapeRecord");
}

[[noreturn]] void ThrowMixedForms() {
  throw store::CorruptionError("an inlined table's shape mixes plain and keyed columns");
}

// Walks the payload's fields, counting column entries without decoding them.
ShapeHead ReadHead(std::string_view value) {
  const std::string_view payload = store::UnframePayload(Kind::kInlinedTableShape, value);
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(payload.data()),
                                            static_cast<int>(payload.size()));
  ShapeHead head;
  while (const uint32_t tag = in.ReadTag()) {
    const int field = WireFormatLite::GetTagFieldNumber(tag);
    const auto type = WireFormatLite::GetTagWireType(tag);
    if ((field == kBaseField || field == kCountField) && type == WireFormatLite::WIRETYPE_VARINT) {
      uint64_t number = 0;
      if (!in.ReadVarint64(&number)) ThrowUnparsable();
      if (field == kBaseField) head.base = static_cast<int64_t>(number);
      if (field == kCountField) head.column_count = number;
      continue;
    }
    // Counted as the parser keeps them: a field of another wire type is unknown to it.
    const bool message = type == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
    if (message && field == kPlainColumnsField) ++head.plain_columns;
    if (message && field == kKeyedColumnsField) ++head.keyed_columns;
    if (!WireFormatLite::SkipField(&in, tag)) ThrowUnparsable();
  }
  if (!in.ConsumedEntireMessage()) ThrowUnparsable();
  if (head.plain_columns > 0 && (head.keyed_columns > 0 || head.base)) ThrowMixedForms();
  return head;
}

ShapeRecord Decode(std::string_view value) {
  ShapeRecord shape;
  store::UnframeValue(Kind::kInlinedTableShape, value, &shape);
  return shape;
}

bool IsKeyed(const ShapeHead& head) { return !head.base && head.keyed_columns > 0; }

InlinedTableName NameAt(const InlinedTableName& name, int64_t schema_version) {
  return {InlinedTableName::kData, name.table_id, schema_version};
}

ShapeKey KeyOf(const store::v1::KeyedInlinedColumn& column) {
  return {column.column_order(), column.column_id()};
}

KeyedColumn Column(const store::v1::KeyedInlinedColumn& column) {
  return {KeyOf(column), column.name(), column.type()};
}

// The columns of keyed shape `base` with delta `delta` applied, checked
// against the delta's column count; `table` names the delta's table.
std::vector<KeyedColumn> Applied(const ShapeRecord& base, const ShapeRecord& delta,
                                 const std::string& table) {
  std::vector<KeyedColumn> columns;
  auto next = delta.keyed_columns().begin();
  const auto end = delta.keyed_columns().end();
  // Both lists are in key order: merge them, the delta's entry winning.
  for (const auto& column : base.keyed_columns()) {
    for (; next != end && KeyOf(*next) < KeyOf(column); ++next) {
      if (!next->removed()) columns.push_back(Column(*next));
    }
    if (next != end && KeyOf(*next) == KeyOf(column)) {
      if (!next->removed()) columns.push_back(Column(*next));
      ++next;
      continue;
    }
    columns.push_back(Column(column));
  }
  for (; next != end; ++next) {
    if (!next->removed()) columns.push_back(Column(*next));
  }
  if (columns.size() != delta.column_count()) {
    throw store::CorruptionError("the shape of " + table + " resolves to " +
                                 std::to_string(columns.size()) + " columns, its record says " +
                                 std::to_string(delta.column_count()));
  }
  return columns;
}

bool IsKeyed(const ShapeRecord& shape) {
  return !shape.has_base_schema_version() && shape.columns_size() == 0 &&
         shape.keyed_columns_size() > 0;
}

// The keyed columns of `shape` (keyed or delta) of `name`, a delta's base
// read by `read_base`.
std::vector<KeyedColumn> KeyedColumns(const InlinedTableName& name, const ShapeRecord& shape,
                                      const ShapeReader& read_base) {
  if (!shape.has_base_schema_version()) {
    std::vector<KeyedColumn> columns;
    for (const auto& column : shape.keyed_columns()) columns.push_back(Column(column));
    return columns;
  }
  const std::string table = catalog::FormatInlinedTableName(name);
  const InlinedTableName base_name = NameAt(name, shape.base_schema_version());
  const auto base_value = read_base(ExistenceKey(base_name).Encode());
  const auto base = base_value ? std::optional<ShapeRecord>(Decode(*base_value)) : std::nullopt;
  if (!base || !IsKeyed(*base)) {
    throw store::CorruptionError("the shape of " + table + " is a delta over " +
                                 catalog::FormatInlinedTableName(base_name) +
                                 (base ? ", whose shape is not keyed" : ", which is gone"));
  }
  return Applied(*base, shape, table);
}

void SetColumn(store::v1::KeyedInlinedColumn* out, const KeyedColumn& column) {
  out->set_column_order(column.key.column_order);
  out->set_column_id(column.key.column_id);
  out->set_name(column.name);
  out->set_type(column.type);
}

// The delta of `name` over the keyed shape the table's newest shape
// `previous` (keyed or a delta, named `previous_name`, read as `head`) is or
// extends, with `changes` applied; nullopt when it would hold more than
// kMaxShapeDeltaEntries entries. A keyed `previous` is not decoded: its
// columns are the base's.
std::optional<std::string> DeltaAfter(const InlinedTableName& name,
                                      const InlinedTableName& previous_name,
                                      std::string_view previous, const ShapeHead& head,
                                      const std::vector<ShapeChange>& changes) {
  std::map<ShapeKey, store::v1::KeyedInlinedColumn> entries;
  int64_t count = static_cast<int64_t>(head.keyed_columns);
  const int64_t base = head.base.value_or(previous_name.schema_version);
  if (head.base) {
    const auto shape = Decode(previous);
    for (const auto& entry : shape.keyed_columns()) entries.emplace(KeyOf(entry), entry);
    count = static_cast<int64_t>(head.column_count);
  }
  for (const ShapeChange& change : changes) {
    const auto found = entries.find(change.key);
    // A key the delta does not hold is in the base exactly when the table
    // held it before this change (the previous shape is the table's).
    const bool in_base = found != entries.end() ? !found->second.added() : change.existed_before;
    if (change.after) {
      store::v1::KeyedInlinedColumn entry;
      SetColumn(&entry, *change.after);
      entry.set_added(!in_base);
      entries[change.key] = entry;
    } else if (in_base) {
      store::v1::KeyedInlinedColumn entry;
      entry.set_column_order(change.key.column_order);
      entry.set_column_id(change.key.column_id);
      entry.set_removed(true);
      entries[change.key] = entry;
    } else if (found != entries.end()) {
      entries.erase(found);
    }
    count += (change.after ? 1 : 0) - (change.existed_before ? 1 : 0);
  }
  if (entries.size() > kMaxShapeDeltaEntries) return std::nullopt;
  if (count < 0) {
    throw store::CorruptionError("dropping columns of " +
                                 catalog::FormatInlinedTableName(previous_name) +
                                 " it does not hold");
  }
  store::v1::InlinedTableShapeRecord delta;
  delta.set_table_id(name.table_id);
  delta.set_schema_version(name.schema_version);
  delta.set_base_schema_version(base);
  delta.set_column_count(static_cast<uint64_t>(count));
  for (auto& [key, entry] : entries) *delta.add_keyed_columns() = std::move(entry);
  return store::FrameValue(Kind::kInlinedTableShape, delta);
}

// The table's newest schema version in ducklake_schema_versions, if any.
std::optional<int64_t> LastSchemaVersion(const StagedView& view, int64_t table_id) {
  const auto key = view.LastKeyIn(store::TableRange(
      store::Subspace::kSchemaVersion, Kind::kSchemaVersion, static_cast<uint64_t>(table_id)));
  if (!key) return std::nullopt;
  const auto value = view.Get(*key);
  if (!value) return std::nullopt;
  store::v1::SchemaVersionRecord record;
  store::UnframeValue(Kind::kSchemaVersion, *value, &record);
  if (!record.has_schema_version()) return std::nullopt;
  return record.schema_version();
}

store::KeyRange ShapesOf(int64_t table_id) {
  return store::PrefixRange(store::Subspace::kInlineData, Kind::kInlinedTableShape,
                            {static_cast<uint64_t>(table_id)});
}

}  // namespace

std::string EncodeKeyedShape(const InlinedTableName& name,
                             const std::vector<KeyedColumn>& columns) {
  store::v1::InlinedTableShapeRecord shape;
  shape.set_table_id(name.table_id);
  shape.set_schema_version(name.schema_version);
  for (const KeyedColumn& column : columns) SetColumn(shape.add_keyed_columns(), column);
  return store::FrameValue(Kind::kInlinedTableShape, shape);
}

std::vector<ColumnSpec> ShapeColumns(const InlinedTableName& name, std::string_view value,
                                     const ShapeReader& read_base) {
  const auto shape = Decode(value);
  std::vector<ColumnSpec> columns;
  if (shape.columns_size() > 0) {
    if (shape.has_base_schema_version() || shape.keyed_columns_size() > 0) ThrowMixedForms();
    for (const auto& column : shape.columns()) {
      columns.push_back({column.name(), column.type(), true});
    }
    return columns;
  }
  for (auto& column : KeyedColumns(name, shape, read_base)) {
    columns.push_back({std::move(column.name), std::move(column.type), true});
  }
  return columns;
}

size_t ShapeColumnCount(std::string_view value) {
  const ShapeHead head = ReadHead(value);
  if (head.base) return head.column_count;
  return head.plain_columns + head.keyed_columns;
}

std::optional<int64_t> ShapeBase(std::string_view value) { return ReadHead(value).base; }

bool IsKeyedShape(std::string_view value) { return IsKeyed(ReadHead(value)); }

bool StageChangedShape(
    StagedView& view, const InlinedTableName& name, const std::vector<ShapeChange>& changes,
    const std::function<std::optional<std::vector<KeyedColumn>>()>& all_columns) {
  const std::string key = ExistenceKey(name).Encode();
  if (view.Get(key)) {
    throw store::ConstraintError("table " + catalog::FormatInlinedTableName(name) +
                                 " already exists");
  }
  const auto newest = view.LastKeyIn(ShapesOf(name.table_id));
  const auto version =
      newest
          ? std::optional<int64_t>(static_cast<int64_t>(store::Key::Decode(*newest).component(1)))
          : std::nullopt;
  if (version && *version < name.schema_version &&
      LastSchemaVersion(view, name.table_id) == version) {
    const auto previous = view.Get(*newest);
    const auto head = previous ? std::optional<ShapeHead>(ReadHead(*previous)) : std::nullopt;
    if (head && (head->base || IsKeyed(*head))) {
      if (auto delta = DeltaAfter(name, NameAt(name, *version), *previous, *head, changes)) {
        view.Put(key, std::move(*delta));
        return true;
      }
    }
  }
  const auto columns = all_columns();
  if (!columns) return false;
  view.Put(key, EncodeKeyedShape(name, *columns));
  return true;
}

void StageDroppedShape(StagedView& view, const InlinedTableName& name) {
  if (name.kind != InlinedTableName::kData) return;  // a delete table has no shape
  const auto dropped = view.Get(ExistenceKey(name).Encode());
  // Only a keyed shape is a base; DuckLake's plain ones are passed over unparsed.
  if (!dropped || !IsKeyed(ReadHead(*dropped))) return;
  const ShapeRecord base = Decode(*dropped);
  store::KeyRange later = ShapesOf(name.table_id);
  later.begin = ExistenceKey(NameAt(name, name.schema_version + 1)).Encode();
  std::vector<std::pair<InlinedTableName, std::string>> dependents;
  view.Scan(later, [&](std::string_view shape_key, std::string_view value) {
    if (ShapeBase(value) != name.schema_version) return;
    const auto version = static_cast<int64_t>(store::Key::Decode(shape_key).component(1));
    dependents.emplace_back(NameAt(name, version), std::string(value));
  });
  for (const auto& [dependent, value] : dependents) {
    view.Put(ExistenceKey(dependent).Encode(),
             EncodeKeyedShape(dependent, Applied(base, Decode(value),
                                                 catalog::FormatInlinedTableName(dependent))));
  }
}

}  // namespace moraine::commit::inlined
