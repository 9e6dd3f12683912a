// The bounds of a data file summary page (commit/rows/data_file_summary.h):
// per column, only what every entry has, texts and integers covering both
// of each entry's texts, integers only from canonical integer texts.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "commit/rows/data_file_summary.h"
#include "store/error.h"
#include "store/value_frame.h"

namespace moraine::commit::files {
namespace {

using store::v1::DataFileSummaryBounds;
using store::v1::DataFileSummaryPage;
using store::v1::FileColumnStatsEntry;

struct Stats {
  Stats(std::optional<std::string> min_value, std::optional<std::string> max_value,
        std::optional<int64_t> nulls = std::nullopt, std::optional<int64_t> values = std::nullopt,
        std::optional<bool> contains_nan = std::nullopt)
      : min(std::move(min_value)),
        max(std::move(max_value)),
        null_count(nulls),
        value_count(values),
        nan(contains_nan) {}
  std::optional<std::string> min, max;
  std::optional<int64_t> null_count, value_count;
  std::optional<bool> nan;
};

// A page of one file per element of `files`, each with column 1's `stats`
// (nullopt: no entry of column 1) and column 2's entry "a".."b".
DataFileSummaryPage Page(const std::vector<std::optional<Stats>>& files) {
  DataFileSummaryPage page;
  int64_t id = 0;
  for (const auto& stats : files) {
    auto& file = *page.add_files();
    file.set_data_file_id(id++);
    if (stats) {
      FileColumnStatsEntry& column = *file.add_columns();
      column.set_column_id(1);
      if (stats->min) column.set_min_value(*stats->min);
      if (stats->max) column.set_max_value(*stats->max);
      if (stats->null_count) column.set_null_count(*stats->null_count);
      if (stats->value_count) column.set_value_count(*stats->value_count);
      if (stats->nan) column.set_contains_nan(*stats->nan);
    }
    FileColumnStatsEntry& other = *file.add_columns();
    other.set_column_id(2);
    other.set_min_value("a");
    other.set_max_value("b");
  }
  return page;
}

TEST(DataFileSummaryBounds, CoverEveryTextOfEveryEntry) {
  const auto bounds = BoundsOf(Page({Stats{"10", "20", 0, 5, false}, Stats{"-3", "7", 2, 4, true},
                                     Stats{"30", "25", 1, 0, false}}));
  const auto* column = FindColumn(bounds, 1);
  ASSERT_NE(column, nullptr);
  // Bytewise: "-3" < "10" < ... < "7"; the entry whose min exceeds its max
  // is inside both ways.
  EXPECT_EQ(column->min_text(), "-3");
  EXPECT_EQ(column->max_text(), "7");
  EXPECT_EQ(column->min_integer(), -3);
  EXPECT_EQ(column->max_integer(), 30);
  EXPECT_EQ(column->max_null_count(), 2);
  EXPECT_EQ(column->max_value_count(), 5);
  EXPECT_TRUE(column->any_contains_nan());
  ASSERT_NE(FindColumn(bounds, 2), nullptr);
  EXPECT_EQ(FindColumn(bounds, 3), nullptr);
}

TEST(DataFileSummaryBounds, KeepOnlyWhatEveryEntryHas) {
  // An entry without column 1: no bounds of it at all.
  EXPECT_EQ(FindColumn(BoundsOf(Page({Stats{"1", "2"}, std::nullopt})), 1), nullptr);
  // An entry without a min: no min text and no integers, but the max text.
  const auto bounds = BoundsOf(Page({Stats{"1", "2", 0}, Stats{std::nullopt, "5"}}));
  const auto* column = FindColumn(bounds, 1);
  ASSERT_NE(column, nullptr);
  EXPECT_FALSE(column->has_min_text());
  EXPECT_EQ(column->max_text(), "5");
  EXPECT_FALSE(column->has_min_integer());
  EXPECT_FALSE(column->has_max_integer());
  EXPECT_FALSE(column->has_max_null_count());
  EXPECT_FALSE(column->has_max_value_count());
  EXPECT_FALSE(column->has_any_contains_nan());
}

TEST(DataFileSummaryBounds, TakeIntegersOnlyFromCanonicalIntegerTexts) {
  for (const std::string odd :
       {"007", "-0", "+5", "1.0", " 5", "5 ", "", "-", "99999999999999999999", "1e3", "0x10"}) {
    const auto bounds = BoundsOf(Page({Stats{"1", "2"}, Stats{odd, "9"}}));
    const auto* column = FindColumn(bounds, 1);
    ASSERT_NE(column, nullptr);
    EXPECT_FALSE(column->has_min_integer()) << "'" << odd << "'";
  }
  const auto bounds =
      BoundsOf(Page({Stats{"-9223372036854775808", "0"}, Stats{"0", "9223372036854775807"}}));
  EXPECT_EQ(FindColumn(bounds, 1)->min_integer(), INT64_MIN);
  EXPECT_EQ(FindColumn(bounds, 1)->max_integer(), INT64_MAX);
}

TEST(DataFileSummaryBounds, CountThePageWhereEveryEntryIsCurrent) {
  DataFileSummaryPage page = Page({Stats{"1", "2"}, Stats{"3", "4"}});
  page.mutable_files(0)->set_begin_snapshot(4);
  page.mutable_files(0)->set_record_count(10);
  page.mutable_files(1)->set_begin_snapshot(7);
  page.mutable_files(1)->set_record_count(5);
  auto bounds = BoundsOf(page);
  EXPECT_EQ(std::vector<int64_t>(bounds.data_file_ids().begin(), bounds.data_file_ids().end()),
            (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(bounds.record_count_sum(), 15);
  EXPECT_TRUE(EveryEntryLiveAt(bounds, 7));
  EXPECT_FALSE(EveryEntryLiveAt(bounds, 6));
  // An ended entry, and one without a record count.
  page.mutable_files(0)->set_end_snapshot(9);
  EXPECT_FALSE(EveryEntryLiveAt(BoundsOf(page), 8));
  page.mutable_files(0)->clear_end_snapshot();
  page.mutable_files(1)->clear_record_count();
  EXPECT_FALSE(BoundsOf(page).has_record_count_sum());
  // A sum past 64 bits is none.
  page.mutable_files(0)->set_record_count(INT64_MAX);
  page.mutable_files(1)->set_record_count(1);
  EXPECT_FALSE(BoundsOf(page).has_record_count_sum());
}

TEST(DataFileSummaryBounds, OutOfOrderColumnsAreCorruption) {
  DataFileSummaryBounds bounds;
  bounds.add_columns()->set_column_id(2);
  bounds.add_columns()->set_column_id(1);
  DataFileSummaryBounds read;
  EXPECT_THROW(
      ReadSummaryBounds(store::FrameValue(store::Kind::kDataFileSummaryBounds, bounds), &read),
      store::CorruptionError);
  EXPECT_THROW(ReadSummaryBounds("not a frame", &read), store::CorruptionError);
}

}  // namespace
}  // namespace moraine::commit::files
