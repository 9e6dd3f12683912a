// Schema evolution as version transitions (RFC 0012), through the verb path on
// a real in-memory RocksDB store.
#include <gtest/gtest.h>

#include "store/error.h"
#include "support/catalog_fixture.h"

namespace moraine {
namespace {

using catalog::ColumnDef;
using catalog::ColumnRecord;
using catalog::Id;
using commit::Transaction;
using store::Kind;

class SchemaEvolutionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog_ = test::NewMemoryCatalog();
    auto result = catalog_->Commit([&](Transaction& txn) {
      table_ = txn.CreateTable("main", "t", test::IntColumns({"a", "b", "c", "d"}));
    });
    created_at_ = result.snapshot_id;
  }

  const catalog::TableState& HeadTable() {
    head_ = catalog_->Head();
    return *head_->Table(table_);
  }

  std::vector<std::string> TopLevelNames(const catalog::CatalogState& state) {
    std::vector<std::string> names;
    for (const ColumnRecord* column : state.Table(table_)->Children(catalog::kTopLevel)) {
      names.push_back(column->column_name());
    }
    return names;
  }

  std::unique_ptr<commit::Catalog> catalog_;
  std::shared_ptr<const catalog::CatalogState> head_;
  Id table_ = 0;
  Id created_at_ = 0;
};

TEST_F(SchemaEvolutionTest, GenesisIsDuckLakesInitialState) {
  auto genesis = catalog_->At(0);
  EXPECT_EQ(genesis->snapshot_id(), 0);
  EXPECT_EQ(genesis->schema_version(), 0);
  EXPECT_EQ(genesis->next_catalog_id(), 1);
  EXPECT_EQ(genesis->next_file_id(), 0);
  ASSERT_NE(genesis->FindSchema("main"), nullptr);
  EXPECT_EQ(genesis->FindSchema("main")->schema_id(), 0);
  EXPECT_TRUE(genesis->Tables().empty());
}

TEST_F(SchemaEvolutionTest, CreateTableAssignsIdsFromOneAndOrderEqualsId) {
  const auto& table = HeadTable();
  EXPECT_EQ(table.record.table_id(), 1);
  EXPECT_EQ(table.record.next_column_id(), 5u);
  Id expected = 1;
  for (const ColumnRecord* column : table.Children(catalog::kTopLevel)) {
    EXPECT_EQ(column->column_id(), expected);
    EXPECT_EQ(column->column_order(), expected);
    ++expected;
  }
  EXPECT_EQ(head_->schema_version(), 1);
}

TEST_F(SchemaEvolutionTest, NestedIdsArePreOrder) {
  Id nested_table = 0;
  catalog_->Commit([&](Transaction& txn) {
    nested_table = txn.CreateTable(
        "main", "n",
        {ColumnDef::Leaf("a", "int32"),
         ColumnDef::Struct("s", {ColumnDef::Leaf("x", "int32"), ColumnDef::Leaf("y", "varchar")}),
         ColumnDef::List("l", ColumnDef::Leaf("", "int32")),
         ColumnDef::Map("m", ColumnDef::Leaf("", "varchar"), ColumnDef::Leaf("", "int32")),
         ColumnDef::Leaf("b", "varchar")});
  });
  auto head = catalog_->Head();
  const auto& table = *head->Table(nested_table);
  // The same ids and parents the pinned DuckLake assigns to this CREATE TABLE.
  const std::vector<std::tuple<Id, std::string, Id>> expected = {
      {1, "a", 0},       {2, "s", 0}, {3, "x", 2},   {4, "y", 2},     {5, "l", 0},
      {6, "element", 5}, {7, "m", 0}, {8, "key", 7}, {9, "value", 7}, {10, "b", 0}};
  for (const auto& [id, name, parent] : expected) {
    const ColumnRecord* column = table.FindColumn(id);
    ASSERT_NE(column, nullptr) << id;
    EXPECT_EQ(column->column_name(), name);
    EXPECT_EQ(column->has_parent_column() ? column->parent_column() : 0, parent);
  }
  EXPECT_EQ(table.columns.size(), expected.size());
}

TEST_F(SchemaEvolutionTest, RenameWritesExactlyOneHistoryRecordAndTimeTravels) {
  auto result = catalog_->Commit([&](Transaction& txn) { txn.RenameColumn(table_, {"b"}, "b2"); });
  const Id renamed_at = result.snapshot_id;

  auto ended = test::HistoryWrittenAt(*catalog_, Kind::kColumn, renamed_at);
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].component(1), 2u);  // column b keeps field id 2
  EXPECT_EQ(test::CurrentColumnsBegunAt(HeadTable(), renamed_at), 1u);
  EXPECT_TRUE(test::HistoryWrittenAt(*catalog_, Kind::kTable, renamed_at).empty());

  EXPECT_EQ(TopLevelNames(*catalog_->At(created_at_)),
            (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(TopLevelNames(*catalog_->At(renamed_at)),
            (std::vector<std::string>{"a", "b2", "c", "d"}));
}

TEST_F(SchemaEvolutionTest, PromotionIsTimeTravelCorrect) {
  auto result =
      catalog_->Commit([&](Transaction& txn) { txn.ChangeColumnType(table_, {"a"}, "int64"); });
  EXPECT_EQ(test::HistoryWrittenAt(*catalog_, Kind::kColumn, result.snapshot_id).size(), 1u);
  EXPECT_EQ(HeadTable().FindColumn(Id{1})->column_type(), "int64");
  EXPECT_EQ(catalog_->At(created_at_)->Table(table_)->FindColumn(Id{1})->column_type(), "int32");
}

TEST_F(SchemaEvolutionTest, DropAndReAddNeverReusesFieldIds) {
  catalog_->Commit([&](Transaction& txn) { txn.DropColumn(table_, {"d"}); });
  Id readded = 0;
  catalog_->Commit([&](Transaction& txn) {
    readded = txn.AddColumn(table_, {}, ColumnDef::Leaf("d", "int32"));
  });
  EXPECT_EQ(readded, 5);  // strictly larger than the dropped id 4
  EXPECT_EQ(HeadTable().FindColumn(Id{4}), nullptr);
  EXPECT_EQ(HeadTable().FindColumn(Id{5})->column_order(), 5);
}

TEST_F(SchemaEvolutionTest, AddColumnWritesNoHistory) {
  auto result = catalog_->Commit(
      [&](Transaction& txn) { txn.AddColumn(table_, {}, ColumnDef::Leaf("e", "varchar")); });
  EXPECT_TRUE(test::HistoryWrittenAt(*catalog_, Kind::kColumn, result.snapshot_id).empty());
  EXPECT_TRUE(test::HistoryWrittenAt(*catalog_, Kind::kTable, result.snapshot_id).empty());
  EXPECT_EQ(test::CurrentColumnsBegunAt(HeadTable(), result.snapshot_id), 1u);
}

TEST_F(SchemaEvolutionTest, DroppingAStructDropsItsSubtreeAndTheLastFieldKeepsTheStruct) {
  catalog_->Commit([&](Transaction& txn) {
    txn.AddColumn(
        table_, {},
        ColumnDef::Struct("s", {ColumnDef::Leaf("x", "int32"),
                                ColumnDef::Struct("inner", {ColumnDef::Leaf("z", "int32")})}));
  });
  // s=5, x=6, inner=7, z=8
  catalog_->Commit([&](Transaction& txn) { txn.DropColumn(table_, {"s", "inner", "z"}); });
  ASSERT_NE(HeadTable().FindColumn(catalog::ColumnPath{"s", "inner"}), nullptr);
  auto result = catalog_->Commit([&](Transaction& txn) { txn.DropColumn(table_, {"s"}); });
  EXPECT_EQ(test::HistoryWrittenAt(*catalog_, Kind::kColumn, result.snapshot_id).size(), 3u);
  EXPECT_EQ(HeadTable().columns.size(), 4u);
}

TEST_F(SchemaEvolutionTest, FieldNamesAreScopedToTheirParent) {
  catalog_->Commit([&](Transaction& txn) {
    txn.AddColumn(table_, {}, ColumnDef::Struct("s1", {ColumnDef::Leaf("x", "int32")}));
    txn.AddColumn(table_, {}, ColumnDef::Struct("s2", {ColumnDef::Leaf("x", "int32")}));
  });
  EXPECT_THROW(catalog_->Commit([&](Transaction& txn) {
    txn.AddColumn(table_, {"s1"}, ColumnDef::Leaf("x", "int64"));
  }),
               store::ConstraintError);
  EXPECT_THROW(catalog_->Commit([&](Transaction& txn) { txn.RenameColumn(table_, {"a"}, "b"); }),
               store::ConstraintError);
}

TEST_F(SchemaEvolutionTest, TheLastTopLevelColumnCannotBeDropped) {
  catalog_->Commit([&](Transaction& txn) {
    txn.DropColumn(table_, {"a"});
    txn.DropColumn(table_, {"b"});
    txn.DropColumn(table_, {"c"});
  });
  const Id head_before = catalog_->Head()->snapshot_id();
  EXPECT_THROW(catalog_->Commit([&](Transaction& txn) { txn.DropColumn(table_, {"d"}); }),
               store::InvalidArgumentError);
  EXPECT_EQ(catalog_->Head()->snapshot_id(), head_before);  // a refused change lands nothing
}

TEST_F(SchemaEvolutionTest, SchemaVersionAdvancesOnColumnOpsOnlyAndNotOnData) {
  const Id v0 = catalog_->Head()->schema_version();
  catalog_->Commit([&](Transaction& txn) { txn.RegisterDataFile(table_, "f1.parquet", 10, 100); });
  EXPECT_EQ(catalog_->Head()->schema_version(), v0);
  const std::vector<std::function<void(Transaction&)>> schema_ops = {
      [&](Transaction& txn) { txn.AddColumn(table_, {}, ColumnDef::Leaf("e", "int32")); },
      [&](Transaction& txn) { txn.RenameColumn(table_, {"e"}, "f"); },
      [&](Transaction& txn) { txn.ChangeColumnType(table_, {"f"}, "int64"); },
      [&](Transaction& txn) { txn.SetColumnDefault(table_, {"a"}, "7"); },
      [&](Transaction& txn) { txn.DropColumnDefault(table_, {"a"}); },
      [&](Transaction& txn) { txn.DropColumn(table_, {"f"}); },
  };
  Id expected = v0;
  for (const auto& op : schema_ops) {
    catalog_->Commit(op);
    EXPECT_EQ(catalog_->Head()->schema_version(), ++expected);
  }
}

TEST_F(SchemaEvolutionTest, DataFilesSurviveEvolutionAndTimeTravel) {
  Id file_id = 0;
  auto registered = catalog_->Commit(
      [&](Transaction& txn) { file_id = txn.RegisterDataFile(table_, "f1.parquet", 10, 100); });
  catalog_->Commit([&](Transaction& txn) { txn.RenameColumn(table_, {"a"}, "a2"); });
  catalog_->Commit([&](Transaction& txn) { txn.DropColumn(table_, {"b"}); });
  EXPECT_NE(HeadTable().data_files.Find(file_id), nullptr);
  EXPECT_NE(catalog_->At(registered.snapshot_id)->Table(table_)->data_files.Find(file_id), nullptr);
  EXPECT_EQ(catalog_->At(created_at_)->Table(table_)->data_files.Find(file_id), nullptr);
}

TEST_F(SchemaEvolutionTest, NextColumnIdSurvivesDeletionOfTheHistoryItCameFrom) {
  catalog_->Commit([&](Transaction& txn) {
    txn.AddColumn(table_, {}, ColumnDef::Leaf("e", "int32"));  // id 5
  });
  catalog_->Commit([&](Transaction& txn) { txn.DropColumn(table_, {"e"}); });
  // Expire every history record: MAX(column_id) over history would now say 4.
  store::WriteBatch expire;
  auto view = catalog_->store().GetSnapshot();
  for (auto it = view->Scan(store::SubspaceRange(store::Subspace::kHistory)); it->Valid();
       it->Next()) {
    expire.Delete(it->key());
  }
  ASSERT_FALSE(expire.empty());
  catalog_->store().Write(expire);
  Id added = 0;
  catalog_->Commit(
      [&](Transaction& txn) { added = txn.AddColumn(table_, {}, ColumnDef::Leaf("g", "int32")); });
  EXPECT_EQ(added, 6);
}

TEST_F(SchemaEvolutionTest, UnknownSnapshotIsATypedError) {
  EXPECT_THROW(catalog_->At(999), store::NotFoundError);
  EXPECT_THROW(catalog_->At(-1), store::NotFoundError);
}

TEST_F(SchemaEvolutionTest, ChangesWithinOneTransactionLeaveNoHistory) {
  auto result = catalog_->Commit([&](Transaction& txn) {
    txn.AddColumn(table_, {}, ColumnDef::Leaf("e", "int32"));
    txn.RenameColumn(table_, {"e"}, "e2");
    txn.ChangeColumnType(table_, {"e2"}, "int64");
  });
  EXPECT_TRUE(test::HistoryWrittenAt(*catalog_, Kind::kColumn, result.snapshot_id).empty());
  const ColumnRecord* column = HeadTable().FindColumn(catalog::ColumnPath{"e2"});
  ASSERT_NE(column, nullptr);
  EXPECT_EQ(column->column_type(), "int64");
  EXPECT_EQ(column->begin_snapshot(), result.snapshot_id);
}

}  // namespace
}  // namespace moraine
