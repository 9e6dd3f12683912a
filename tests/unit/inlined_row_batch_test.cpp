// The row batch of an inlined data table (commit/rows/inlined_row_batch.h): rows
// round-trip cell for cell, NULLs and ended rows included; removed rows leave
// no trace; a value that is no batch of the table is a typed error.
#include "commit/rows/inlined_row_batch.h"

#include <gtest/gtest.h>

#include <string>

#include "store/error.h"
#include "store/key_kind.h"
#include "store/records.pb.h"
#include "store/value_frame.h"

namespace moraine::commit::inlined {
namespace {

InlinedRowBatch::Row MakeRow(int64_t id, std::optional<int64_t> end,
                             std::vector<std::optional<std::string>> cells) {
  return {id, end, std::move(cells), false};
}

TEST(InlinedRowBatch, RowsRoundTripWithNullsEndsAndEmptyCells) {
  InlinedRowBatch batch(2);
  batch.Append(MakeRow(7, std::nullopt, {"seven", std::nullopt}));
  batch.Append(MakeRow(8, 12, {"", std::string(300, 'x')}));
  batch.Append(MakeRow(3, std::nullopt, {std::nullopt, std::string("\0\1", 2)}));
  const std::string value = batch.Encode();

  const InlinedRowBatchView view(value, 2);
  ASSERT_EQ(view.size(), 3u);
  EXPECT_EQ(view.row_id(0), 7);
  EXPECT_EQ(view.row_id(2), 3);
  EXPECT_EQ(view.end_snapshot(0), std::nullopt);
  EXPECT_EQ(view.end_snapshot(1), std::optional<int64_t>(12));
  EXPECT_TRUE(view.CellsComplete());
  auto first = view.ColumnCells(0);
  EXPECT_EQ(first.Next(), std::optional<std::string_view>("seven"));
  EXPECT_EQ(first.Next(), std::optional<std::string_view>(""));
  EXPECT_EQ(first.Next(), std::nullopt);
  EXPECT_THROW(first.Next(), store::CorruptionError);
  auto second = view.ColumnCells(1);
  EXPECT_EQ(second.Next(), std::nullopt);
  EXPECT_EQ(second.Next(), std::optional<std::string_view>(std::string(300, 'x')));
  EXPECT_EQ(second.Next(), std::optional<std::string_view>(std::string("\0\1", 2)));

  auto decoded = InlinedRowBatch::Decode(value, 2);
  EXPECT_EQ(decoded.Encode(), value);
  ASSERT_TRUE(decoded.Find(8));
  EXPECT_EQ(decoded.cell(*decoded.Find(8), 1), std::string(300, 'x'));
  EXPECT_FALSE(decoded.Find(9));
}

// A decoded batch's rows keep their cells in the stored bytes; a replaced
// row takes the end it is given, and its cells when they differ, and the
// batch encodes as one built from the rows as they now are.
TEST(InlinedRowBatch, ReplacedRowsEncodeAsBuiltFromScratch) {
  InlinedRowBatch original(2);
  original.Append(MakeRow(1, std::nullopt, {"a", std::nullopt}));
  original.Append(MakeRow(2, std::nullopt, {"b", "bb"}));
  original.Append(MakeRow(3, 4, {std::nullopt, "cc"}));
  auto decoded = InlinedRowBatch::Decode(original.Encode(), 2);
  decoded.Replace(*decoded.Find(1), MakeRow(1, 9, {"a", std::nullopt}));              // ended only
  decoded.Replace(*decoded.Find(2), MakeRow(2, std::nullopt, {"b", "B"}));            // a new cell
  decoded.Replace(*decoded.Find(3), MakeRow(3, std::nullopt, {std::nullopt, "cc"}));  // revived

  InlinedRowBatch expected(2);
  expected.Append(MakeRow(1, 9, {"a", std::nullopt}));
  expected.Append(MakeRow(2, std::nullopt, {"b", "B"}));
  expected.Append(MakeRow(3, std::nullopt, {std::nullopt, "cc"}));
  EXPECT_EQ(decoded.Encode(), expected.Encode());
  EXPECT_EQ(decoded.cell(*decoded.Find(2), 1), std::optional<std::string_view>("B"));
  EXPECT_EQ(decoded.cell(*decoded.Find(1), 1), std::nullopt);

  // A copy reads the same stored bytes, and changes apart from the original.
  auto copy = decoded;
  copy.Replace(*copy.Find(1), MakeRow(1, std::nullopt, {"z", std::nullopt}));
  EXPECT_EQ(decoded.Encode(), expected.Encode());
  EXPECT_EQ(copy.cell(*copy.Find(1), 0), std::optional<std::string_view>("z"));
}

TEST(InlinedRowBatch, RemovedRowsAreGoneAndTheLastOneEmptiesTheBatch) {
  InlinedRowBatch batch(1);
  batch.Append(MakeRow(1, 5, {"a"}));
  batch.Append(MakeRow(2, std::nullopt, {"b"}));
  batch.Remove(*batch.Find(1));
  EXPECT_FALSE(batch.Find(1));
  const InlinedRowBatchView view(batch.Encode(), 1);
  ASSERT_EQ(view.size(), 1u);
  EXPECT_EQ(view.row_id(0), 2);
  EXPECT_EQ(view.end_snapshot(0), std::nullopt) << "no end list once no live row has ended";
  batch.Remove(*batch.Find(2));
  EXPECT_TRUE(batch.empty());
  // A row id removed may come back.
  batch.Append(MakeRow(1, std::nullopt, {std::nullopt}));
  EXPECT_EQ(InlinedRowBatchView(batch.Encode(), 1).size(), 1u);
}

// A scan reads every batch into one view: each read shows that batch only,
// however the one before it was shaped, and a value that fails leaves none.
TEST(InlinedRowBatch, AViewReadAgainShowsOnlyTheLatestBatch) {
  InlinedRowBatch wide(2);
  wide.Append(MakeRow(1, 4, {"a", "b"}));
  wide.Append(MakeRow(2, std::nullopt, {"c", std::nullopt}));
  InlinedRowBatch narrow(2);
  narrow.Append(MakeRow(9, std::nullopt, {std::nullopt, "z"}));
  const std::string wide_value = wide.Encode(), narrow_value = narrow.Encode();

  InlinedRowBatchView view;
  EXPECT_EQ(view.size(), 0u);
  view.Read(wide_value, 2);
  ASSERT_EQ(view.size(), 2u);
  EXPECT_EQ(view.end_snapshot(0), std::optional<int64_t>(4));
  view.Read(narrow_value, 2);
  ASSERT_EQ(view.size(), 1u);
  EXPECT_EQ(view.row_id(0), 9);
  EXPECT_EQ(view.end_snapshot(0), std::nullopt) << "no end left over from the wider batch";
  EXPECT_TRUE(view.CellsComplete());
  auto cells = view.ColumnCells(1);
  EXPECT_EQ(cells.Next(), std::optional<std::string_view>("z"));

  EXPECT_THROW(view.Read(wide_value, 3), store::CorruptionError);
  EXPECT_EQ(view.size(), 0u);
  view.Read(wide_value, 2);
  EXPECT_EQ(view.size(), 2u);
}

std::string Framed(const store::v1::InlinedRowBatchRecord& record) {
  return store::FrameValue(store::Kind::kInlinedRowBatch, record);
}

// A batch of more rows than are searched in place finds them by an index,
// through removals and a removed id coming back, decoded or built.
TEST(InlinedRowBatch, ALargeBatchFindsEveryLiveRow) {
  InlinedRowBatch batch(1);
  for (int64_t id = 0; id < 40; ++id) batch.Append(MakeRow(id * 3, std::nullopt, {"c"}));
  for (int64_t id = 0; id < 40; id += 4) batch.Remove(*batch.Find(id * 3));
  batch.Append(MakeRow(12, 7, {"back"}));
  auto decoded = InlinedRowBatch::Decode(batch.Encode(), 1);
  for (const auto* b : {&batch, &decoded}) {
    for (int64_t id = 0; id < 40; ++id) {
      EXPECT_EQ(b->Find(id * 3).has_value(), id % 4 != 0 || id == 4) << id;
      EXPECT_FALSE(b->Find(id * 3 + 1).has_value());
    }
    EXPECT_EQ(b->cell(*b->Find(12), 0), std::optional<std::string_view>("back"));
  }

  store::v1::InlinedRowBatchRecord twice;
  for (int64_t id = 0; id < 30; ++id) twice.add_row_ids(id);
  twice.add_row_ids(20);
  twice.add_columns(std::string(31, '\0'));
  EXPECT_THROW(InlinedRowBatch::Decode(Framed(twice), 1), store::CorruptionError);
}

TEST(InlinedRowBatch, AValueThatIsNoBatchOfTheTableIsCorruption) {
  InlinedRowBatch batch(1);
  batch.Append(MakeRow(1, std::nullopt, {"a"}));
  EXPECT_THROW(InlinedRowBatchView(batch.Encode(), 2), store::CorruptionError)
      << "a column count other than the table's";
  EXPECT_THROW(InlinedRowBatchView("not a value", 1), store::CorruptionError);

  store::v1::InlinedRowBatchRecord ends;
  ends.add_row_ids(1);
  ends.add_row_ids(2);
  ends.add_end_snapshots(4);
  ends.add_columns(
      std::string("\x02"
                  "a\x02"
                  "b",
                  4));
  EXPECT_THROW(InlinedRowBatchView(Framed(ends), 1), store::CorruptionError);

  store::v1::InlinedRowBatchRecord huge_end;
  huge_end.add_row_ids(1);
  huge_end.add_end_snapshots(UINT64_MAX);
  huge_end.add_columns(std::string("\x00", 1));
  EXPECT_THROW(InlinedRowBatchView(Framed(huge_end), 1), store::CorruptionError);

  store::v1::InlinedRowBatchRecord short_column;
  short_column.add_row_ids(1);
  short_column.add_row_ids(2);
  short_column.add_columns(
      std::string("\x02"
                  "a",
                  2));
  // The view reads the value in place: the bytes must outlive it.
  const std::string short_column_bytes = Framed(short_column);
  const InlinedRowBatchView view(short_column_bytes, 1);
  EXPECT_FALSE(view.CellsComplete());
  EXPECT_THROW(InlinedRowBatch::Decode(Framed(short_column), 1), store::CorruptionError);

  store::v1::InlinedRowBatchRecord overrun;
  overrun.add_row_ids(1);
  overrun.add_columns(
      std::string("\x09"
                  "ab",
                  3));
  EXPECT_THROW(InlinedRowBatch::Decode(Framed(overrun), 1), store::CorruptionError);

  store::v1::InlinedRowBatchRecord twice;
  twice.add_row_ids(1);
  twice.add_row_ids(1);
  twice.add_columns(std::string("\x00\x00", 2));
  EXPECT_THROW(InlinedRowBatch::Decode(Framed(twice), 1), store::CorruptionError);
}

}  // namespace
}  // namespace moraine::commit::inlined
