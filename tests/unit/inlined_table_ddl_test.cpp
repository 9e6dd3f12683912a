// Reading DuckLake's inlined data table DDL without DuckDB's parser: the one
// form DuckLake writes is read exactly (names unquoted, types as written),
// and everything else is left whole for DuckDB.
#include "ducklake_adapter/inlined_table_ddl.h"

#include <gtest/gtest.h>

namespace moraine::ducklake_adapter {
namespace {

using Columns = std::vector<std::pair<std::string, std::string>>;

TEST(InlinedTableDdl, DuckLakesFormIsReadWithItsNamesAndTypes) {
  const auto ddl = ReadInlinedTableDdl(
      "CREATE TABLE IF NOT EXISTS \"__ducklake_metadata_lake\".main.ducklake_inlined_data_1_7("
      "row_id BIGINT, \"odd \"\"name\"\"\" VARCHAR, d DECIMAL(9, 2), "
      "ts TIMESTAMP WITH TIME ZONE, s STRUCT(x INTEGER, \"y, z\" VARCHAR[])[], "
      "m MAP(VARCHAR, STRUCT(\"default\" INTEGER)))");
  ASSERT_TRUE(ddl);
  EXPECT_EQ(ddl->catalog, "__ducklake_metadata_lake");
  EXPECT_EQ(ddl->schema, "main");
  EXPECT_EQ(ddl->table, "ducklake_inlined_data_1_7");
  EXPECT_EQ(ddl->columns, (Columns{{"row_id", "BIGINT"},
                                   {"odd \"name\"", "VARCHAR"},
                                   {"d", "DECIMAL(9, 2)"},
                                   {"ts", "TIMESTAMP WITH TIME ZONE"},
                                   {"s", "STRUCT(x INTEGER, \"y, z\" VARCHAR[])[]"},
                                   {"m", "MAP(VARCHAR, STRUCT(\"default\" INTEGER))"}}));
}

TEST(InlinedTableDdl, AnythingElseIsLeftToDuckDB) {
  for (const char* statement : {
           "CREATE TABLE c.s.t(a INTEGER)",                          // no IF NOT EXISTS
           "CREATE TABLE IF NOT EXISTS s.t(a INTEGER)",              // two-part name
           "CREATE TABLE IF NOT EXISTS c.s.t(a INTEGER NOT NULL)",   // a constraint
           "CREATE TABLE IF NOT EXISTS c.s.t(a INTEGER DEFAULT 1)",  // a default
           "CREATE TABLE IF NOT EXISTS c.s.t(a VARCHAR COLLATE nocase)",
           "CREATE TABLE IF NOT EXISTS c.s.t(a INTEGER, PRIMARY KEY (a))",
           "CREATE TABLE IF NOT EXISTS c.s.t AS SELECT 1",
           "CREATE TABLE IF NOT EXISTS c.s.t(a ENUM('x'))",  // a literal
           "CREATE TABLE IF NOT EXISTS c.s.t(a INTEGER) extra",
           "CREATE TABLE IF NOT EXISTS c.s.t(a)",            // no type
           "CREATE TABLE IF NOT EXISTS c.s.t(\"a INTEGER)",  // unterminated
           "CREATE TABLE IF NOT EXISTS c.s.t()",
           "CREATE TABLE IF NOT EXISTS c.s.t(s STRUCT())",  // DuckDB's parser refuses it
           "CREATE TABLE IF NOT EXISTS c.s.t(s STRUCT( ))",
           "CREATE TABLE IF NOT EXISTSc.s.t(a INTEGER)",
       }) {
    EXPECT_FALSE(ReadInlinedTableDdl(statement)) << statement;
  }
}

TEST(InlinedTableDdl, ABatchIsCutAroundItsDdlKeepingTheOtherStatementsInOrder) {
  const std::string batch =
      "INSERT INTO c.s.x VALUES (1, 'a;b', 'it''s; CREATE TABLE IF NOT EXISTS c.s.y(a INT)');"
      "CREATE TABLE IF NOT EXISTS c.s.t1(a INTEGER);"
      "CREATE TABLE IF NOT EXISTS c.s.t2(b BIGINT);"
      "UPDATE c.s.x SET a = 2; DELETE FROM c.s.x;\n";
  const auto segments = SplitAtInlinedTableDdl(batch);
  ASSERT_TRUE(segments);
  ASSERT_EQ(segments->size(), 4u);
  EXPECT_FALSE((*segments)[0].ddl);
  EXPECT_EQ((*segments)[0].sql,
            "INSERT INTO c.s.x VALUES (1, 'a;b', 'it''s; CREATE TABLE IF NOT EXISTS c.s.y(a "
            "INT)');");
  ASSERT_TRUE((*segments)[1].ddl);
  EXPECT_EQ((*segments)[1].ddl->table, "t1");
  ASSERT_TRUE((*segments)[2].ddl);
  EXPECT_EQ((*segments)[2].ddl->table, "t2");
  EXPECT_FALSE((*segments)[3].ddl);
  EXPECT_EQ((*segments)[3].sql, "UPDATE c.s.x SET a = 2; DELETE FROM c.s.x;");
}

TEST(InlinedTableDdl, ABatchWhoseStatementsCannotBeCutSafelyIsNotCut) {
  for (const char* batch : {
           "SELECT 1; -- CREATE TABLE IF NOT EXISTS c.s.t(a INTEGER);",
           "SELECT $$x;$$; CREATE TABLE IF NOT EXISTS c.s.t(a INTEGER);",
           "SELECT E'\\';'; CREATE TABLE IF NOT EXISTS c.s.t(a INTEGER);",
           "SELECT 'open; CREATE TABLE IF NOT EXISTS c.s.t(a INTEGER);",
           "INSERT INTO c.s.x VALUES (1);",                          // no DDL at all
           "SELECT 'CREATE TABLE IF NOT EXISTS c.s.t(a INTEGER)';",  // only inside a string
       }) {
    EXPECT_FALSE(SplitAtInlinedTableDdl(batch)) << batch;
  }
}

}  // namespace
}  // namespace moraine::ducklake_adapter
