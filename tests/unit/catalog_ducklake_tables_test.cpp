// The description of DuckLake's catalog tables: internal consistency and the
// inlined-table name codec. The e2e differential test checks the description
// against a stock DuckLake catalog.
#include "catalog/ducklake_tables.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <set>
#include <string>

#include "store/error.h"

namespace moraine::catalog {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(CatalogDuckLakeTables, FormatOneHasTwentyEightUniquelyNamedTables) {
  const auto& tables = CatalogTablesV1_0();
  ASSERT_EQ(tables.size(), 28u);
  std::set<std::string_view> names;
  for (const CatalogTable& table : tables) {
    EXPECT_TRUE(table.name.starts_with("ducklake_")) << table.name;
    EXPECT_TRUE(names.insert(table.name).second) << "duplicate " << table.name;
    EXPECT_FALSE(ParseInlinedTableName(table.name).has_value()) << table.name;
  }
  // Creation order: first and last as DuckLake creates them.
  EXPECT_EQ(tables.front().name, "ducklake_metadata");
  EXPECT_EQ(tables.back().name, "ducklake_sort_expression");
}

TEST(CatalogDuckLakeTables, ColumnsAreUniqueAndPrimaryKeysExistAndAreNotNull) {
  for (const CatalogTable& table : CatalogTablesV1_0()) {
    ASSERT_FALSE(table.columns.empty()) << table.name;
    std::set<std::string_view> names;
    for (const TableColumn& column : table.columns) {
      EXPECT_FALSE(column.name.empty()) << table.name;
      EXPECT_TRUE(names.insert(column.name).second) << table.name << "." << column.name;
    }
    for (std::string_view key : table.primary_key) {
      const TableColumn* column = table.FindColumn(key);
      ASSERT_NE(column, nullptr) << table.name << " primary key " << key;
      EXPECT_FALSE(column->nullable) << table.name << "." << key;
    }
  }
}

TEST(CatalogDuckLakeTables, PrimaryKeysAndNotNullAreExactlyDuckLakes) {
  std::set<std::string> keyed;
  std::set<std::string> not_null;
  for (const CatalogTable& table : CatalogTablesV1_0()) {
    for (std::string_view key : table.primary_key) {
      keyed.insert(std::string(table.name) + "." + std::string(key));
    }
    for (const TableColumn& column : table.columns) {
      if (!column.nullable)
        not_null.insert(std::string(table.name) + "." + std::string(column.name));
    }
  }
  const std::set<std::string> expected_keys = {
      "ducklake_snapshot.snapshot_id", "ducklake_snapshot_changes.snapshot_id",
      "ducklake_schema.schema_id", "ducklake_data_file.data_file_id",
      "ducklake_delete_file.delete_file_id"};
  EXPECT_EQ(keyed, expected_keys);
  std::set<std::string> expected_not_null = expected_keys;
  expected_not_null.insert("ducklake_metadata.key");
  expected_not_null.insert("ducklake_metadata.value");
  EXPECT_EQ(not_null, expected_not_null);
}

TEST(CatalogDuckLakeTables, FindCatalogTable) {
  const CatalogTable* column = FindCatalogTable("ducklake_column");
  ASSERT_NE(column, nullptr);
  EXPECT_EQ(column->name, "ducklake_column");
  ASSERT_EQ(column->columns.size(), 13u);
  EXPECT_EQ(column->columns[0].name, "column_id");
  EXPECT_EQ(column->columns[9].name, "nulls_allowed");
  EXPECT_EQ(column->columns[9].type, CellType::kBoolean);

  const CatalogTable* snapshot = FindCatalogTable("ducklake_snapshot");
  ASSERT_NE(snapshot, nullptr);
  ASSERT_NE(snapshot->FindColumn("snapshot_time"), nullptr);
  EXPECT_EQ(snapshot->FindColumn("snapshot_time")->type, CellType::kTimestampTz);
  EXPECT_EQ(snapshot->FindColumn("no_such_column"), nullptr);

  EXPECT_EQ(FindCatalogTable("ducklake_inlined_data_1_1"), nullptr);
  EXPECT_EQ(FindCatalogTable("column"), nullptr);
  EXPECT_EQ(FindCatalogTable("DUCKLAKE_COLUMN"), nullptr);
  EXPECT_EQ(FindCatalogTable(""), nullptr);
}

TEST(CatalogDuckLakeTables, CellTypeNamesAreDuckDbs) {
  EXPECT_EQ(CellTypeName(CellType::kBigint), "BIGINT");
  EXPECT_EQ(CellTypeName(CellType::kVarchar), "VARCHAR");
  EXPECT_EQ(CellTypeName(CellType::kBoolean), "BOOLEAN");
  EXPECT_EQ(CellTypeName(CellType::kUuid), "UUID");
  EXPECT_EQ(CellTypeName(CellType::kTimestampTz), "TIMESTAMP WITH TIME ZONE");
}

TEST(CatalogDuckLakeTables, InlinedFamiliesFixedColumns) {
  const auto& data = InlinedDataLeadingColumns();
  ASSERT_EQ(data.size(), 3u);
  EXPECT_EQ(data[0].name, "row_id");
  EXPECT_EQ(data[1].name, "begin_snapshot");
  EXPECT_EQ(data[2].name, "end_snapshot");
  const auto& deletes = InlinedDeleteColumns();
  ASSERT_EQ(deletes.size(), 3u);
  EXPECT_EQ(deletes[0].name, "file_id");
  EXPECT_EQ(deletes[1].name, "row_id");
  EXPECT_EQ(deletes[2].name, "begin_snapshot");
  for (const auto* family : {&data, &deletes}) {
    for (const TableColumn& column : *family) {
      EXPECT_EQ(column.type, CellType::kBigint) << column.name;
      EXPECT_TRUE(column.nullable) << column.name;
    }
  }
}

TEST(CatalogDuckLakeTables, InlinedNamesFormatLikeDuckLake) {
  EXPECT_EQ(InlinedDataTableName(2, 4), "ducklake_inlined_data_2_4");
  EXPECT_EQ(InlinedDataTableName(0, 0), "ducklake_inlined_data_0_0");
  EXPECT_EQ(InlinedDataTableName(kMax, kMax),
            "ducklake_inlined_data_9223372036854775807_9223372036854775807");
  EXPECT_EQ(InlinedDeleteTableName(17), "ducklake_inlined_delete_17");
  EXPECT_THROW(InlinedDataTableName(-1, 0), store::InvalidArgumentError);
  EXPECT_THROW(InlinedDataTableName(1, -1), store::InvalidArgumentError);
  EXPECT_THROW(InlinedDeleteTableName(-5), store::InvalidArgumentError);
}

TEST(CatalogDuckLakeTables, InlinedNamesRoundTrip) {
  const int64_t ids[] = {0, 1, 9, 10, 42, 1000000007, kMax - 1, kMax};
  for (int64_t table_id : ids) {
    for (int64_t schema_version : ids) {
      InlinedTableName data{InlinedTableName::kData, table_id, schema_version};
      std::string name = InlinedDataTableName(table_id, schema_version);
      EXPECT_EQ(FormatInlinedTableName(data), name);
      EXPECT_EQ(ParseInlinedTableName(name), data) << name;
    }
    InlinedTableName deletes{InlinedTableName::kDelete, table_id, 0};
    std::string name = InlinedDeleteTableName(table_id);
    EXPECT_EQ(FormatInlinedTableName(deletes), name);
    EXPECT_EQ(ParseInlinedTableName(name), deletes) << name;
  }
}

TEST(CatalogDuckLakeTables, MalformedInlinedNamesAreRejected) {
  const char* malformed[] = {
      "",
      "ducklake_inlined_data_",
      "ducklake_inlined_data_1",
      "ducklake_inlined_data_1_",
      "ducklake_inlined_data__1",
      "ducklake_inlined_data_1_x",
      "ducklake_inlined_data_x_1",
      "ducklake_inlined_data_1_2_3",
      "ducklake_inlined_data_1_2 ",
      " ducklake_inlined_data_1_2",
      "ducklake_inlined_data_01_2",
      "ducklake_inlined_data_1_02",
      "ducklake_inlined_data_00_0",
      "ducklake_inlined_data_+1_2",
      "ducklake_inlined_data_-1_2",
      "ducklake_inlined_data_1_-2",
      "ducklake_inlined_data_1_2x",
      "ducklake_inlined_data_tables",
      "ducklake_inlined_data_1.5_2",
      "DUCKLAKE_INLINED_DATA_1_2",
      "ducklake_inlined_delete_",
      "ducklake_inlined_delete_01",
      "ducklake_inlined_delete_+1",
      "ducklake_inlined_delete_-1",
      "ducklake_inlined_delete_1_2",
      "ducklake_inlined_delete_1x",
      "ducklake_inlined_deletes_1",
      "ducklake_inlined_1",
      "ducklake_column",
  };
  for (const char* name : malformed) {
    EXPECT_FALSE(ParseInlinedTableName(name).has_value()) << '"' << name << '"';
  }
  // An embedded NUL is not a digit.
  EXPECT_FALSE(
      ParseInlinedTableName(std::string_view("ducklake_inlined_delete_1\0", 26)).has_value());
}

TEST(CatalogDuckLakeTables, InlinedIdsThatOverflowAreRejected) {
  EXPECT_TRUE(ParseInlinedTableName("ducklake_inlined_delete_9223372036854775807").has_value());
  EXPECT_FALSE(ParseInlinedTableName("ducklake_inlined_delete_9223372036854775808").has_value());
  EXPECT_FALSE(ParseInlinedTableName("ducklake_inlined_delete_18446744073709551616").has_value());
  EXPECT_FALSE(
      ParseInlinedTableName("ducklake_inlined_delete_99999999999999999999999").has_value());
  EXPECT_FALSE(ParseInlinedTableName("ducklake_inlined_data_9223372036854775808_1").has_value());
  EXPECT_FALSE(ParseInlinedTableName("ducklake_inlined_data_1_9223372036854775808").has_value());
}

}  // namespace
}  // namespace moraine::catalog
