// The DuckLake catalog version axis (RFC 0012) at the store: which shape a
// store is served, the rules of the one-way raise, and the 1.1 rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog_version.h"
#include "commit/lake/store_records.h"
#include "commit/migrations/catalog_version_raise.h"
#include "commit/rows/row_transaction.h"
#include "commit/verbs/catalog.h"
#include "store/error.h"
#include "store/key.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using catalog::CatalogVersion;
using catalog::Cell;
using catalog::Row;
using commit::RaiseCatalogVersion;
using commit::RaiseOptions;

class CatalogVersionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    commit::Catalog::Open({.location = location_});  // genesis records version 1.0
    store_ = std::shared_ptr<store::KvStore>(store::OpenKvStore({.location = location_}));
  }

  std::optional<std::string> Recorded() {
    auto rows = commit::BeginRowTransaction(store_);
    auto recorded = rows->RecordedCatalogVersion();
    rows->Rollback();
    return recorded;
  }

  void Record(const std::string& label) {
    auto rows = commit::BeginRowTransaction(store_);
    rows->RecordCatalogVersion(label);
    rows->Commit();
  }

  // The head record: every batch rewrites it, so an unchanged head means
  // nothing was recorded.
  std::string Head() { return store_->GetSnapshot()->Get(commit::HeadKey()).value(); }

  std::vector<Row> ScanAll(const std::string& table, CatalogVersion shape = CatalogVersion::kV1_1) {
    auto rows = commit::BeginRowTransaction(store_, shape);
    std::vector<Row> result;
    rows->Scan(table, {}, [&](commit::RowHandle, const Row& row) { result.push_back(row); });
    rows->Rollback();
    return result;
  }

  std::string ServedVersionRow(CatalogVersion shape) {
    for (const Row& row : ScanAll("ducklake_metadata", shape)) {
      if (row[0] == Cell(std::string("version"))) return std::get<std::string>(row[1]);
    }
    return "<none>";
  }

  test::TempDir dir_;
  const std::string location_ = dir_.path("lake.moraine");
  std::shared_ptr<store::KvStore> store_;
};

TEST_F(CatalogVersionTest, StoresAreCreatedAt1_0) {
  EXPECT_EQ(Recorded(), "1.0");
  EXPECT_EQ(commit::ServedCatalogVersion(store_), CatalogVersion::kV1_0);
}

TEST_F(CatalogVersionTest, AStoreThatNeverRecordedAVersionReadsAs1_0) {
  // Remove the option the way a store written before it was recorded lacks it.
  store::WriteBatch batch;
  batch.Delete(store::Key(store::Subspace::kCurrent, store::Kind::kOption,
                          {static_cast<uint64_t>(store::OptionScope::kGlobal), 0})
                   .Encode());
  store_->Write(batch);
  EXPECT_EQ(Recorded(), std::nullopt);
  EXPECT_EQ(commit::ServedCatalogVersion(store_), CatalogVersion::kV1_0);
  EXPECT_EQ(RaiseCatalogVersion(store_, {.dry_run = true}),
            (commit::CatalogVersionRaise{"1.0", "1.1"}));
}

TEST_F(CatalogVersionTest, ADryRunReportsTheMoveAndRecordsNothing) {
  const std::string head = Head();
  EXPECT_EQ(RaiseCatalogVersion(store_, {.dry_run = true}),
            (commit::CatalogVersionRaise{"1.0", "1.1"}));
  // The acknowledgement does not turn a dry run into a raise.
  EXPECT_EQ(RaiseCatalogVersion(store_, {.dry_run = true, .confirm = true}),
            (commit::CatalogVersionRaise{"1.0", "1.1"}));
  EXPECT_EQ(Head(), head);
  EXPECT_EQ(Recorded(), "1.0");
}

TEST_F(CatalogVersionTest, ARaiseThatWouldRecordRefusesWithoutConfirmNamingTheDryRun) {
  const std::string head = Head();
  try {
    RaiseCatalogVersion(store_, {});
    FAIL() << "an unacknowledged raise must be refused";
  } catch (const store::InvalidArgumentError& error) {
    EXPECT_NE(std::string(error.what()).find("dry_run => true"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("confirm => true"), std::string::npos) << error.what();
  }
  EXPECT_EQ(Head(), head);
  EXPECT_EQ(Recorded(), "1.0");
}

TEST_F(CatalogVersionTest, AConfirmedRaiseRecords1_1AndIsIdempotent) {
  EXPECT_EQ(RaiseCatalogVersion(store_, {.confirm = true}),
            (commit::CatalogVersionRaise{"1.0", "1.1"}));
  EXPECT_EQ(Recorded(), "1.1");
  EXPECT_EQ(commit::ServedCatalogVersion(store_), CatalogVersion::kV1_1);

  const std::string head = Head();
  EXPECT_EQ(RaiseCatalogVersion(store_, {.confirm = true}),
            (commit::CatalogVersionRaise{"1.1", "1.1"}));
  EXPECT_EQ(RaiseCatalogVersion(store_, {}), (commit::CatalogVersionRaise{"1.1", "1.1"}));
  EXPECT_EQ(Head(), head);  // equal from and to: nothing recorded
}

TEST_F(CatalogVersionTest, AVersionThisBuildCannotOrderIsRefusedNeverLowered) {
  for (const std::string label : {"2.0", "0.4", "1.1-dev2"}) {
    Record(label);
    const std::string head = Head();
    for (const RaiseOptions options :
         {RaiseOptions{}, RaiseOptions{.dry_run = true}, RaiseOptions{.confirm = true}}) {
      try {
        RaiseCatalogVersion(store_, options);
        FAIL() << label << " must be refused";
      } catch (const store::UnsupportedVersionError& error) {
        EXPECT_NE(std::string(error.what()).find(label), std::string::npos) << error.what();
      }
    }
    EXPECT_EQ(Head(), head);
    EXPECT_EQ(Recorded(), label);
    EXPECT_EQ(ServedVersionRow(CatalogVersion::kV1_1), label);  // served verbatim
  }
}

TEST_F(CatalogVersionTest, A1_1Dev1StoreIsServedThe1_1ShapeAndReports1_1) {
  Record("1.1-dev1");
  EXPECT_EQ(commit::ServedCatalogVersion(store_), CatalogVersion::kV1_1);
  EXPECT_EQ(ServedVersionRow(CatalogVersion::kV1_1), "1.1");
  EXPECT_EQ(RaiseCatalogVersion(store_, {.confirm = true}),
            (commit::CatalogVersionRaise{"1.1", "1.1"}));
  EXPECT_EQ(Recorded(), "1.1-dev1");  // reported as 1.1, the record left alone
}

TEST_F(CatalogVersionTest, TheVersionOptionIsReservedFromRowWrites) {
  auto rows = commit::BeginRowTransaction(store_, CatalogVersion::kV1_1);
  std::optional<commit::RowHandle> version;
  rows->Scan("ducklake_metadata", {}, [&](commit::RowHandle handle, const Row& row) {
    if (row[0] == Cell(std::string("version"))) version = handle;
  });
  ASSERT_TRUE(version);
  Row raised = rows->GetRow(*version);
  raised[1] = std::string("1.1");
  EXPECT_THROW(rows->Update("ducklake_metadata", *version, raised), store::ConstraintError);
  EXPECT_THROW(rows->Delete("ducklake_metadata", *version), store::ConstraintError);
  EXPECT_THROW(
      rows->Insert("ducklake_metadata", {std::string("version"), std::string("1.1"), {}, {}}),
      store::ConstraintError);
  rows->Rollback();
  EXPECT_EQ(Recorded(), "1.0");
}

TEST_F(CatalogVersionTest, EachShapeServesItsOwnTables) {
  auto at_1_0 = commit::BeginRowTransaction(store_, CatalogVersion::kV1_0);
  auto at_1_1 = commit::BeginRowTransaction(store_, CatalogVersion::kV1_1);
  EXPECT_EQ(at_1_0->TableNames().size(), 28u);
  EXPECT_EQ(at_1_1->TableNames().size(), 29u);
  EXPECT_FALSE(at_1_0->FindTable("ducklake_view_column_tag"));
  ASSERT_TRUE(at_1_1->FindTable("ducklake_view_column_tag"));
  auto names = [](const commit::TableSpec& spec) {
    std::vector<std::string> result;
    for (const auto& column : spec.columns) result.push_back(column.name);
    return result;
  };
  const auto data_file = names(*at_1_1->FindTable("ducklake_data_file"));
  EXPECT_EQ(data_file.back(), "row_group_count");
  EXPECT_EQ(names(*at_1_0->FindTable("ducklake_data_file")).size() + 1, data_file.size());
  EXPECT_EQ(names(*at_1_1->FindTable("ducklake_delete_file")).back(), "row_group_count");
  EXPECT_EQ(names(*at_1_1->FindTable("ducklake_schema")).back(), "parent_schema_id");
  for (const char* stats : {"ducklake_file_column_stats", "ducklake_table_column_stats"}) {
    const auto columns = names(*at_1_1->FindTable(stats));
    EXPECT_EQ(std::vector<std::string>(columns.end() - 2, columns.end()),
              (std::vector<std::string>{"min_is_exact", "max_is_exact"}))
        << stats;
  }
  // moraine nests no schemas: parent_schema_id is always NULL.
  for (const Row& schema : ScanAll("ducklake_schema")) EXPECT_TRUE(catalog::IsNull(schema.back()));
}

Row DataFileRow(int64_t id, std::optional<int64_t> end, std::optional<int64_t> row_groups) {
  Row row = {id,          int64_t{1},
             int64_t{1},  Cell{},
             Cell{},      std::string("f.parquet"),
             true,        std::string("parquet"),
             int64_t{10}, int64_t{100},
             int64_t{20}, int64_t{0},
             Cell{},      Cell{},
             Cell{},      Cell{}};
  if (end) row[3] = *end;
  row.push_back(row_groups ? Cell{*row_groups} : Cell{});
  return row;
}

TEST_F(CatalogVersionTest, ASessionAt1_0KeepsTheFieldsOnly1_1Maps) {
  {
    auto rows = commit::BeginRowTransaction(store_, CatalogVersion::kV1_1);
    rows->Insert("ducklake_data_file", DataFileRow(7, std::nullopt, 3));
    rows->Commit();
  }
  {
    // The session that raised keeps its 1.0 shape; its updates must not
    // erase what a 1.1 writer recorded.
    auto rows = commit::BeginRowTransaction(store_, CatalogVersion::kV1_0);
    std::optional<commit::RowHandle> file;
    rows->Scan("ducklake_data_file", {}, [&](commit::RowHandle handle, const Row& row) {
      if (row[0] == Cell(int64_t{7})) file = handle;
    });
    ASSERT_TRUE(file);
    Row ended = rows->GetRow(*file);
    EXPECT_EQ(ended.size(), 16u);
    ended[3] = int64_t{5};
    rows->Update("ducklake_data_file", *file, ended);
    rows->Commit();
  }
  std::vector<Row> files;
  for (const Row& row : ScanAll("ducklake_data_file")) {
    if (row[0] == Cell(int64_t{7})) files.push_back(row);
  }
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0], DataFileRow(7, 5, 3));
}

Row ViewRow(int64_t id, std::optional<int64_t> end) {
  Row row = {id,
             std::string("0193a0a0-0000-7000-8000-000000000001"),
             int64_t{1},
             Cell{},
             int64_t{0},
             std::string("v"),
             std::string("duckdb"),
             std::string("SELECT 1 AS a"),
             Cell{}};
  if (end) row[3] = *end;
  return row;
}

Row ViewColumnTag(int64_t view, const std::string& column, int64_t begin,
                  std::optional<int64_t> end, const std::string& value) {
  return {view, column, begin, end ? Cell{*end} : Cell{}, std::string("comment"), value};
}

TEST_F(CatalogVersionTest, ViewColumnTagsKeepTheirOwnLifecycleAndNeverVersionTheView) {
  {
    auto rows = commit::BeginRowTransaction(store_, CatalogVersion::kV1_1);
    rows->Insert("ducklake_view", ViewRow(9, std::nullopt));
    rows->Insert("ducklake_view_column_tag", ViewColumnTag(9, "a", 2, std::nullopt, "first"));
    rows->Commit();
  }
  const auto views_before = ScanAll("ducklake_view");
  {
    // A tag-only change, the way DuckLake makes one: end the old tag, add the new.
    auto rows = commit::BeginRowTransaction(store_, CatalogVersion::kV1_1);
    std::optional<commit::RowHandle> tag;
    rows->Scan("ducklake_view_column_tag", {},
               [&](commit::RowHandle handle, const Row&) { tag = handle; });
    ASSERT_TRUE(tag);
    rows->Update("ducklake_view_column_tag", *tag, ViewColumnTag(9, "a", 2, 3, "first"));
    rows->Insert("ducklake_view_column_tag", ViewColumnTag(9, "a", 3, std::nullopt, "second"));
    rows->Commit();
  }
  EXPECT_EQ(ScanAll("ducklake_view"), views_before);  // no view version minted
  auto tags = ScanAll("ducklake_view_column_tag");
  std::sort(tags.begin(), tags.end(), [](const Row& a, const Row& b) {
    return std::get<int64_t>(a[2]) < std::get<int64_t>(b[2]);  // by begin_snapshot
  });
  EXPECT_EQ(tags, (std::vector<Row>{ViewColumnTag(9, "a", 2, 3, "first"),
                                    ViewColumnTag(9, "a", 3, std::nullopt, "second")}));
  // The 1.0 shape has no such table to read or write.
  auto at_1_0 = commit::BeginRowTransaction(store_, CatalogVersion::kV1_0);
  EXPECT_THROW(at_1_0->Insert("ducklake_view_column_tag", ViewColumnTag(9, "b", 4, {}, "x")),
               store::Error);
}

TEST(CatalogVersionRaise, AStoreWithoutACatalogHasNothingToRaise) {
  test::TempDir dir;
  auto store = std::shared_ptr<store::KvStore>(store::OpenKvStore({.location = dir.path("s")}));
  EXPECT_EQ(commit::ServedCatalogVersion(store), CatalogVersion::kV1_0);
  EXPECT_THROW(RaiseCatalogVersion(store, {.dry_run = true}), store::InvalidArgumentError);
}

TEST(CatalogVersionLabels, ParseAndServe) {
  EXPECT_EQ(catalog::ParseCatalogVersion(std::nullopt), CatalogVersion::kV1_0);
  EXPECT_EQ(catalog::ParseCatalogVersion("1.0"), CatalogVersion::kV1_0);
  EXPECT_EQ(catalog::ParseCatalogVersion("1.1"), CatalogVersion::kV1_1);
  EXPECT_EQ(catalog::ParseCatalogVersion("1.1-dev1"), CatalogVersion::kV1_1);
  for (const char* unknown : {"", "0.4", "1.2", "1.1-dev2", "1.10", " 1.1"}) {
    EXPECT_EQ(catalog::ParseCatalogVersion(std::string(unknown)), std::nullopt) << unknown;
  }
  EXPECT_EQ(catalog::ServedCatalogVersionLabel("1.1-dev1"), "1.1");
  EXPECT_EQ(catalog::ServedCatalogVersionLabel("7.0"), "7.0");
}

}  // namespace
}  // namespace moraine
