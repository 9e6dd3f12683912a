#include "catalog/row_mapping.h"

#include <google/protobuf/stubs/common.h>

#include <algorithm>
#include <string>

#include "store/error.h"
#include "store/payload_fields.h"
#include "store/record_types.h"
#include "store/value_frame.h"
#include "util/big_endian.h"

namespace moraine::catalog {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using WireFormatLite = store::PayloadWireFormat;
using store::Kind;

namespace {

constexpr std::string_view kMetadataTable = "ducklake_metadata";

std::string Describe(const CatalogTable& table, std::string_view column) {
  return std::string(table.name) + "." + std::string(column);
}

bool CellMatches(const Cell& cell, CellType type) {
  switch (type) {
    case CellType::kBigint:
    case CellType::kTimestampTz:
      return std::holds_alternative<int64_t>(cell);
    case CellType::kVarchar:
    case CellType::kUuid:
      return std::holds_alternative<std::string>(cell);
    case CellType::kBoolean:
      return std::holds_alternative<bool>(cell);
  }
  return false;
}

void SetField(Message* message, const FieldDescriptor* field, const Cell& cell,
              const std::string& column) {
  const Reflection* reflection = message->GetReflection();
  if (IsNull(cell)) {
    if (!field->has_presence()) {
      throw store::InvalidArgumentError(column + " cannot be NULL in moraine's catalog");
    }
    reflection->ClearField(message, field);
    return;
  }
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT64:
      reflection->SetInt64(message, field, std::get<int64_t>(cell));
      return;
    case FieldDescriptor::CPPTYPE_BOOL:
      reflection->SetBool(message, field, std::get<bool>(cell));
      return;
    case FieldDescriptor::CPPTYPE_STRING:
      reflection->SetString(message, field, std::get<std::string>(cell));
      return;
    default:
      throw store::InvalidArgumentError(column + " has no cell type moraine can store");
  }
}

Cell GetField(const Message& message, const FieldDescriptor* field) {
  const Reflection* reflection = message.GetReflection();
  if (field->has_presence() && !reflection->HasField(message, field)) return std::monostate{};
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT64:
      return reflection->GetInt64(message, field);
    case FieldDescriptor::CPPTYPE_BOOL:
      return reflection->GetBool(message, field);
    case FieldDescriptor::CPPTYPE_STRING:
      return reflection->GetString(message, field);
    default:
      throw store::CorruptionError(std::string("record field ") + std::string(field->name()) +
                                   " has an unexpected type");
  }
}

}  // namespace

RowMapping::RowMapping(const CatalogTable& table, Kind kind, RowShape shape,
                       std::vector<std::string_view> key_columns, std::string_view entry_key,
                       bool unique_entry_key)
    : table_(&table), kind_(kind), shape_(shape), unique_entry_key_(unique_entry_key) {
  const auto& descriptor = *store::RecordPrototype(kind).GetDescriptor();
  if (shape == RowShape::kEntry) {
    entries_ = descriptor.FindFieldByName("entries");
    if (!entries_ || !entries_->is_repeated() || !entries_->message_type()) {
      throw std::logic_error(std::string(table.name) + ": container has no entries field");
    }
  }
  for (const TableColumn& column : table.columns) {
    const FieldDescriptor* field = descriptor.FindFieldByName(std::string(column.name));
    const bool in_container = shape != RowShape::kEntry || field != nullptr;
    if (!in_container) field = entries_->message_type()->FindFieldByName(std::string(column.name));
    if (!field) throw std::logic_error(Describe(table, column.name) + " has no record field");
    fields_.push_back({field, in_container});
  }
  for (std::string_view name : key_columns) {
    for (size_t i = 0; i < table.columns.size(); ++i) {
      if (table.columns[i].name == name) key_columns_.push_back(static_cast<int>(i));
    }
  }
  if (key_columns_.size() != key_columns.size()) {
    throw std::logic_error(std::string(table.name) + ": unknown key column");
  }
  if (!entry_key.empty()) {
    for (size_t i = 0; i < table.columns.size(); ++i) {
      if (table.columns[i].name == entry_key) entry_key_ = static_cast<int>(i);
    }
    if (entry_key_ < 0 || shape != RowShape::kEntry || fields_[entry_key_].in_container ||
        fields_[entry_key_].field->cpp_type() != FieldDescriptor::CPPTYPE_INT64 ||
        fields_[entry_key_].field->has_presence()) {
      throw std::logic_error(std::string(table.name) + ": bad entry key column");
    }
  }
  const std::string kOrdinalField = "write_ordinal";
  if (shape == RowShape::kRecord) ordinal_ = descriptor.FindFieldByName(kOrdinalField);
  if (shape == RowShape::kEntry) {
    ordinal_ = entries_->message_type()->FindFieldByName(kOrdinalField);
  }
  if (ordinal_ && ordinal_->cpp_type() != FieldDescriptor::CPPTYPE_UINT64) {
    throw std::logic_error(std::string(table.name) + ": write_ordinal is not a uint64");
  }
  if (shape == RowShape::kRecord || shape == RowShape::kEntry) IndexFieldNumbers();
  if (shape == RowShape::kRecord && store::GetKindInfo(kind).versioned) {
    for (size_t i = 0; i < table.columns.size(); ++i) {
      if (table.columns[i].name == "end_snapshot") end_column_ = static_cast<int>(i);
    }
  }
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (table.columns[i].name == "begin_snapshot") begin_column_ = static_cast<int>(i);
    if (table.columns[i].name == "end_snapshot") lifetime_end_column_ = static_cast<int>(i);
  }
  if (lifetime_end_column_ < 0) begin_column_ = -1;
}

void RowMapping::Validate(const Row& row) const {
  if (row.size() != table_->columns.size()) {
    throw store::InvalidArgumentError(std::string(table_->name) + " has " +
                                      std::to_string(table_->columns.size()) +
                                      " columns, the row has " + std::to_string(row.size()));
  }
  for (size_t i = 0; i < row.size(); ++i) {
    const TableColumn& column = table_->columns[i];
    if (IsNull(row[i])) {
      if (!column.nullable) {
        throw store::ConstraintError(Describe(*table_, column.name) + " cannot be NULL");
      }
    } else if (!CellMatches(row[i], column.type)) {
      throw store::InvalidArgumentError(Describe(*table_, column.name) + " expects " +
                                        std::string(CellTypeName(column.type)));
    }
  }
}

uint64_t RowMapping::KeyComponent(const Row& row, int column) const {
  const std::string_view name = table_->columns[column].name;
  const Cell& cell = row[column];
  if (table_->name == kMetadataTable) {
    // Options are keyed by scope: global (scope NULL), schema or table.
    if (name == "scope") {
      if (IsNull(cell)) return static_cast<uint64_t>(store::OptionScope::kGlobal);
      const auto& scope = std::get<std::string>(cell);
      if (scope == "schema") return static_cast<uint64_t>(store::OptionScope::kSchema);
      if (scope == "table") return static_cast<uint64_t>(store::OptionScope::kTable);
      throw store::InvalidArgumentError("ducklake_metadata.scope '" + scope +
                                        "' is not global, schema or table");
    }
    if (IsNull(cell)) return 0;
  }
  if (!std::holds_alternative<int64_t>(cell)) {
    throw store::InvalidArgumentError(Describe(*table_, name) +
                                      " identifies the row and cannot be NULL");
  }
  const int64_t value = std::get<int64_t>(cell);
  if (value < 0) {
    throw store::InvalidArgumentError(Describe(*table_, name) + " cannot be negative");
  }
  return static_cast<uint64_t>(value);
}

store::Key RowMapping::KeyOf(const Row& row) const {
  Validate(row);
  std::vector<uint64_t> components;
  for (int column : key_columns_) components.push_back(KeyComponent(row, column));
  if (versioned() && !IsNull(row[end_column_])) {
    components.push_back(KeyComponent(row, end_column_));
    return store::Key(store::Subspace::kHistory, kind_, components);
  }
  return store::Key(store::GetKindInfo(kind_).home, kind_, components);
}

std::vector<store::Subspace> RowMapping::Subspaces() const {
  if (versioned()) return {store::Subspace::kCurrent, store::Subspace::kHistory};
  return {store::GetKindInfo(kind_).home};
}

std::unique_ptr<Message> RowMapping::NewRecord() const { return store::NewRecord(kind_); }

void RowMapping::WriteRecord(const Row& row, Message* record) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    SetField(record, fields_[i].field, row[i], Describe(*table_, table_->columns[i].name));
  }
}

Row RowMapping::ReadRecord(const Message& record) const {
  Row row;
  row.reserve(fields_.size());
  for (const ColumnField& column : fields_) row.push_back(GetField(record, column.field));
  return row;
}

Row RowMapping::ReadRecord(const Message& record, const std::vector<bool>& wanted) const {
  Row row(fields_.size());
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (wanted[i]) row[i] = GetField(record, fields_[i].field);
  }
  return row;
}

void RowMapping::IndexFieldNumbers() {
  for (size_t i = 0; i < fields_.size(); ++i) {
    const FieldDescriptor& field = *fields_[i].field;
    // ReadField decodes these wire forms only.
    if (field.is_repeated() || (field.type() != FieldDescriptor::TYPE_INT64 &&
                                field.type() != FieldDescriptor::TYPE_BOOL &&
                                field.type() != FieldDescriptor::TYPE_STRING)) {
      throw std::logic_error(Describe(*table_, table_->columns[i].name) +
                             " is not a singular int64, bool or string field");
    }
    std::vector<int>& column_of =
        fields_[i].in_container ? column_of_field_ : column_of_entry_field_;
    // Descriptors resolve a field's type lazily, behind a call_once: asked
    // once per cell of a scan, that showed in the scan's profile.
    fields_[i].type = field.type();
    fields_[i].wire_type =
        WireFormatLite::WireTypeForFieldType(static_cast<WireFormatLite::FieldType>(field.type()));
    if (!field.has_presence()) {
      (fields_[i].in_container ? zero_columns_ : entry_zero_columns_)
          .push_back(static_cast<int>(i));
    }
    const auto number = static_cast<size_t>(field.number());
    if (column_of.size() <= number) column_of.resize(number + 1, -1);
    column_of[number] = static_cast<int>(i);
  }
}

void RowMapping::SetZeroValues(Row& row, const std::vector<bool>& wanted, bool entry_fields) const {
  for (const int i : entry_fields ? entry_zero_columns_ : zero_columns_) {
    if (!wanted.empty() && !wanted[i]) continue;
    switch (fields_[i].type) {
      case FieldDescriptor::TYPE_INT64:
        row[i] = int64_t{0};
        break;
      case FieldDescriptor::TYPE_BOOL:
        row[i] = false;
        break;
      default:
        row[i] = std::string();
    }
  }
}

store::FieldRead RowMapping::ReadField(const std::vector<int>& column_of_field, int number,
                                       WireFormatLite::WireType wire_type,
                                       google::protobuf::io::CodedInputStream& input,
                                       const std::vector<bool>& wanted, Row& row) const {
  using store::FieldRead;
  const auto at = static_cast<size_t>(number);
  const int column = at < column_of_field.size() ? column_of_field[at] : -1;
  // A field of another wire type than its declared one is an unknown field
  // to the parser, which keeps it aside: so is it here, skipped.
  if (column < 0 || (!wanted.empty() && !wanted[column]) ||
      wire_type != fields_[column].wire_type) {
    return FieldRead::kSkip;
  }
  if (wire_type == WireFormatLite::WIRETYPE_VARINT) {
    uint64_t value = 0;
    if (!input.ReadVarint64(&value)) return FieldRead::kFailed;
    if (fields_[column].type == FieldDescriptor::TYPE_BOOL) {
      row[column] = value != 0;
    } else {
      row[column] = static_cast<int64_t>(value);
    }
    return FieldRead::kRead;
  }
  uint32_t length = 0;
  std::string text;
  if (!input.ReadVarint32(&length) || !input.ReadString(&text, static_cast<int>(length)) ||
      !google::protobuf::internal::IsStructurallyValidUTF8(text.data(),
                                                           static_cast<int>(text.size()))) {
    return FieldRead::kFailed;
  }
  row[column] = std::move(text);
  return FieldRead::kRead;
}

Row RowMapping::ReadPayload(std::string_view payload, const std::vector<bool>& wanted,
                            uint64_t* ordinal) const {
  using store::FieldRead;
  Row row(fields_.size());
  SetZeroValues(row, wanted, false);
  *ordinal = 0;
  const int ordinal_number = ordinal_ ? ordinal_->number() : -1;
  const bool parsed =
      store::ForEachPayloadField(payload, [&](int number, auto wire_type, auto& input) {
        if (number == ordinal_number && wire_type == WireFormatLite::WIRETYPE_VARINT) {
          return input.ReadVarint64(ordinal) ? FieldRead::kRead : FieldRead::kFailed;
        }
        return ReadField(column_of_field_, number, wire_type, input, wanted, row);
      });
  if (!parsed) store::ThrowUnparsablePayload(kind_, store::RecordPrototype(kind_).GetTypeName());
  return row;
}

std::vector<std::pair<Row, uint64_t>> RowMapping::ReadEntriesPayload(
    std::string_view payload, const std::vector<bool>& wanted, int64_t entry_low,
    int64_t entry_high) const {
  using store::FieldRead;
  // The container's own cells, which every entry's row shares, and where its
  // entries are: the container's fields may come in any order.
  Row container(fields_.size());
  SetZeroValues(container, wanted, false);
  std::vector<std::string_view> entries;
  const int entries_number = entries_->number();
  bool parsed = store::ForEachPayloadField(payload, [&](int number, auto wire_type, auto& input) {
    if (number == entries_number && wire_type == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      uint32_t length = 0;
      if (!input.ReadVarint32(&length)) return FieldRead::kFailed;
      const auto at = static_cast<size_t>(input.CurrentPosition());
      if (length > payload.size() - at || !input.Skip(static_cast<int>(length))) {
        return FieldRead::kFailed;
      }
      entries.push_back(payload.substr(at, length));
      return FieldRead::kRead;
    }
    return ReadField(column_of_field_, number, wire_type, input, wanted, container);
  });
  // The entry key is read whether wanted or not: it selects the entries.
  // Copied only then: a scan reads a container per key.
  const bool key_unwanted = entry_key_ >= 0 && !wanted.empty() && !wanted[entry_key_];
  std::vector<bool> wanted_with_key;
  if (key_unwanted) {
    wanted_with_key = wanted;
    wanted_with_key[entry_key_] = true;
  }
  const std::vector<bool>& entry_wanted = key_unwanted ? wanted_with_key : wanted;
  const int ordinal_number = ordinal_ ? ordinal_->number() : -1;
  std::vector<std::pair<Row, uint64_t>> rows;
  for (size_t i = 0; parsed && i < entries.size(); ++i) {
    Row row = container;
    SetZeroValues(row, entry_wanted, true);
    uint64_t ordinal = 0;
    parsed = store::ForEachPayloadField(entries[i], [&](int number, auto wire_type, auto& input) {
      if (number == ordinal_number && wire_type == WireFormatLite::WIRETYPE_VARINT) {
        return input.ReadVarint64(&ordinal) ? FieldRead::kRead : FieldRead::kFailed;
      }
      return ReadField(column_of_entry_field_, number, wire_type, input, entry_wanted, row);
    });
    if (!parsed) break;
    if (entry_key_ >= 0) {
      const int64_t key = std::get<int64_t>(row[entry_key_]);
      if (key < entry_low || key > entry_high) continue;
      if (key_unwanted) row[entry_key_] = std::monostate{};
    }
    rows.emplace_back(std::move(row), ordinal);
  }
  if (!parsed) store::ThrowUnparsablePayload(kind_, store::RecordPrototype(kind_).GetTypeName());
  return rows;
}

bool RowMapping::KeyCovers(const std::vector<bool>& wanted) const {
  if (shape_ == RowShape::kEntry) return false;
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (!wanted[i] || static_cast<int>(i) == end_column_) continue;
    if (std::find(key_columns_.begin(), key_columns_.end(), static_cast<int>(i)) ==
        key_columns_.end()) {
      return false;
    }
  }
  return true;
}

Row RowMapping::ReadKey(std::string_view key, const std::vector<bool>& wanted) const {
  const size_t components = key.size() < store::kKeyHeaderSize
                                ? 0
                                : (key.size() - store::kKeyHeaderSize) / store::kKeyComponentSize;
  if (components < key_columns_.size()) {
    throw store::CorruptionError(std::string(table_->name) + ": a key too short for its kind");
  }
  const auto component = [&](size_t index) {
    return static_cast<int64_t>(util::ReadBigEndian64(key.data() + store::kKeyHeaderSize +
                                                      index * store::kKeyComponentSize));
  };
  Row row(fields_.size());
  for (size_t k = 0; k < key_columns_.size(); ++k) {
    if (wanted[key_columns_[k]]) row[key_columns_[k]] = component(k);
  }
  // A history key carries end_snapshot after the identity; a current one has none.
  if (end_column_ >= 0 && wanted[end_column_] && components > key_columns_.size()) {
    row[end_column_] = component(key_columns_.size());
  }
  return row;
}

void RowMapping::WriteContainer(const Row& row, Message* container) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].in_container) {
      SetField(container, fields_[i].field, row[i], Describe(*table_, table_->columns[i].name));
    }
  }
}

void RowMapping::WriteEntry(const Row& row, Message* entry) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i].in_container) {
      SetField(entry, fields_[i].field, row[i], Describe(*table_, table_->columns[i].name));
    }
  }
}

int RowMapping::EntryCount(const Message& container) const {
  return container.GetReflection()->FieldSize(container, entries_);
}

Message* RowMapping::AddEntry(Message* container) const {
  return container->GetReflection()->AddMessage(container, entries_);
}

Row RowMapping::ReadEntry(const Message& container, int index) const {
  const Message& entry = container.GetReflection()->GetRepeatedMessage(container, entries_, index);
  Row row;
  row.reserve(fields_.size());
  for (const ColumnField& column : fields_) {
    row.push_back(GetField(column.in_container ? container : entry, column.field));
  }
  return row;
}

void RowMapping::RemoveEntry(Message* container, int index) const {
  const Reflection* reflection = container->GetReflection();
  const int last = reflection->FieldSize(*container, entries_) - 1;
  // Keep the survivors' order: bubble the removed entry to the end first.
  for (int i = index; i < last; ++i) reflection->SwapElements(container, entries_, i, i + 1);
  reflection->RemoveLast(container, entries_);
}

int64_t RowMapping::EntryKey(const Message& container, int index) const {
  const Message& entry = container.GetReflection()->GetRepeatedMessage(container, entries_, index);
  return entry.GetReflection()->GetInt64(entry, fields_[entry_key_].field);
}

std::pair<int, int> RowMapping::EntryRange(const Message& container, const Row& row) const {
  const int count = EntryCount(container);
  if (entry_key_ < 0) return {0, count};
  if (!std::holds_alternative<int64_t>(row[entry_key_])) return {0, 0};
  const int64_t key = std::get<int64_t>(row[entry_key_]);
  // Binary searches for the first entry not below the key and the first above it.
  const auto bound = [&](bool above) {
    int low = 0, high = count;
    while (low < high) {
      const int middle = low + (high - low) / 2;
      const int64_t at = EntryKey(container, middle);
      if (above ? at <= key : at < key) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  };
  return {bound(false), bound(true)};
}

void RowMapping::InsertEntry(Message* container, const Row& row, uint64_t ordinal) const {
  int position = EntryCount(*container);
  if (entry_key_ >= 0) {
    const auto [first, last] = EntryRange(*container, row);
    if (unique_entry_key_ && first != last) {
      throw store::ConstraintError("duplicate row identity in " + std::string(table_->name));
    }
    position = last;
  }
  Message* entry = AddEntry(container);
  WriteEntry(row, entry);
  SetWriteOrdinal(entry, ordinal);
  // Rows come in key order almost always, so this rarely moves anything.
  const Reflection* reflection = container->GetReflection();
  for (int i = EntryCount(*container) - 1; i > position; --i) {
    reflection->SwapElements(container, entries_, i, i - 1);
  }
}

uint64_t RowMapping::WriteOrdinal(const Message& message) const {
  return ordinal_ ? message.GetReflection()->GetUInt64(message, ordinal_) : 0;
}

uint64_t RowMapping::EntryWriteOrdinal(const Message& container, int index) const {
  if (!ordinal_) return 0;
  return WriteOrdinal(container.GetReflection()->GetRepeatedMessage(container, entries_, index));
}

void RowMapping::SetWriteOrdinal(Message* message, uint64_t ordinal) const {
  if (ordinal_) message->GetReflection()->SetUInt64(message, ordinal_, ordinal);
}

uint64_t RowMapping::WriteOrdinalOfPayload(std::string_view payload) const {
  if (!ordinal_ || shape_ != RowShape::kRecord) return 0;
  uint64_t ordinal = 0;
  const bool parsed =
      store::ForEachPayloadField(payload, [&](int number, auto wire_type, auto& input) {
        if (number != ordinal_->number() || wire_type != WireFormatLite::WIRETYPE_VARINT) {
          return store::FieldRead::kSkip;
        }
        return input.ReadVarint64(&ordinal) ? store::FieldRead::kRead : store::FieldRead::kFailed;
      });
  return parsed ? ordinal : 0;
}

Message* RowMapping::MutableEntry(Message* container, int index) const {
  return container->GetReflection()->MutableRepeatedMessage(container, entries_, index);
}

namespace {

std::vector<RowMapping> BuildRowMappings(CatalogVersion version) {
  struct Spec {
    std::string_view table;
    Kind kind;
    RowShape shape;
    std::vector<std::string_view> key;
    std::string_view entry_key = {};
    bool unique_entry_key = false;
  };
  std::vector<Spec> specs = {
      {"ducklake_metadata", Kind::kOption, RowShape::kEntry, {"scope", "scope_id"}},
      {"ducklake_snapshot", Kind::kSnapshot, RowShape::kSnapshotRow, {"snapshot_id"}},
      {"ducklake_snapshot_changes", Kind::kSnapshot, RowShape::kChangesRow, {"snapshot_id"}},
      {"ducklake_schema", Kind::kSchema, RowShape::kRecord, {"schema_id"}},
      {"ducklake_table", Kind::kTable, RowShape::kRecord, {"table_id"}},
      {"ducklake_view", Kind::kView, RowShape::kRecord, {"view_id"}},
      {"ducklake_tag", Kind::kTag, RowShape::kEntry, {"object_id"}},
      {"ducklake_column_tag", Kind::kColumnTag, RowShape::kEntry, {"table_id", "column_id"}},
      {"ducklake_data_file", Kind::kDataFile, RowShape::kRecord, {"table_id", "data_file_id"}},
      {"ducklake_file_column_stats",
       Kind::kFileColumnStatsSet,
       RowShape::kEntry,
       {"table_id", "data_file_id"},
       "column_id",
       true},
      {"ducklake_file_variant_stats",
       Kind::kFileVariantStatsSet,
       RowShape::kEntry,
       {"table_id", "data_file_id"},
       "column_id",
       false},
      {"ducklake_delete_file",
       Kind::kDeleteFile,
       RowShape::kRecord,
       {"table_id", "delete_file_id"}},
      {"ducklake_column", Kind::kColumn, RowShape::kRecord, {"table_id", "column_id"}},
      {"ducklake_table_stats", Kind::kTableStats, RowShape::kRecord, {"table_id"}},
      {"ducklake_table_column_stats",
       Kind::kTableColumnStatsSet,
       RowShape::kEntry,
       {"table_id"},
       "column_id",
       true},
      {"ducklake_partition_info",
       Kind::kPartition,
       RowShape::kRecord,
       {"table_id", "partition_id"}},
      {"ducklake_partition_column",
       Kind::kPartitionColumn,
       RowShape::kRecord,
       {"table_id", "partition_id", "partition_key_index"}},
      {"ducklake_file_partition_value",
       Kind::kFilePartitionValue,
       RowShape::kRecord,
       {"table_id", "data_file_id", "partition_key_index"}},
      {"ducklake_files_scheduled_for_deletion",
       Kind::kFileScheduledForDeletion,
       RowShape::kRecord,
       {"data_file_id"}},
      {"ducklake_inlined_data_tables",
       Kind::kInlinedDataTable,
       RowShape::kRecord,
       {"table_id", "schema_version"}},
      {"ducklake_column_mapping",
       Kind::kColumnMapping,
       RowShape::kRecord,
       {"table_id", "mapping_id"}},
      {"ducklake_name_mapping", Kind::kNameMapping, RowShape::kRecord, {"mapping_id", "column_id"}},
      {"ducklake_schema_versions",
       Kind::kSchemaVersion,
       RowShape::kRecord,
       {"table_id", "begin_snapshot"}},
      {"ducklake_macro", Kind::kMacro, RowShape::kRecord, {"macro_id"}},
      {"ducklake_macro_impl", Kind::kMacroImpl, RowShape::kRecord, {"macro_id", "impl_id"}},
      {"ducklake_macro_parameters",
       Kind::kMacroParameter,
       RowShape::kRecord,
       {"macro_id", "impl_id", "column_id"}},
      {"ducklake_sort_info", Kind::kSort, RowShape::kRecord, {"table_id", "sort_id"}},
      {"ducklake_sort_expression",
       Kind::kSortExpression,
       RowShape::kRecord,
       {"table_id", "sort_id", "sort_key_index"}},
  };
  if (version >= CatalogVersion::kV1_1) {
    specs.push_back(
        {"ducklake_view_column_tag", Kind::kViewColumnTag, RowShape::kEntry, {"view_id"}});
  }
  std::vector<RowMapping> result;
  for (const Spec& spec : specs) {
    const CatalogTable* table = FindCatalogTable(spec.table, version);
    if (!table) throw std::logic_error("no catalog table " + std::string(spec.table));
    result.emplace_back(*table, spec.kind, spec.shape, spec.key, spec.entry_key,
                        spec.unique_entry_key);
  }
  if (result.size() != CatalogTables(version).size()) {
    throw std::logic_error("a catalog table has no row mapping");
  }
  return result;
}

}  // namespace

const std::vector<RowMapping>& RowMappings(CatalogVersion version) {
  static const std::vector<RowMapping> v1_0 = BuildRowMappings(CatalogVersion::kV1_0);
  static const std::vector<RowMapping> v1_1 = BuildRowMappings(CatalogVersion::kV1_1);
  return version == CatalogVersion::kV1_1 ? v1_1 : v1_0;
}

const std::vector<RowMapping>& RowMappingsV1_0() { return RowMappings(CatalogVersion::kV1_0); }

const RowMapping* FindRowMapping(CatalogVersion version, std::string_view table_name) {
  for (const RowMapping& mapping : RowMappings(version)) {
    if (mapping.table().name == table_name) return &mapping;
  }
  return nullptr;
}

}  // namespace moraine::catalog
