// RowMapping::ReadEntriesPayload, the scan's read of a container's entries
// from its wire form, against the rows the parsed container gives
// (ReadEntry): every column or some, a range of entry keys, the container's
// fields wherever they come on the wire, and a payload that does not parse.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog_version.h"
#include "catalog/row_mapping.h"
#include "store/error.h"
#include "store/records.pb.h"

namespace moraine::catalog {
namespace {

constexpr int64_t kAny = std::numeric_limits<int64_t>::min();
constexpr int64_t kAll = std::numeric_limits<int64_t>::max();

const RowMapping& Mapping(std::string_view table) {
  const RowMapping* mapping = FindRowMapping(CatalogVersion::kV1_1, table);
  EXPECT_NE(mapping, nullptr) << table;
  return *mapping;
}

// The stats of data file 7 of table 3: columns 1, 2 and 4.
store::v1::FileColumnStatsSetRecord StatsOfOneFile() {
  store::v1::FileColumnStatsSetRecord record;
  record.set_data_file_id(7);
  record.set_table_id(3);
  for (int64_t column : {1, 2, 4}) {
    auto* entry = record.add_entries();
    entry->set_column_id(column);
    entry->set_value_count(10 * column);
    entry->set_min_value("min" + std::to_string(column));
    if (column != 2) entry->set_max_value("max" + std::to_string(column));
    entry->set_contains_nan(column == 4);
  }
  return record;
}

std::vector<std::pair<Row, uint64_t>> ReadAll(const RowMapping& mapping, const std::string& payload,
                                              const std::vector<bool>& wanted, int64_t low,
                                              int64_t high) {
  return mapping.ReadEntriesPayload(payload, wanted, low, high);
}

TEST(RowMappingEntries, EveryEntryReadsAsTheParsedContainersRow) {
  const RowMapping& mapping = Mapping("ducklake_file_column_stats");
  const auto record = StatsOfOneFile();
  const auto rows = ReadAll(mapping, record.SerializeAsString(), {}, kAny, kAll);
  ASSERT_EQ(rows.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(rows[i].first, mapping.ReadEntry(record, i)) << i;
  }
}

TEST(RowMappingEntries, OnlyEntriesWithinTheKeyRangeAreShown) {
  const RowMapping& mapping = Mapping("ducklake_file_column_stats");
  const auto record = StatsOfOneFile();
  const auto rows = ReadAll(mapping, record.SerializeAsString(), {}, 2, 3);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].first, mapping.ReadEntry(record, 1));
  EXPECT_TRUE(ReadAll(mapping, record.SerializeAsString(), {}, 5, kAll).empty());
}

TEST(RowMappingEntries, UnwantedCellsAreNullAndWantedOnesAsParsed) {
  const RowMapping& mapping = Mapping("ducklake_file_column_stats");
  const auto record = StatsOfOneFile();
  std::vector<bool> wanted(mapping.table().columns.size(), false);
  wanted[1] = true;  // table_id, from the container
  wanted.back() = true;
  const auto rows = ReadAll(mapping, record.SerializeAsString(), wanted, kAny, kAll);
  ASSERT_EQ(rows.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const Row whole = mapping.ReadEntry(record, i);
    for (size_t column = 0; column < wanted.size(); ++column) {
      EXPECT_EQ(rows[i].first[column], wanted[column] ? whole[column] : Cell{})
          << i << " " << mapping.table().columns[column].name;
    }
  }
}

TEST(RowMappingEntries, ContainerFieldsAfterTheEntriesStillFillEveryRow) {
  const RowMapping& mapping = Mapping("ducklake_file_column_stats");
  const auto record = StatsOfOneFile();
  // The entries alone, then the container's fields: a parser merges both.
  store::v1::FileColumnStatsSetRecord entries_only = record;
  entries_only.clear_data_file_id();
  entries_only.clear_table_id();
  store::v1::FileColumnStatsSetRecord fields_only;
  fields_only.set_data_file_id(record.data_file_id());
  fields_only.set_table_id(record.table_id());
  const std::string payload = entries_only.SerializeAsString() + fields_only.SerializeAsString();
  const auto rows = ReadAll(mapping, payload, {}, kAny, kAll);
  ASSERT_EQ(rows.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(rows[i].first, mapping.ReadEntry(record, i)) << i;
}

TEST(RowMappingEntries, WriteOrdinalsComeWithTheirEntries) {
  const RowMapping& mapping = Mapping("ducklake_tag");
  store::v1::TagRecord record;
  record.set_object_id(5);
  for (uint64_t ordinal : {9u, 4u}) {
    auto* entry = record.add_entries();
    entry->set_begin_snapshot(1);
    entry->set_key("k" + std::to_string(ordinal));
    entry->set_value("v");
    entry->set_write_ordinal(ordinal);
  }
  const auto rows = ReadAll(mapping, record.SerializeAsString(), {}, kAny, kAll);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].first, mapping.ReadEntry(record, 0));
  EXPECT_EQ(rows[0].second, 9u);
  EXPECT_EQ(rows[1].first, mapping.ReadEntry(record, 1));
  EXPECT_EQ(rows[1].second, 4u);
}

TEST(RowMappingEntries, AnEntryThatDoesNotParseFailsTheWholeContainer) {
  const RowMapping& mapping = Mapping("ducklake_file_column_stats");
  auto record = StatsOfOneFile();
  record.mutable_entries(2)->set_min_value("ok");
  std::string payload = record.SerializeAsString();
  // The last entry's min_value "ok" becomes bytes that are not UTF-8.
  const auto at = payload.rfind("ok");
  ASSERT_NE(at, std::string::npos);
  payload[at] = '\xff';
  EXPECT_THROW(ReadAll(mapping, payload, {}, kAny, kAll), store::CorruptionError);
  // A truncated container, too.
  const std::string whole = StatsOfOneFile().SerializeAsString();
  EXPECT_THROW(ReadAll(mapping, whole.substr(0, whole.size() - 3), {}, kAny, kAll),
               store::CorruptionError);
}

}  // namespace
}  // namespace moraine::catalog
