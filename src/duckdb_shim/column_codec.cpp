#include "duckdb_shim/column_codec.h"

#include "catalog/ducklake_tables.h"
#include "duckdb/common/exception.hpp"
#include "duckdb/common/serializer/binary_deserializer.hpp"
#include "duckdb/common/serializer/binary_serializer.hpp"
#include "duckdb/common/serializer/memory_stream.hpp"
#include "duckdb/common/types/uuid.hpp"
#include "duckdb/common/types/value.hpp"
#include "duckdb/common/types/vector.hpp"

namespace moraine::duckdb_shim {
namespace {

std::string SerializeValue(const duckdb::Value& value) {
  duckdb::MemoryStream stream;
  duckdb::BinarySerializer::Serialize(value, stream);
  return std::string(reinterpret_cast<const char*>(stream.GetData()), stream.GetPosition());
}

duckdb::Value DeserializeValue(const std::string& bytes) {
  // MemoryStream only reads here; it never writes through the pointer.
  duckdb::MemoryStream stream(reinterpret_cast<duckdb::data_ptr_t>(const_cast<char*>(bytes.data())),
                              bytes.size());
  duckdb::BinaryDeserializer deserializer(stream);
  deserializer.Begin();
  auto value = duckdb::Value::Deserialize(deserializer);
  deserializer.End();
  return value;
}

// The cell as a DuckDB value of its natural type, for the conversion path.
duckdb::Value CellAsValue(const commit::Cell& cell) {
  struct Visitor {
    duckdb::Value operator()(std::monostate) const { return duckdb::Value(); }
    duckdb::Value operator()(int64_t v) const { return duckdb::Value::BIGINT(v); }
    duckdb::Value operator()(bool v) const { return duckdb::Value::BOOLEAN(v); }
    duckdb::Value operator()(const std::string& v) const { return duckdb::Value(v); }
    duckdb::Value operator()(const commit::OpaqueValue& v) const {
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
        duckdb::FlatVector::GetData<int64_t>(out)[row] = *v;
        return;
      }
      break;
    case CellKind::kBoolean:
      if (auto* v = std::get_if<bool>(&cell)) {
        duckdb::FlatVector::GetData<bool>(out)[row] = *v;
        return;
      }
      break;
    case CellKind::kVarchar:
      if (auto* v = std::get_if<std::string>(&cell)) {
        duckdb::FlatVector::GetData<duckdb::string_t>(out)[row] =
            duckdb::StringVector::AddString(out, *v);
        return;
      }
      break;
    case CellKind::kUuid:
      if (auto* v = std::get_if<std::string>(&cell)) {
        duckdb::hugeint_t uuid;
        if (!duckdb::UUID::FromString(*v, uuid)) {
          throw duckdb::InvalidInputException("moraine: stored UUID '%s' is malformed", *v);
        }
        duckdb::FlatVector::GetData<duckdb::hugeint_t>(out)[row] = uuid;
        return;
      }
      break;
    case CellKind::kOpaque:
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
  return commit::OpaqueValue{SerializeValue(value)};
}

}  // namespace moraine::duckdb_shim
