#include "duckdb_shim/column_codec.h"

#include <cstring>
#include <optional>

#include "catalog/ducklake_tables.h"
#include "duckdb/common/exception.hpp"
#include "duckdb/common/serializer/binary_deserializer.hpp"
#include "duckdb/common/serializer/binary_serializer.hpp"
#include "duckdb/common/serializer/memory_stream.hpp"
#include "duckdb/common/types/uuid.hpp"
#include "duckdb/common/types/value.hpp"
#include "duckdb/common/types/vector.hpp"
#include "duckdb_shim/duckdb_release.h"

namespace moraine::duckdb_shim {
namespace {

std::string SerializeValue(const duckdb::Value& value) {
  duckdb::MemoryStream stream;
  duckdb::BinarySerializer::Serialize(value, stream);
  return std::string(reinterpret_cast<const char*>(stream.GetData()), stream.GetPosition());
}

duckdb::Value DeserializeValue(std::string_view bytes) {
  // MemoryStream only reads here; it never writes through the pointer.
  duckdb::MemoryStream stream(reinterpret_cast<duckdb::data_ptr_t>(const_cast<char*>(bytes.data())),
                              bytes.size());
  duckdb::BinaryDeserializer deserializer(stream);
  deserializer.Begin();
  auto value = duckdb::Value::Deserialize(deserializer);
  deserializer.End();
  return value;
}

// The first byte of an opaque cell (column_codec.h).
constexpr char kRawFixed = 0x01;
constexpr char kRawString = 0x02;
constexpr size_t kRawHeader = 2;

// Whether values of `type` are stored raw: a type without modifiers (no
// width, collation, alias, ...), so that its id alone rebuilds it.
std::optional<char> RawTag(const duckdb::LogicalType& type) {
  if (HasTypeModifiers(type)) return std::nullopt;
  switch (type.id()) {
    case duckdb::LogicalTypeId::VARCHAR:
    case duckdb::LogicalTypeId::BLOB:
      return kRawString;
    case duckdb::LogicalTypeId::BOOLEAN:
    case duckdb::LogicalTypeId::TINYINT:
    case duckdb::LogicalTypeId::SMALLINT:
    case duckdb::LogicalTypeId::INTEGER:
    case duckdb::LogicalTypeId::BIGINT:
    case duckdb::LogicalTypeId::HUGEINT:
    case duckdb::LogicalTypeId::UTINYINT:
    case duckdb::LogicalTypeId::USMALLINT:
    case duckdb::LogicalTypeId::UINTEGER:
    case duckdb::LogicalTypeId::UBIGINT:
    case duckdb::LogicalTypeId::UHUGEINT:
    case duckdb::LogicalTypeId::FLOAT:
    case duckdb::LogicalTypeId::DOUBLE:
    case duckdb::LogicalTypeId::DATE:
    case duckdb::LogicalTypeId::TIME:
    case duckdb::LogicalTypeId::TIME_TZ:
    case duckdb::LogicalTypeId::TIMESTAMP:
    case duckdb::LogicalTypeId::TIMESTAMP_SEC:
    case duckdb::LogicalTypeId::TIMESTAMP_MS:
    case duckdb::LogicalTypeId::TIMESTAMP_NS:
    case duckdb::LogicalTypeId::TIMESTAMP_TZ:
    case duckdb::LogicalTypeId::INTERVAL:
    case duckdb::LogicalTypeId::UUID:
      return kRawFixed;
    default:
      return std::nullopt;
  }
}

std::string RawCell(const duckdb::Value& value, char tag) {
  std::string cell{tag, static_cast<char>(value.type().id())};
  if (tag == kRawString) {
    cell += duckdb::StringValue::Get(value);
    return cell;
  }
  duckdb::Vector vector(value.type(), 1);
  vector.SetValue(0, value);
  const auto size = duckdb::GetTypeIdSize(value.type().InternalType());
  cell.append(reinterpret_cast<const char*>(duckdb::FlatVector::GetData(vector)), size);
  return cell;
}

// A raw cell of another type than its column's, as a Value of its own type.
duckdb::Value RawCellValue(std::string_view bytes) {
  if (bytes.size() < kRawHeader) {
    throw duckdb::InvalidInputException("moraine: an inlined cell of an unknown encoding");
  }
  const duckdb::LogicalType type(static_cast<duckdb::LogicalTypeId>(bytes[1]));
  const auto payload = bytes.substr(kRawHeader);
  const auto tag = RawTag(type);
  if (!tag || *tag != bytes[0] ||
      (*tag == kRawFixed && payload.size() != duckdb::GetTypeIdSize(type.InternalType()))) {
    throw duckdb::InvalidInputException("moraine: an inlined cell of an unknown encoding");
  }
  if (*tag == kRawString) {
    return type.id() == duckdb::LogicalTypeId::BLOB
               ? duckdb::Value::BLOB(reinterpret_cast<duckdb::const_data_ptr_t>(payload.data()),
                                     payload.size())
               : duckdb::Value(std::string(payload));
  }
  duckdb::Vector vector(type, 1);
  std::memcpy(WritableBytes(vector), payload.data(), payload.size());
  return vector.GetValue(0);
}

// The cell as a DuckDB value of its natural type, for the conversion path.
duckdb::Value CellAsValue(const commit::Cell& cell) {
  struct Visitor {
    duckdb::Value operator()(std::monostate) const { return duckdb::Value(); }
    duckdb::Value operator()(int64_t v) const { return duckdb::Value::BIGINT(v); }
    duckdb::Value operator()(bool v) const { return duckdb::Value::BOOLEAN(v); }
    duckdb::Value operator()(const std::string& v) const { return duckdb::Value(v); }
    duckdb::Value operator()(const commit::OpaqueValue& v) const {
      if (!v.bytes.empty() && (v.bytes[0] == kRawFixed || v.bytes[0] == kRawString)) {
        return RawCellValue(v.bytes);
      }
      return DeserializeValue(v.bytes);
    }
  };
  return std::visit(Visitor{}, cell);
}

}  // namespace

ColumnCodec CodecFor(const std::string& table_name, size_t index, const duckdb::LogicalType& type) {
  ColumnCodec codec{type, CellKind::kOpaque};
  if (catalog::IsInlinedUserColumn(table_name, index)) return codec;
  switch (type.id()) {
    case duckdb::LogicalTypeId::BIGINT:
      codec.kind = CellKind::kBigint;
      break;
    case duckdb::LogicalTypeId::BOOLEAN:
      codec.kind = CellKind::kBoolean;
      break;
    case duckdb::LogicalTypeId::VARCHAR:
      codec.kind = CellKind::kVarchar;
      break;
    case duckdb::LogicalTypeId::UUID:
      codec.kind = CellKind::kUuid;
      break;
    case duckdb::LogicalTypeId::TIMESTAMP_TZ:
      codec.kind = CellKind::kTimestampTz;
      break;
    default:
      break;
  }
  return codec;
}

void WriteCell(const commit::Cell& cell, const ColumnCodec& codec, duckdb::Vector& out,
               duckdb::idx_t row) {
  if (std::holds_alternative<std::monostate>(cell)) {
    duckdb::FlatVector::SetNull(out, row, true);
    return;
  }
  switch (codec.kind) {
    case CellKind::kBigint:
    case CellKind::kTimestampTz:
      if (auto* v = std::get_if<int64_t>(&cell)) {
        // timestamp_tz_t is a single int64 of microseconds, like BIGINT.
        WritableData<int64_t>(out)[row] = *v;
        return;
      }
      break;
    case CellKind::kBoolean:
      if (auto* v = std::get_if<bool>(&cell)) {
        WritableData<bool>(out)[row] = *v;
        return;
      }
      break;
    case CellKind::kVarchar:
      if (auto* v = std::get_if<std::string>(&cell)) {
        WritableData<duckdb::string_t>(out)[row] = duckdb::StringVector::AddString(out, *v);
        return;
      }
      break;
    case CellKind::kUuid:
      if (auto* v = std::get_if<std::string>(&cell)) {
        duckdb::hugeint_t uuid;
        if (!duckdb::UUID::FromString(*v, uuid)) {
          throw duckdb::InvalidInputException("moraine: stored UUID '%s' is malformed", *v);
        }
        WritableData<duckdb::hugeint_t>(out)[row] = uuid;
        return;
      }
      break;
    case CellKind::kOpaque:
      if (auto* v = std::get_if<commit::OpaqueValue>(&cell)) {
        WriteOpaqueCell(v->bytes, codec.type, out, row);
        return;
      }
      break;
  }
  auto value = CellAsValue(cell);
  out.SetValue(row, value.type() == codec.type ? value : value.DefaultCastAs(codec.type));
}

commit::Cell CellFromValue(const duckdb::Value& value, const ColumnCodec& codec) {
  if (value.IsNull()) return std::monostate{};
  switch (codec.kind) {
    case CellKind::kBigint:
      return value.GetValue<int64_t>();
    case CellKind::kTimestampTz:
      // TIMESTAMPTZ is physically an int64 of microseconds since the epoch.
      return value.GetValueUnsafe<int64_t>();
    case CellKind::kBoolean:
      return value.GetValue<bool>();
    case CellKind::kVarchar:
      return duckdb::StringValue::Get(value);
    case CellKind::kUuid:
      return value.ToString();
    case CellKind::kOpaque:
      break;
  }
  if (const auto tag = RawTag(value.type())) return commit::OpaqueValue{RawCell(value, *tag)};
  return commit::OpaqueValue{SerializeValue(value)};
}

void WriteOpaqueCell(std::string_view bytes, const duckdb::LogicalType& type, duckdb::Vector& out,
                     duckdb::idx_t row) {
  if (bytes.size() >= kRawHeader && (bytes[0] == kRawFixed || bytes[0] == kRawString) &&
      static_cast<duckdb::LogicalTypeId>(bytes[1]) == type.id() && !HasTypeModifiers(type)) {
    const auto payload = bytes.substr(kRawHeader);
    if (bytes[0] == kRawString) {
      WritableData<duckdb::string_t>(out)[row] =
          duckdb::StringVector::AddStringOrBlob(out, payload.data(), payload.size());
      return;
    }
    const auto size = duckdb::GetTypeIdSize(type.InternalType());
    if (payload.size() == size) {
      std::memcpy(WritableBytes(out) + row * size, payload.data(), size);
      return;
    }
  }
  duckdb::Value value;
  if (!bytes.empty() && (bytes[0] == kRawFixed || bytes[0] == kRawString)) {
    value = RawCellValue(bytes);
  } else {
    value = DeserializeValue(bytes);
  }
  out.SetValue(row, value.type() == type ? value : value.DefaultCastAs(type));
}

}  // namespace moraine::duckdb_shim
