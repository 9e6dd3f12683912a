// Differential check of the catalog-table description: a stock DuckLake on a
// DuckDB-file catalog creates its `ducklake_*` tables, and DuckDB's own
// catalog views must report exactly the shapes CatalogTablesV1_0() describes,
// plus inlined tables whose names and fixed columns match their families.
//
// DuckLake attaches its metadata catalog HIDDEN, and DuckDB's catalog views
// (information_schema, duckdb_tables(), duckdb_constraints()) skip hidden
// databases. So the shapes are read from the catalog file itself, attached as
// a plain database after DuckLake detaches it; the creation order, which a
// reopened file does not keep, is read from DuckDB's query log.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "catalog/ducklake_tables.h"
#include "duckdb.hpp"
#include "ducklake_adapter/host.h"
#include "support/must_query.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using catalog::CatalogTable;
using catalog::InlinedTableName;
using catalog::TableColumn;

// DuckLake's catalog file attached directly, once DuckLake let go of it.
constexpr const char* kCatalogFile = "meta";

using test::MustQuery;

// (column name, DuckDB type name, nullable) in ordinal order.
using ColumnShape = std::tuple<std::string, std::string, bool>;
using TableShapes = std::map<std::string, std::vector<ColumnShape>>;

std::vector<ColumnShape> Describe(const std::vector<TableColumn>& columns) {
  std::vector<ColumnShape> shape;
  for (const TableColumn& column : columns) {
    shape.emplace_back(std::string(column.name), std::string(catalog::CellTypeName(column.type)),
                       column.nullable);
  }
  return shape;
}

// Every `ducklake_*` table of the metadata catalog, as information_schema reports it.
TableShapes ActualShapes(duckdb::Connection& connection) {
  auto result = MustQuery(connection, std::string(R"(
      SELECT table_name, column_name, data_type, is_nullable
      FROM information_schema.columns
      WHERE table_catalog = ')") + kCatalogFile +
                                          R"(' AND table_schema = 'main'
        AND table_name LIKE 'ducklake\_%' ESCAPE '\'
      ORDER BY table_name, ordinal_position)");
  TableShapes shapes;
  for (duckdb::idx_t row = 0; row < result->RowCount(); ++row) {
    std::string is_nullable = result->GetValue(3, row).ToString();
    EXPECT_TRUE(is_nullable == "YES" || is_nullable == "NO") << is_nullable;
    shapes[result->GetValue(0, row).ToString()].emplace_back(result->GetValue(1, row).ToString(),
                                                             result->GetValue(2, row).ToString(),
                                                             is_nullable == "YES");
  }
  return shapes;
}

// Primary-key columns per table, in key order.
std::map<std::string, std::vector<std::string>> ActualPrimaryKeys(duckdb::Connection& connection) {
  auto result = MustQuery(connection, std::string(R"(
      SELECT table_name, constraint_index, unnest(constraint_column_names),
             generate_subscripts(constraint_column_names, 1) AS position
      FROM duckdb_constraints()
      WHERE database_name = ')") + kCatalogFile +
                                          R"(' AND constraint_type = 'PRIMARY KEY'
      ORDER BY table_name, constraint_index, position)");
  std::map<std::string, std::vector<std::string>> keys;
  std::map<std::string, int64_t> constraint_of;
  for (duckdb::idx_t row = 0; row < result->RowCount(); ++row) {
    std::string table = result->GetValue(0, row).ToString();
    int64_t constraint = result->GetValue(1, row).GetValue<int64_t>();
    auto [it, inserted] = constraint_of.emplace(table, constraint);
    EXPECT_TRUE(inserted || it->second == constraint) << "two primary keys on " << table;
    keys[table].push_back(result->GetValue(2, row).ToString());
  }
  return keys;
}

class CatalogDuckLakeTablesE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    connection_ = host_.Connect();
    MustQuery(*connection_, "CALL enable_logging('QueryLog')");
    MustQuery(*connection_, "ATTACH 'ducklake:" + dir_.path("stock.ducklake") +
                                "' AS lake (DATA_PATH '" + dir_.path("files") + "/')");
  }

  // Detaches DuckLake and attaches its catalog file as a plain database.
  void OpenCatalogFile() {
    MustQuery(*connection_, "DETACH lake");
    MustQuery(*connection_,
              "ATTACH '" + dir_.path("stock.ducklake") + "' AS " + kCatalogFile + " (READ_ONLY)");
  }

  test::TempDir dir_;
  ducklake_adapter::Host host_;
  std::unique_ptr<duckdb::Connection> connection_;
};

TEST_F(CatalogDuckLakeTablesE2e, FixedTablesMatchTheDescriptionExactly) {
  TableShapes expected;
  for (const CatalogTable& table : catalog::CatalogTablesV1_0()) {
    expected[std::string(table.name)] = Describe(table.columns);
  }
  OpenCatalogFile();
  TableShapes actual = ActualShapes(*connection_);
  for (auto it = actual.begin(); it != actual.end();) {
    it = catalog::ParseInlinedTableName(it->first) ? actual.erase(it) : std::next(it);
  }
  ASSERT_EQ(actual.size(), 28u);
  for (const auto& [name, columns] : expected) {
    auto found = actual.find(name);
    ASSERT_NE(found, actual.end()) << name << " missing in stock DuckLake";
    EXPECT_EQ(found->second, columns) << name;
  }
  EXPECT_EQ(actual, expected);
}

TEST_F(CatalogDuckLakeTablesE2e, PrimaryKeysMatchTheDescriptionExactly) {
  std::map<std::string, std::vector<std::string>> expected;
  for (const CatalogTable& table : catalog::CatalogTablesV1_0()) {
    for (std::string_view key : table.primary_key) {
      expected[std::string(table.name)].emplace_back(key);
    }
  }
  OpenCatalogFile();
  EXPECT_EQ(ActualPrimaryKeys(*connection_), expected);
}

TEST_F(CatalogDuckLakeTablesE2e, TablesAreCreatedInTheDescribedOrder) {
  auto result = MustQuery(*connection_, R"(
      SELECT regexp_extract(message, 'CREATE TABLE [^(]*\.(ducklake_\w+)\(', 1)
      FROM duckdb_logs
      WHERE type = 'QueryLog' AND message LIKE '%CREATE TABLE%'
      ORDER BY query_id)");
  std::vector<std::string> actual;
  for (duckdb::idx_t row = 0; row < result->RowCount(); ++row) {
    actual.push_back(result->GetValue(0, row).ToString());
  }
  std::vector<std::string> expected;
  for (const CatalogTable& table : catalog::CatalogTablesV1_0()) {
    expected.emplace_back(table.name);
  }
  EXPECT_EQ(actual, expected);
}

TEST_F(CatalogDuckLakeTablesE2e, InlinedTablesBelongToTheirFamilies) {
  MustQuery(*connection_, "CREATE TABLE lake.t (i INTEGER)");
  MustQuery(*connection_, "INSERT INTO lake.t VALUES (1)");
  // More rows than the inlining limit land in a Parquet file; deleting one of
  // them while inlining is on records the deletion in an inlined delete table.
  MustQuery(*connection_, "INSERT INTO lake.t SELECT range::INTEGER FROM range(100, 200)");
  MustQuery(*connection_, "DELETE FROM lake.t WHERE i = 150");
  OpenCatalogFile();

  auto table_id_result = MustQuery(
      *connection_, std::string("SELECT table_id FROM ") + kCatalogFile +
                        ".main.ducklake_table WHERE table_name = 't' AND end_snapshot IS NULL");
  ASSERT_EQ(table_id_result->RowCount(), 1u);
  const int64_t table_id = table_id_result->GetValue(0, 0).GetValue<int64_t>();

  std::optional<InlinedTableName> data;
  std::optional<InlinedTableName> deletes;
  for (const auto& [name, columns] : ActualShapes(*connection_)) {
    if (catalog::FindCatalogTable(name) != nullptr) continue;
    std::optional<InlinedTableName> parsed = catalog::ParseInlinedTableName(name);
    ASSERT_TRUE(parsed.has_value()) << "unrecognized catalog table " << name;
    EXPECT_EQ(catalog::FormatInlinedTableName(*parsed), name);
    EXPECT_EQ(parsed->table_id, table_id) << name;
    if (parsed->kind == InlinedTableName::kData) {
      const auto fixed = Describe(catalog::InlinedDataLeadingColumns());
      ASSERT_GT(columns.size(), fixed.size()) << name;
      EXPECT_EQ(std::vector<ColumnShape>(columns.begin(), columns.begin() + fixed.size()), fixed)
          << name;
      EXPECT_EQ(columns[fixed.size()], ColumnShape("i", "INTEGER", true)) << name;
      data = parsed;
    } else {
      EXPECT_EQ(columns, Describe(catalog::InlinedDeleteColumns())) << name;
      deletes = parsed;
    }
  }
  ASSERT_TRUE(data.has_value()) << "no inlined data table";
  ASSERT_TRUE(deletes.has_value()) << "no inlined delete table";

  // DuckLake registers the data table under the same name and schema version.
  auto registered =
      MustQuery(*connection_, std::string("SELECT table_id, table_name, "
                                          "schema_version FROM ") +
                                  kCatalogFile + ".main.ducklake_inlined_data_tables");
  ASSERT_EQ(registered->RowCount(), 1u);
  EXPECT_EQ(registered->GetValue(0, 0).GetValue<int64_t>(), data->table_id);
  EXPECT_EQ(registered->GetValue(1, 0).ToString(), catalog::FormatInlinedTableName(*data));
  EXPECT_EQ(registered->GetValue(2, 0).GetValue<int64_t>(), data->schema_version);

  // The inlined row is there, unended.
  auto rows =
      MustQuery(*connection_, std::string("SELECT row_id, end_snapshot, i FROM ") + kCatalogFile +
                                  ".main." + catalog::FormatInlinedTableName(*data));
  ASSERT_EQ(rows->RowCount(), 1u);
  EXPECT_TRUE(rows->GetValue(1, 0).IsNull());
  EXPECT_EQ(rows->GetValue(2, 0).GetValue<int32_t>(), 1);

  // The one deleted Parquet row is recorded in the delete table.
  auto deleted = MustQuery(*connection_, std::string("SELECT count(*) FROM ") + kCatalogFile +
                                             ".main." + catalog::FormatInlinedTableName(*deletes));
  EXPECT_EQ(deleted->GetValue(0, 0).GetValue<int64_t>(), 1);
}

}  // namespace
}  // namespace moraine
