// Scan bounds derived from the key encoding.

#include <gtest/gtest.h>

#include "store/error.h"
#include "store/key.h"
#include "store/key_range.h"

namespace moraine::store {
namespace {

TEST(StoreKeyRange, PrefixSuccessor) {
  EXPECT_EQ(PrefixSuccessor("ab"), "ac");
  EXPECT_EQ(PrefixSuccessor(std::string("a\xff", 2)), "b");
  EXPECT_EQ(PrefixSuccessor(std::string("\xff\xff", 2)), "");
  EXPECT_EQ(PrefixSuccessor(""), "");
}

TEST(StoreKeyRange, TableRangeHoldsExactlyThatTable) {
  KeyRange range = TableRange(Subspace::kCurrent, Kind::kColumn, 7);
  EXPECT_TRUE(range.Contains(Key::Current(Kind::kColumn, {7, 0}).Encode()));
  EXPECT_TRUE(range.Contains(Key::Current(Kind::kColumn, {7, UINT64_MAX}).Encode()));
  EXPECT_FALSE(range.Contains(Key::Current(Kind::kColumn, {6, UINT64_MAX}).Encode()));
  EXPECT_FALSE(range.Contains(Key::Current(Kind::kColumn, {8, 0}).Encode()));
  EXPECT_FALSE(range.Contains(Key::Current(Kind::kPartition, {7, 0}).Encode()));
  EXPECT_FALSE(range.Contains(Key::History(Kind::kColumn, {7, 0}, 1).Encode()));

  KeyRange history = TableRange(Subspace::kHistory, Kind::kColumn, 7);
  EXPECT_TRUE(history.Contains(Key::History(Kind::kColumn, {7, 3}, 9).Encode()));
  EXPECT_FALSE(history.Contains(Key::History(Kind::kColumn, {8, 3}, 9).Encode()));
}

TEST(StoreKeyRange, TableRangeOfTheLastTableIdIsBounded) {
  KeyRange range = TableRange(Subspace::kCurrent, Kind::kColumn, UINT64_MAX);
  EXPECT_FALSE(range.end.empty());
  EXPECT_TRUE(range.Contains(Key::Current(Kind::kColumn, {UINT64_MAX, 5}).Encode()));
  EXPECT_FALSE(range.Contains(Key::Current(Kind::kPartition, {0, 0}).Encode()));
}

TEST(StoreKeyRange, TableRangeRejectsKindsNotKeyedByTable) {
  for (Kind kind : {Kind::kSchema, Kind::kView, Kind::kMacro, Kind::kTag, Kind::kOption,
                    Kind::kFileScheduledForDeletion, Kind::kSnapshot, Kind::kHead}) {
    EXPECT_THROW(TableRange(Subspace::kCurrent, kind, 1), InvalidArgumentError)
        << GetKindInfo(kind).name;
  }
  EXPECT_NO_THROW(TableRange(Subspace::kCurrent, Kind::kFileColumnStats, 1));
  EXPECT_NO_THROW(TableRange(Subspace::kSchemaVersion, Kind::kSchemaVersion, 1));
  // table-scoped, but not a history kind
  EXPECT_THROW(TableRange(Subspace::kHistory, Kind::kTableStats, 1), InvalidArgumentError);
}

TEST(StoreKeyRange, PrefixRangeNarrowsByComponents) {
  KeyRange file = PrefixRange(Subspace::kCurrent, Kind::kFileColumnStats, {7, 100});
  EXPECT_TRUE(file.Contains(Key::Current(Kind::kFileColumnStats, {7, 100, 3}).Encode()));
  EXPECT_FALSE(file.Contains(Key::Current(Kind::kFileColumnStats, {7, 101, 0}).Encode()));

  KeyRange all = PrefixRange(Subspace::kCurrent, Kind::kTable);
  EXPECT_TRUE(all.Contains(Key::Current(Kind::kTable, {0}).Encode()));
  EXPECT_TRUE(all.Contains(Key::Current(Kind::kTable, {UINT64_MAX}).Encode()));
  EXPECT_FALSE(all.Contains(Key::Current(Kind::kView, {0}).Encode()));

  EXPECT_THROW(PrefixRange(Subspace::kCurrent, Kind::kTable, {1, 2}), InvalidArgumentError);
  EXPECT_THROW(PrefixRange(Subspace::kSystem, Kind::kTable), InvalidArgumentError);
}

TEST(StoreKeyRange, SubspaceRangeHoldsTheWholeSubspace) {
  KeyRange current = SubspaceRange(Subspace::kCurrent);
  EXPECT_TRUE(current.Contains(Key::Current(Kind::kSchema, {0}).Encode()));
  EXPECT_TRUE(current.Contains(Key::Current(Kind::kInlinedDataTable, {UINT64_MAX, 1}).Encode()));
  EXPECT_FALSE(current.Contains(Key::History(Kind::kSchema, {0}, 0).Encode()));
  EXPECT_FALSE(current.Contains(Key::Current(Kind::kSnapshot, {UINT64_MAX}).Encode()));
}

}  // namespace
}  // namespace moraine::store
