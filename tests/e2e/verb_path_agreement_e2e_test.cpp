// The verb path and DuckLake agree: one DDL sequence with nested types goes
// through the C++ verbs (commit::Catalog on its own store) and, as DuckLake
// SQL, through the pinned DuckLake onto a moraine lake. Both stores must then
// hold the same ducklake_column rows: same field ids, versions, positions,
// names, DuckLake type names and parents (RFC 0012: "the verb path and the
// staged-row path assign identical ids to the same CREATE TABLE or ADD
// COLUMN"). Real DuckDB, the pinned DuckLake, real RocksDB.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "catalog/column_def.h"
#include "commit/rows/row_transaction.h"
#include "commit/verbs/catalog.h"
#include "store/kv_store.h"
#include "support/ducklake_session.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using catalog::ColumnDef;
using catalog::Id;
using commit::Transaction;
using test::Rows;

// The ducklake_column fields both paths must agree on.
const std::vector<std::string> kCompared = {"column_id",   "begin_snapshot", "end_snapshot",
                                            "table_id",    "column_order",   "column_name",
                                            "column_type", "parent_column"};

std::string CellText(const commit::Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return "NULL";
  if (const auto* number = std::get_if<int64_t>(&cell)) return std::to_string(*number);
  if (const auto* flag = std::get_if<bool>(&cell)) return *flag ? "true" : "false";
  if (const auto* text = std::get_if<std::string>(&cell)) return *text;
  return "<opaque>";
}

// Every ducklake_column row of the store at `location` (current and ended
// versions), projected on `kCompared`, sorted.
Rows ColumnRows(const std::string& location) {
  std::shared_ptr<store::KvStore> kv =
      store::OpenKvStore({.location = location, .read_only = true, .create_if_missing = false});
  auto txn = commit::BeginRowTransaction(kv);
  auto spec = txn->FindTable("ducklake_column");
  EXPECT_TRUE(spec.has_value());
  if (!spec) return {};
  std::vector<size_t> projection;
  for (const auto& name : kCompared) {
    auto it = std::find_if(spec->columns.begin(), spec->columns.end(),
                           [&](const commit::ColumnSpec& column) { return column.name == name; });
    EXPECT_NE(it, spec->columns.end()) << name;
    projection.push_back(static_cast<size_t>(it - spec->columns.begin()));
  }
  Rows rows;
  txn->Scan("ducklake_column", {}, [&](commit::RowHandle, const commit::Row& row) {
    std::vector<std::string> projected;
    for (size_t index : projection) projected.push_back(CellText(row.at(index)));
    rows.push_back(std::move(projected));
  });
  txn->Rollback();
  // By column_id, then begin_snapshot (numerically).
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    const auto key = [](const std::vector<std::string>& row) {
      return std::make_pair(std::stoll(row[0]), std::stoll(row[1]));
    };
    return key(a) < key(b);
  });
  return rows;
}

std::string Describe(const Rows& rows) {
  std::string out;
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); i++) out += (i ? " " : "  ") + kCompared[i] + "=" + row[i];
    out += "\n";
  }
  return out;
}

// One statement of the sequence, on both paths.
struct Statement {
  std::string sql;  // `$T` names the table
  std::function<void(Transaction&, Id table)> verb;
};

class VerbPathAgreement : public ::testing::Test {
 protected:
  // Runs `statements` through the verbs (one commit each) and through
  // DuckLake SQL, then returns {verb rows, DuckLake rows}.
  std::pair<Rows, Rows> RunBoth(const std::vector<ColumnDef>& create, const std::string& create_sql,
                                const std::vector<Statement>& statements) {
    const std::string verb_store = dir_.path("verbs");
    const std::string lake_store = dir_.path("lake");
    {
      auto catalog = commit::Catalog::Open({.location = verb_store});
      Id table = 0;
      auto created =
          catalog->Commit([&](Transaction& txn) { table = txn.CreateTable("main", "t", create); });
      EXPECT_EQ(created.snapshot_id, 1);
      for (const auto& statement : statements) {
        auto result = catalog->Commit([&](Transaction& txn) { statement.verb(txn, table); });
        EXPECT_TRUE(result.committed) << statement.sql;
      }
    }
    {
      test::DuckLakeSession session;
      session.Run("ATTACH 'ducklake:moraine:" + lake_store + "' AS lake (DATA_PATH '" +
                  dir_.path("files") + "/')");
      session.Run("CREATE TABLE lake.t " + create_sql);
      for (const auto& statement : statements) {
        session.Run(ReplaceTable(statement.sql));
      }
      EXPECT_EQ(session.Head(), static_cast<int64_t>(statements.size()) + 1);
      session.Run("DETACH lake");
    }
    return {ColumnRows(verb_store), ColumnRows(lake_store)};
  }

  static std::string ReplaceTable(std::string sql) {
    const auto at = sql.find("$T");
    if (at != std::string::npos) sql.replace(at, 2, "lake.t");
    return sql;
  }

  test::TempDir dir_;
};

TEST_F(VerbPathAgreement, NestedDdlSequenceWritesTheSameColumnRows) {
  const std::vector<ColumnDef> create = {
      ColumnDef::Leaf("id", "int32"),
      ColumnDef::Struct("s", {ColumnDef::Leaf("a", "int32"), ColumnDef::Leaf("b", "varchar")}),
      ColumnDef::List("l", ColumnDef::Leaf("", "int32")),
      ColumnDef::Map("m", ColumnDef::Leaf("", "varchar"), ColumnDef::Leaf("", "int32")),
  };
  const std::string create_sql =
      "(id INTEGER, s STRUCT(a INTEGER, b VARCHAR), l INTEGER[], m MAP(VARCHAR, INTEGER))";
  const std::vector<Statement> statements = {
      {"ALTER TABLE $T ADD COLUMN s.c BIGINT",
       [](Transaction& txn, Id t) { txn.AddColumn(t, {"s"}, ColumnDef::Leaf("c", "int64")); }},
      {"ALTER TABLE $T ADD COLUMN ls STRUCT(x INTEGER)[]",
       [](Transaction& txn, Id t) {
         txn.AddColumn(
             t, {}, ColumnDef::List("ls", ColumnDef::Struct("", {ColumnDef::Leaf("x", "int32")})));
       }},
      {"ALTER TABLE $T ADD COLUMN ls.element.y VARCHAR",
       [](Transaction& txn, Id t) {
         txn.AddColumn(t, {"ls", "element"}, ColumnDef::Leaf("y", "varchar"));
       }},
      {"ALTER TABLE $T RENAME COLUMN id TO key",
       [](Transaction& txn, Id t) { txn.RenameColumn(t, {"id"}, "key"); }},
      {"ALTER TABLE $T RENAME COLUMN s.a TO a2",
       [](Transaction& txn, Id t) {
         txn.RenameColumn(t, {"s", "a"}, "a2");
       }},
      {"ALTER TABLE $T DROP COLUMN m", [](Transaction& txn, Id t) { txn.DropColumn(t, {"m"}); }},
      {"ALTER TABLE $T DROP COLUMN s.b",
       [](Transaction& txn, Id t) {
         txn.DropColumn(t, {"s", "b"});
       }},
      {"ALTER TABLE $T ALTER COLUMN key SET TYPE BIGINT",
       [](Transaction& txn, Id t) { txn.ChangeColumnType(t, {"key"}, "int64"); }},
      {"ALTER TABLE $T ADD COLUMN mm MAP(VARCHAR, STRUCT(p INTEGER))",
       [](Transaction& txn, Id t) {
         txn.AddColumn(t, {},
                       ColumnDef::Map("mm", ColumnDef::Leaf("", "varchar"),
                                      ColumnDef::Struct("", {ColumnDef::Leaf("p", "int32")})));
       }},
      {"ALTER TABLE $T ADD COLUMN mm.value.q INTEGER",
       [](Transaction& txn, Id t) {
         txn.AddColumn(t, {"mm", "value"}, ColumnDef::Leaf("q", "int32"));
       }},
      {"ALTER TABLE $T RENAME COLUMN ls.element.x TO x2",
       [](Transaction& txn, Id t) {
         txn.RenameColumn(t, {"ls", "element", "x"}, "x2");
       }},
      {"ALTER TABLE $T DROP COLUMN ls", [](Transaction& txn, Id t) { txn.DropColumn(t, {"ls"}); }},
  };
  const auto [verbs, ducklake] = RunBoth(create, create_sql, statements);
  ASSERT_FALSE(ducklake.empty());
  EXPECT_EQ(verbs, ducklake) << "verb path:\n"
                             << Describe(verbs) << "DuckLake:\n"
                             << Describe(ducklake);
}

}  // namespace
}  // namespace moraine
