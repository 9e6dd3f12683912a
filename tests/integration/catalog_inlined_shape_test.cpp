// The inlined data tables the verb path declares for a table's schema
// versions (commit/rows/inlined_table_shape.h), on a real on-disk RocksDB
// store: a column change stores only the columns it touched, as a delta over
// an earlier keyed shape, and every declaration reads back as the table's
// columns at its schema version, whatever form it is stored in.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "commit/rows/inlined_table_shape.h"
#include "commit/rows/inlined_table_spec.h"
#include "commit/rows/inlined_tables.h"
#include "commit/verbs/catalog.h"
#include "store/error.h"
#include "support/catalog_fixture.h"
#include "support/temp_dir.h"
#include "tools/store_verifier.h"

namespace moraine {
namespace {

using catalog::ColumnDef;
using catalog::Id;
using catalog::InlinedTableName;
using commit::Transaction;

constexpr size_t kDeltaBytes = 1024;  // far below one column per 2,000

class InlinedShapeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::OpenKvStore({.location = dir_.path("lake.moraine")});
    catalog_ = commit::Catalog::Open(store_);
  }

  // Commits `body` and remembers the snapshot its schema version began at.
  void Commit(const std::function<void(Transaction&)>& body) {
    const auto result = catalog_->Commit(body);
    const auto head = catalog_->Head();
    began_.emplace(head->schema_version(), result.snapshot_id);
  }

  Id CreateTable(const std::string& name, const std::vector<ColumnDef>& columns) {
    Id id = 0;
    Commit([&](Transaction& txn) { id = txn.CreateTable("main", name, columns); });
    return id;
  }

  static std::vector<ColumnDef> Columns(int width) {
    std::vector<std::string> names;
    for (int i = 0; i < width; ++i) names.push_back("c" + std::to_string(i));
    return test::IntColumns(names);
  }

  InlinedTableName Name(Id table, Id schema_version) const {
    return {InlinedTableName::kData, table, schema_version};
  }

  // The stored shape of `table`'s inlined data table at its newest schema version.
  std::string NewestShape(Id table) {
    const auto version = catalog_->Head()->schema_version();
    auto value =
        store_->GetSnapshot()->Get(commit::inlined::ExistenceKey(Name(table, version)).Encode());
    if (!value) ADD_FAILURE() << "no inlined data table at schema version " << version;
    return value.value_or("");
  }

  // Every inlined data table `table` has reads back, through DuckLake's
  // FindTable, as the table's columns at its schema version; returns how
  // many there are.
  size_t ExpectDeclarationsMatchTheTable(Id table) {
    auto rows = commit::BeginRowTransaction(store_);
    size_t declared = 0;
    for (const auto& [version, snapshot] : began_) {
      const auto found = rows->FindTable(catalog::InlinedDataTableName(table, version));
      if (!found) continue;
      ++declared;
      const auto state = catalog_->At(snapshot);
      const auto expected = commit::InlinedDataTableSpec(*state->Table(table), version);
      if (!expected) {
        ADD_FAILURE() << "version " << version << " declared where DuckLake would not inline";
        continue;
      }
      EXPECT_EQ(found->name, expected->name);
      EXPECT_EQ(found->columns.size(), expected->columns.size()) << "at version " << version;
      for (size_t i = 0; i < std::min(found->columns.size(), expected->columns.size()); ++i) {
        EXPECT_EQ(found->columns[i].name, expected->columns[i].name) << "version " << version;
        EXPECT_EQ(found->columns[i].type, expected->columns[i].type) << "version " << version;
      }
    }
    rows->Rollback();
    const auto report = tools::VerifyStore(*store_->GetSnapshot());
    for (const auto& violation : report.violations) {
      ADD_FAILURE() << violation.check << " " << violation.key << ": " << violation.message;
    }
    return declared;
  }

  // Deletes the one row of catalog table `table` that `matches`, in `rows`.
  static void DeleteTheRow(commit::RowTransaction& rows, const std::string& table,
                           const std::function<bool(const catalog::Row&)>& matches) {
    std::vector<commit::RowHandle> found;
    rows.Scan(table, {}, [&](commit::RowHandle handle, const catalog::Row& row) {
      if (matches(row)) found.push_back(handle);
    });
    ASSERT_EQ(found.size(), 1u) << table;
    rows.Delete(table, found.front());
  }

  test::TempDir dir_;
  std::shared_ptr<store::KvStore> store_;
  std::unique_ptr<commit::Catalog> catalog_;
  std::map<Id, Id> began_;  // schema version -> the snapshot it began at
};

TEST_F(InlinedShapeTest, ColumnChangesOfAWideTableStoreWhatTheyTouched) {
  const Id table = CreateTable("wide", Columns(2000));
  EXPECT_TRUE(commit::inlined::IsKeyedShape(NewestShape(table)));
  const std::vector<std::function<void(Transaction&)>> changes = {
      [&](Transaction& txn) { txn.AddColumn(table, {}, ColumnDef::Leaf("added", "varchar")); },
      [&](Transaction& txn) { txn.RenameColumn(table, {"c7"}, "seven"); },
      [&](Transaction& txn) { txn.ChangeColumnType(table, {"c9"}, "int64"); },
      [&](Transaction& txn) { txn.DropColumn(table, {"c3"}); },
      [&](Transaction& txn) { txn.DropColumn(table, {"added"}); },
      [&](Transaction& txn) { txn.RenameColumn(table, {"seven"}, "c7"); },
  };
  for (const auto& change : changes) {
    Commit(change);
    const std::string shape = NewestShape(table);
    EXPECT_TRUE(commit::inlined::ShapeBase(shape).has_value());
    EXPECT_LT(shape.size(), kDeltaBytes);
  }
  EXPECT_EQ(ExpectDeclarationsMatchTheTable(table), changes.size() + 1);
}

TEST_F(InlinedShapeTest, AFieldChangeRedeclaresItsTopLevelColumn) {
  const Id table = CreateTable(
      "nested",
      {ColumnDef::Leaf("a", "int32"),
       ColumnDef::Struct("s", {ColumnDef::Leaf("x", "int32"), ColumnDef::Leaf("y", "varchar")}),
       ColumnDef::List("l", ColumnDef::Leaf("", "int32")), ColumnDef::Leaf("b", "varchar")});
  Commit([&](Transaction& txn) { txn.AddColumn(table, {"s"}, ColumnDef::Leaf("z", "int64")); });
  Commit([&](Transaction& txn) { txn.RenameColumn(table, {"s", "x"}, "renamed x"); });
  Commit([&](Transaction& txn) { txn.DropColumn(table, {"s", "y"}); });
  Commit([&](Transaction& txn) { txn.ChangeColumnType(table, {"s", "z"}, "float64"); });
  Commit([&](Transaction& txn) {
    txn.AddColumn(table, {}, ColumnDef::Struct("t", {ColumnDef::Leaf("u", "date")}));
    txn.RenameColumn(table, {"a"}, "first");
  });
  Commit([&](Transaction& txn) { txn.DropColumn(table, {"s"}); });
  EXPECT_TRUE(commit::inlined::ShapeBase(NewestShape(table)).has_value());
  EXPECT_EQ(ExpectDeclarationsMatchTheTable(table), 7u);
}

TEST_F(InlinedShapeTest, ManyTouchedColumnsStartAKeyedShapeAgain) {
  const Id table = CreateTable("t", Columns(4));
  bool rekeyed = false;
  for (size_t i = 0; i <= commit::inlined::kMaxShapeDeltaEntries + 1; ++i) {
    Commit([&](Transaction& txn) {
      txn.AddColumn(table, {}, ColumnDef::Leaf("added" + std::to_string(i), "int32"));
    });
    rekeyed = rekeyed || commit::inlined::IsKeyedShape(NewestShape(table));
  }
  EXPECT_TRUE(rekeyed);
  EXPECT_EQ(ExpectDeclarationsMatchTheTable(table), commit::inlined::kMaxShapeDeltaEntries + 3);
}

TEST_F(InlinedShapeTest, AChangeAfterOneThatDeclaredNoShapeDeclaresTheWholeTable) {
  const Id table = CreateTable("t", Columns(5));
  // A default changes the schema version but keeps the inlined data table:
  // the newest shape is then not the table's at its last schema version.
  Commit([&](Transaction& txn) { txn.SetColumnDefault(table, {"c1"}, "7"); });
  Commit([&](Transaction& txn) { txn.RenameColumn(table, {"c2"}, "two"); });
  EXPECT_TRUE(commit::inlined::IsKeyedShape(NewestShape(table)));

  // With inlining off for the table, a rename declares nothing; after it is
  // on again, the next change must not extend the shape from before.
  auto option = [&](bool insert) {
    auto rows = commit::BeginRowTransaction(store_);
    const catalog::Row row{std::string("data_inlining_row_limit"), std::string("0"),
                           std::string("table"), int64_t{table}};
    if (insert) {
      rows->Insert("ducklake_metadata", row);
    } else {
      DeleteTheRow(*rows, "ducklake_metadata", [&](const catalog::Row& r) { return r == row; });
    }
    rows->Commit();
  };
  option(true);
  Commit([&](Transaction& txn) { txn.RenameColumn(table, {"c3"}, "three"); });
  option(false);
  Commit([&](Transaction& txn) { txn.RenameColumn(table, {"c4"}, "four"); });
  EXPECT_TRUE(commit::inlined::IsKeyedShape(NewestShape(table)));
  EXPECT_EQ(ExpectDeclarationsMatchTheTable(table), 3u);
}

TEST_F(InlinedShapeTest, DroppingABaseKeysTheDeltasOverIt) {
  const Id table = CreateTable("t", Columns(6));
  const Id base_version = catalog_->Head()->schema_version();
  Commit([&](Transaction& txn) { txn.RenameColumn(table, {"c0"}, "zero"); });
  Commit([&](Transaction& txn) { txn.DropColumn(table, {"c5"}); });
  ASSERT_EQ(commit::inlined::ShapeBase(NewestShape(table)), base_version);

  // DuckLake drops a superseded inlined data table once it is empty, with its
  // registration.
  auto rows = commit::BeginRowTransaction(store_);
  DeleteTheRow(*rows, "ducklake_inlined_data_tables", [&](const catalog::Row& row) {
    return row[0] == catalog::Cell{table} && row[2] == catalog::Cell{base_version};
  });
  rows->DropTable(catalog::InlinedDataTableName(table, base_version));
  rows->Commit();
  EXPECT_TRUE(commit::inlined::IsKeyedShape(NewestShape(table)));
  EXPECT_EQ(ExpectDeclarationsMatchTheTable(table), 2u);
}

TEST_F(InlinedShapeTest, ADeltaWithoutItsBaseIsATypedError) {
  const Id table = CreateTable("t", Columns(3));
  const Id base_version = catalog_->Head()->schema_version();
  Commit([&](Transaction& txn) { txn.RenameColumn(table, {"c0"}, "zero"); });
  const Id version = catalog_->Head()->schema_version();
  store::WriteBatch lose_base;
  lose_base.Delete(commit::inlined::ExistenceKey(Name(table, base_version)).Encode());
  store_->Write(lose_base);

  auto rows = commit::BeginRowTransaction(store_);
  EXPECT_THROW(rows->FindTable(catalog::InlinedDataTableName(table, version)),
               store::CorruptionError);
  rows->Rollback();
  const auto report = tools::VerifyStore(*store_->GetSnapshot());
  EXPECT_TRUE(std::any_of(
      report.violations.begin(), report.violations.end(),
      [](const tools::Violation& violation) { return violation.check == "inlined-shape"; }));
}

}  // namespace
}  // namespace moraine
