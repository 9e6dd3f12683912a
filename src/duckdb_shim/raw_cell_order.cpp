#include "duckdb_shim/raw_cell_order.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "duckdb/common/types.hpp"

namespace moraine::duckdb_shim {
namespace {

// column_codec.h's tags and header.
constexpr char kRawFixed = 0x01;
constexpr char kRawString = 0x02;
constexpr size_t kRawHeader = 2;

template <class T>
std::optional<bool> LessAs(std::string_view a, std::string_view b) {
  if (a.size() != sizeof(T) || b.size() != sizeof(T)) return std::nullopt;
  T x, y;
  std::memcpy(&x, a.data(), sizeof(T));
  std::memcpy(&y, b.data(), sizeof(T));
  return x < y;
}

}  // namespace

std::optional<bool> RawCellOrder::Less(std::string_view a, std::string_view b) const {
  if (a.size() < kRawHeader || b.size() < kRawHeader || a[0] != b[0] || a[1] != b[1]) {
    return std::nullopt;
  }
  const char tag = a[0];
  const auto type = static_cast<duckdb::LogicalTypeId>(static_cast<uint8_t>(a[1]));
  a.remove_prefix(kRawHeader);
  b.remove_prefix(kRawHeader);
  using T = duckdb::LogicalTypeId;
  if (tag == kRawString) {
    if (type != T::VARCHAR && type != T::BLOB) return std::nullopt;
    const int order = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
    return order < 0 || (order == 0 && a.size() < b.size());
  }
  if (tag != kRawFixed) return std::nullopt;
  switch (type) {
    case T::BOOLEAN:
    case T::UTINYINT:
      return LessAs<uint8_t>(a, b);
    case T::TINYINT:
      return LessAs<int8_t>(a, b);
    case T::SMALLINT:
      return LessAs<int16_t>(a, b);
    case T::USMALLINT:
      return LessAs<uint16_t>(a, b);
    case T::INTEGER:
    case T::DATE:
      return LessAs<int32_t>(a, b);
    case T::UINTEGER:
      return LessAs<uint32_t>(a, b);
    case T::BIGINT:
    case T::TIME:
    case T::TIMESTAMP:
    case T::TIMESTAMP_SEC:
    case T::TIMESTAMP_MS:
    case T::TIMESTAMP_NS:
    case T::TIMESTAMP_TZ:
      return LessAs<int64_t>(a, b);
    case T::UBIGINT:
      return LessAs<uint64_t>(a, b);
    default:
      return std::nullopt;
  }
}

void RawCellOrder::Install() {
  static const RawCellOrder order;
  commit::inlined::SetCellOrder(&order);
}

}  // namespace moraine::duckdb_shim
