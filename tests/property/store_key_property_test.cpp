// Properties of the key codec: roundtrip, order preservation, and total
// decoding of arbitrary bytes.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <vector>

#include "store/error.h"
#include "store/key.h"
#include "store/key_range.h"

namespace moraine::store {
namespace {

// A valid (subspace, kind, components) shape drawn from the kind table,
// current or history form.
Key ArbitraryKey() {
  const KindInfo& info = *rc::gen::elementOf(kKindTable);
  const bool history = info.versioned && *rc::gen::arbitrary<bool>();
  const size_t arity = info.arity + (history ? 1u : 0u);
  // Mix small ids (realistic, many equal prefixes) with the full u64 range.
  const auto component =
      rc::gen::oneOf(rc::gen::inRange<uint64_t>(0, 4), rc::gen::arbitrary<uint64_t>());
  const auto components = *rc::gen::container<std::vector<uint64_t>>(arity, component);
  return Key(history ? Subspace::kHistory : info.home, info.kind,
             std::span<const uint64_t>(components));
}

RC_GTEST_PROP(StoreKeyProperty, RapidcheckRunsAtLeast1000Cases, ()) {
  RC_ASSERT(rc::detail::configuration().testParams.maxSuccess >= 1000);
}

RC_GTEST_PROP(StoreKeyProperty, DecodeInvertsEncode, ()) {
  const Key key = ArbitraryKey();
  const std::string bytes = key.Encode();
  RC_ASSERT(bytes.size() == kKeyHeaderSize + key.components().size() * kKeyComponentSize);
  RC_ASSERT(Key::Decode(bytes) == key);
}

RC_GTEST_PROP(StoreKeyProperty, ByteOrderEqualsComponentOrder, ()) {
  const Key a = ArbitraryKey();
  // Half the time, the same shape: exercises component order, not only kind order.
  Key b = ArbitraryKey();
  if (*rc::gen::arbitrary<bool>()) {
    std::vector<uint64_t> components(a.components().begin(), a.components().end());
    if (!components.empty()) {
      const size_t i = *rc::gen::inRange<size_t>(0, components.size());
      components[i] = *rc::gen::arbitrary<uint64_t>();
    }
    b = Key(a.subspace(), a.kind(), std::span<const uint64_t>(components));
  }
  const std::string ea = a.Encode();
  const std::string eb = b.Encode();
  RC_ASSERT((ea <=> eb) == (a <=> b));
}

RC_GTEST_PROP(StoreKeyProperty, HistoryKeysOfOneEntitySortByEndSnapshot, ()) {
  const auto table_id = *rc::gen::arbitrary<uint64_t>();
  const auto column_id = *rc::gen::arbitrary<uint64_t>();
  const auto end_a = *rc::gen::arbitrary<uint64_t>();
  const auto end_b = *rc::gen::arbitrary<uint64_t>();
  const std::string a = Key::History(Kind::kColumn, {table_id, column_id}, end_a).Encode();
  const std::string b = Key::History(Kind::kColumn, {table_id, column_id}, end_b).Encode();
  RC_ASSERT((a < b) == (end_a < end_b));
}

RC_GTEST_PROP(StoreKeyProperty, DecodingArbitraryBytesIsTotal, (const std::string& bytes)) {
  try {
    const Key key = Key::Decode(bytes);
    RC_ASSERT(key.Encode() == bytes);  // anything accepted is canonical
  } catch (const CorruptionError&) {
    // the only permitted failure
  }
}

RC_GTEST_PROP(StoreKeyProperty, DecodingMutatedKeysIsTotal, ()) {
  std::string bytes = ArbitraryKey().Encode();
  const auto position = *rc::gen::inRange<size_t>(0, bytes.size());
  switch (*rc::gen::inRange(0, 3)) {
    case 0:
      bytes[position] = static_cast<char>(*rc::gen::arbitrary<uint8_t>());
      break;
    case 1:
      bytes.resize(position);
      break;
    default:
      bytes.push_back(static_cast<char>(*rc::gen::arbitrary<uint8_t>()));
  }
  try {
    RC_ASSERT(Key::Decode(bytes).Encode() == bytes);
  } catch (const CorruptionError&) {
  }
}

RC_GTEST_PROP(StoreKeyProperty, TableRangeContainsExactlyTheTablesKeys, ()) {
  const Key key = ArbitraryKey();
  const KindInfo& info = GetKindInfo(key.kind());
  RC_PRE(info.table_scoped);
  const auto table_id =
      *rc::gen::oneOf(rc::gen::just(key.component(0)), rc::gen::arbitrary<uint64_t>());
  const KeyRange range = TableRange(key.subspace(), key.kind(), table_id);
  RC_ASSERT(range.Contains(key.Encode()) == (key.component(0) == table_id));
}

}  // namespace
}  // namespace moraine::store
