// Golden vectors: the exact bytes of every key kind, current and history form.
// A failure here means the on-disk format changed; that needs a format-version
// bump and a migration (RFC 0015), never a silent fix of the expected bytes.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "store/error.h"
#include "store/key.h"

namespace moraine::store {
namespace {

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    out.push_back(kDigits[static_cast<uint8_t>(c) >> 4]);
    out.push_back(kDigits[static_cast<uint8_t>(c) & 0xF]);
  }
  return out;
}

struct Golden {
  Kind kind;
  std::vector<uint64_t> components;
  const char* hex;
};

// Components 0x0102030405060708, 42, 2^64-2 pin big-endian order and width.
const std::vector<Golden> kCurrentGoldens = {
    {Kind::kFormat, {}, "0101"},
    {Kind::kHead, {}, "0102"},
    {Kind::kMigration, {}, "0103"},
    {Kind::kNamespace, {}, "0104"},
    {Kind::kProtectedTag, {0x102030405060708ull}, "01050102030405060708"},
    {Kind::kRestoreMarker, {}, "0106"},
    {Kind::kRevertMark, {0x102030405060708ull}, "01070102030405060708"},
    {Kind::kSnapshot, {0x102030405060708ull}, "02100102030405060708"},
    {Kind::kSchema, {0x102030405060708ull}, "03200102030405060708"},
    {Kind::kTable, {0x102030405060708ull}, "03210102030405060708"},
    {Kind::kView, {0x102030405060708ull}, "03220102030405060708"},
    {Kind::kMacro, {0x102030405060708ull}, "03230102030405060708"},
    {Kind::kColumn, {0x102030405060708ull, 0x2aull}, "03240102030405060708000000000000002a"},
    {Kind::kPartition, {0x102030405060708ull, 0x2aull}, "03250102030405060708000000000000002a"},
    {Kind::kSort, {0x102030405060708ull, 0x2aull}, "03260102030405060708000000000000002a"},
    {Kind::kDataFile, {0x102030405060708ull, 0x2aull}, "03270102030405060708000000000000002a"},
    {Kind::kDeleteFile, {0x102030405060708ull, 0x2aull}, "03280102030405060708000000000000002a"},
    {Kind::kColumnMapping, {0x102030405060708ull, 0x2aull}, "03290102030405060708000000000000002a"},
    {Kind::kFileColumnStats,
     {0x102030405060708ull, 0x2aull, 0xfffffffffffffffeull},
     "032a0102030405060708000000000000002afffffffffffffffe"},
    {Kind::kTableStats, {0x102030405060708ull}, "032b0102030405060708"},
    {Kind::kTableColumnStats,
     {0x102030405060708ull, 0x2aull},
     "032c0102030405060708000000000000002a"},
    {Kind::kTag, {0x102030405060708ull}, "032d0102030405060708"},
    {Kind::kOption, {0x102030405060708ull, 0x2aull}, "032e0102030405060708000000000000002a"},
    {Kind::kFileScheduledForDeletion, {0x102030405060708ull}, "032f0102030405060708"},
    {Kind::kInlinedDataTable,
     {0x102030405060708ull, 0x2aull},
     "03300102030405060708000000000000002a"},
    {Kind::kSchemaVersion, {0x102030405060708ull, 0x2aull}, "07400102030405060708000000000000002a"},
    {Kind::kInlinedRow,
     {0x102030405060708ull, 0x2aull, 0xfffffffffffffffeull, 0x3ull},
     "05500102030405060708000000000000002afffffffffffffffe0000000000000003"},
    {Kind::kInlinedRowBatch,
     {0x102030405060708ull, 0x2aull, 0x3ull},
     "05540102030405060708000000000000002a0000000000000003"},
    {Kind::kInlinedBatchSummary,
     {0x102030405060708ull, 0x2aull, 0x3ull},
     "05550102030405060708000000000000002a0000000000000003"},
    {Kind::kChangelog, {0x102030405060708ull}, "08600102030405060708"},
    {Kind::kDataFileSummary,
     {0x102030405060708ull, 0x2aull},
     "033d0102030405060708000000000000002a"},
    {Kind::kDataFileSummaryBounds,
     {0x102030405060708ull, 0x2aull},
     "033e0102030405060708000000000000002a"},
    {Kind::kColumnTag, {0x102030405060708ull, 0x2aull}, "03310102030405060708000000000000002a"},
    {Kind::kFilePartitionValue,
     {0x102030405060708ull, 0x2aull, 0x3ull},
     "03320102030405060708000000000000002a0000000000000003"},
    {Kind::kFileVariantStats,
     {0x102030405060708ull, 0x2aull, 0x3ull},
     "03330102030405060708000000000000002a0000000000000003"},
    {Kind::kPartitionColumn,
     {0x102030405060708ull, 0x2aull, 0x3ull},
     "03340102030405060708000000000000002a0000000000000003"},
    {Kind::kSortExpression,
     {0x102030405060708ull, 0x2aull, 0x3ull},
     "03350102030405060708000000000000002a0000000000000003"},
    {Kind::kNameMapping, {0x102030405060708ull, 0x2aull}, "03360102030405060708000000000000002a"},
    {Kind::kMacroImpl, {0x102030405060708ull, 0x2aull}, "03370102030405060708000000000000002a"},
    {Kind::kMacroParameter,
     {0x102030405060708ull, 0x2aull, 0x3ull},
     "03380102030405060708000000000000002a0000000000000003"},
    {Kind::kViewColumnTag, {0x102030405060708ull}, "03390102030405060708"},
    {Kind::kFileColumnStatsSet,
     {0x102030405060708ull, 0x2aull},
     "033a0102030405060708000000000000002a"},
    {Kind::kFileVariantStatsSet,
     {0x102030405060708ull, 0x2aull},
     "033b0102030405060708000000000000002a"},
    {Kind::kTableColumnStatsSet, {0x102030405060708ull}, "033c0102030405060708"},
    {Kind::kInlinedTableShape,
     {0x102030405060708ull, 0x2aull},
     "05510102030405060708000000000000002a"},
    {Kind::kInlinedDelete,
     {0x102030405060708ull, 0x2aull, 0x3ull},
     "05520102030405060708000000000000002a0000000000000003"},
    {Kind::kInlinedDeleteTable, {0x102030405060708ull}, "05530102030405060708"},
};

// History form: the current components, then end_snapshot 0x0a0b.
const std::vector<Golden> kHistoryGoldens = {
    {Kind::kSchema, {0x102030405060708ull}, "042001020304050607080000000000000a0b"},
    {Kind::kTable, {0x102030405060708ull}, "042101020304050607080000000000000a0b"},
    {Kind::kView, {0x102030405060708ull}, "042201020304050607080000000000000a0b"},
    {Kind::kMacro, {0x102030405060708ull}, "042301020304050607080000000000000a0b"},
    {Kind::kColumn,
     {0x102030405060708ull, 0x2aull},
     "04240102030405060708000000000000002a0000000000000a0b"},
    {Kind::kPartition,
     {0x102030405060708ull, 0x2aull},
     "04250102030405060708000000000000002a0000000000000a0b"},
    {Kind::kSort,
     {0x102030405060708ull, 0x2aull},
     "04260102030405060708000000000000002a0000000000000a0b"},
    {Kind::kDataFile,
     {0x102030405060708ull, 0x2aull},
     "04270102030405060708000000000000002a0000000000000a0b"},
    {Kind::kDeleteFile,
     {0x102030405060708ull, 0x2aull},
     "04280102030405060708000000000000002a0000000000000a0b"},
};

Key MakeKey(Subspace subspace, Kind kind, const std::vector<uint64_t>& components) {
  return Key(subspace, kind, std::span<const uint64_t>(components));
}

TEST(StoreKeyGolden, EveryKindHasACurrentGolden) {
  std::set<Kind> covered;
  for (const Golden& golden : kCurrentGoldens) covered.insert(golden.kind);
  for (const KindInfo& info : kKindTable) {
    EXPECT_TRUE(covered.count(info.kind)) << info.name << " has no golden vector";
  }
  EXPECT_EQ(covered.size(), kKindTable.size());
}

TEST(StoreKeyGolden, EveryVersionedKindHasAHistoryGolden) {
  std::set<Kind> covered;
  for (const Golden& golden : kHistoryGoldens) covered.insert(golden.kind);
  for (const KindInfo& info : kKindTable) {
    EXPECT_EQ(covered.count(info.kind) == 1, info.versioned) << info.name;
  }
}

TEST(StoreKeyGolden, CurrentFormBytes) {
  for (const Golden& golden : kCurrentGoldens) {
    const Subspace home = GetKindInfo(golden.kind).home;
    Key key = MakeKey(home, golden.kind, golden.components);
    EXPECT_EQ(Hex(key.Encode()), golden.hex) << key.ToString();
    EXPECT_EQ(Key::Decode(key.Encode()), key) << key.ToString();
  }
}

TEST(StoreKeyGolden, HistoryFormBytes) {
  for (const Golden& golden : kHistoryGoldens) {
    Key current = MakeKey(Subspace::kCurrent, golden.kind, golden.components);
    Key history = current.ToHistory(0x0a0b);
    EXPECT_EQ(Hex(history.Encode()), golden.hex) << history.ToString();
    EXPECT_EQ(Key::Decode(history.Encode()), history);
    EXPECT_EQ(history.components().back(), 0x0a0bu);
  }
}

TEST(StoreKeyGolden, SubspaceBytes) {
  EXPECT_EQ(static_cast<int>(Subspace::kSystem), 0x01);
  EXPECT_EQ(static_cast<int>(Subspace::kSnapshot), 0x02);
  EXPECT_EQ(static_cast<int>(Subspace::kCurrent), 0x03);
  EXPECT_EQ(static_cast<int>(Subspace::kHistory), 0x04);
  EXPECT_EQ(static_cast<int>(Subspace::kInlineData), 0x05);
  EXPECT_EQ(static_cast<int>(Subspace::kIndex), 0x06);
  EXPECT_EQ(static_cast<int>(Subspace::kSchemaVersion), 0x07);
  EXPECT_EQ(static_cast<int>(Subspace::kChangelog), 0x08);
  for (int byte = 0; byte < 256; ++byte) {
    EXPECT_EQ(IsKnownSubspace(static_cast<uint8_t>(byte)), byte >= 0x01 && byte <= 0x08) << byte;
  }
}

TEST(StoreKeyGolden, KindTableIsConsistent) {
  std::set<uint8_t> bytes;
  for (const KindInfo& info : kKindTable) {
    EXPECT_TRUE(bytes.insert(static_cast<uint8_t>(info.kind)).second) << info.name;
    EXPECT_EQ(FindKindInfo(static_cast<uint8_t>(info.kind)), &info);
    EXPECT_LE(info.arity + (info.versioned ? 1u : 0u), kMaxKeyComponents) << info.name;
    if (info.table_scoped) {
      EXPECT_GE(info.arity, 1u) << info.name;
    }
    if (info.versioned) {
      EXPECT_EQ(info.home, Subspace::kCurrent) << info.name;
    }
  }
}

TEST(StoreKey, ConstructorRejectsWrongShape) {
  EXPECT_THROW(Key(Subspace::kCurrent, Kind::kColumn, {1}), InvalidArgumentError);
  EXPECT_THROW(Key(Subspace::kCurrent, Kind::kColumn, {1, 2, 3}), InvalidArgumentError);
  EXPECT_THROW(Key(Subspace::kHistory, Kind::kTableStats, {1, 2}), InvalidArgumentError);
  EXPECT_THROW(Key(Subspace::kSystem, Kind::kTable, {1}), InvalidArgumentError);
  EXPECT_THROW(Key::Current(Kind::kTag, {1}).ToHistory(5), InvalidArgumentError);
  EXPECT_EQ(Key::History(Kind::kColumn, {1, 2}, 3),
            Key::Current(Kind::kColumn, {1, 2}).ToHistory(3));
}

TEST(StoreKey, DecodeRejectsMalformedKeys) {
  const std::string column = Key::Current(Kind::kColumn, {1, 2}).Encode();
  EXPECT_THROW(Key::Decode(""), CorruptionError);
  EXPECT_THROW(Key::Decode("\x03"), CorruptionError);
  EXPECT_THROW(Key::Decode(column.substr(0, column.size() - 1)), CorruptionError);
  EXPECT_THROW(Key::Decode(column + "x"), CorruptionError);
  std::string bad_subspace = column;
  bad_subspace[0] = '\x00';
  EXPECT_THROW(Key::Decode(bad_subspace), CorruptionError);
  std::string bad_kind = column;
  bad_kind[1] = '\x7f';
  EXPECT_THROW(Key::Decode(bad_kind), CorruptionError);
  std::string misplaced = column;  // a column kind in the system subspace
  misplaced[0] = static_cast<char>(Subspace::kSystem);
  EXPECT_THROW(Key::Decode(misplaced), CorruptionError);
  std::string unversioned_history =
      Key::Current(Kind::kTableStats, {1}).Encode() + std::string(8, '\0');
  unversioned_history[0] = static_cast<char>(Subspace::kHistory);
  EXPECT_THROW(Key::Decode(unversioned_history), CorruptionError);
}

TEST(StoreKey, ToStringNamesTheKey) {
  EXPECT_EQ(Key::Current(Kind::kColumn, {7, 3}).ToString(), "current/column(7,3)");
  EXPECT_EQ(Key::History(Kind::kTable, {7}, 9).ToString(), "history/table(7,9)");
}

}  // namespace
}  // namespace moraine::store
