// The sqllogictest parser and substitutions, without DuckDB.
#include <gtest/gtest.h>

#include "cli/sqllogictest_parser.h"

namespace moraine::cli::slt {
namespace {

TEST(SqllogictestParser, StatementsAndQueries) {
  const auto file = ParseTestText(
      "# a comment\n"
      "statement ok\n"
      "CREATE TABLE t (i INT,\n"
      "  s VARCHAR)\n"
      "\n"
      "statement error con1\n"
      "SELECT nope\n"
      "----\n"
      "Referenced column\n"
      "second line\n"
      "\n"
      "statement maybe\n"
      "SELECT 1\n"
      "\n"
      "query IT rowsort my_label\n"
      "SELECT 1, 'a'\n"
      "----\n"
      "1\ta\n"
      "# not a comment inside results\n"
      "\n"
      "query I valuesort\n"
      "SELECT 1\n"
      "----\n"
      "1\n"
      "\n"
      "query II con2\n"
      "SELECT 1, 2\n"
      "\n"
      "statement ok\n"
      "SELECT 2\n"
      "# a comment ends the SQL\n");
  ASSERT_EQ(file.error, "");
  ASSERT_EQ(file.records.size(), 7u);
  EXPECT_EQ(file.test_records, 7);
  const auto& create = file.records[0];
  EXPECT_EQ(create.kind, RecordKind::kStatement);
  EXPECT_EQ(create.line, 2);
  EXPECT_EQ(create.expectation, Expectation::kOk);
  EXPECT_EQ(create.sql, "CREATE TABLE t (i INT,\n  s VARCHAR)");

  const auto& error = file.records[1];
  EXPECT_EQ(error.expectation, Expectation::kError);
  EXPECT_EQ(error.connection, "con1");
  EXPECT_EQ(error.expected_error, "Referenced column\nsecond line");

  EXPECT_EQ(file.records[2].expectation, Expectation::kMaybe);

  const auto& query = file.records[3];
  EXPECT_EQ(query.kind, RecordKind::kQuery);
  EXPECT_EQ(query.types, "IT");
  EXPECT_EQ(query.sort, SortMode::kRow);
  EXPECT_EQ(query.label, "my_label");
  EXPECT_EQ(query.expected, (std::vector<std::string>{"1\ta", "# not a comment inside results"}));

  EXPECT_EQ(file.records[4].sort, SortMode::kValue);
  EXPECT_EQ(file.records[5].sort, SortMode::kNone);
  EXPECT_EQ(file.records[5].connection, "con2");
  EXPECT_EQ(file.records[5].sql, "SELECT 1, 2");
  EXPECT_TRUE(file.records[5].expected.empty());
  EXPECT_EQ(file.records[6].sql, "SELECT 2");
}

TEST(SqllogictestParser, NestedLoopsAndForeach) {
  const auto file = ParseTestText(
      "loop i 0 3\n"
      "\n"
      "foreach t <signed> !hugeint varchar\n"
      "\n"
      "statement ok\n"
      "SELECT ${i}::${t}\n"
      "\n"
      "endloop\n"
      "\n"
      "endloop\n"
      "\n"
      "concurrentloop j 1 2\n"
      "\n"
      "statement ok\n"
      "SELECT ${j}\n"
      "\n"
      "endloop\n");
  ASSERT_EQ(file.error, "");
  ASSERT_EQ(file.records.size(), 2u);
  const auto& outer = file.records[0];
  EXPECT_EQ(outer.kind, RecordKind::kLoop);
  EXPECT_FALSE(outer.foreach);
  EXPECT_EQ(outer.iterator, "i");
  EXPECT_EQ(outer.start, 0);
  EXPECT_EQ(outer.end, 3);
  ASSERT_EQ(outer.body.size(), 1u);
  const auto& inner = outer.body[0];
  EXPECT_TRUE(inner.foreach);
  EXPECT_EQ(inner.tokens,
            (std::vector<std::string>{"tinyint", "smallint", "integer", "bigint", "varchar"}));
  ASSERT_EQ(inner.body.size(), 1u);
  EXPECT_EQ(inner.body[0].sql, "SELECT ${i}::${t}");
  EXPECT_TRUE(file.records[1].concurrent);
}

TEST(SqllogictestParser, ModeSkipSkipifOnlyifAndHalt) {
  const auto file = ParseTestText(
      "mode skip\n"
      "\n"
      "statement ok\n"
      "SELECT 'skipped'\n"
      "\n"
      "mode unskip\n"
      "\n"
      "skipif duckdb\n"
      "statement ok\n"
      "SELECT 'not for duckdb'\n"
      "\n"
      "onlyif postgresql\n"
      "statement ok\n"
      "SELECT 'only for postgres'\n"
      "\n"
      "onlyif duckdb\n"
      "statement ok\n"
      "SELECT 'kept'\n"
      "\n"
      "skipif i>2\n"
      "statement ok\n"
      "SELECT 'conditional'\n"
      "\n"
      "halt\n"
      "\n"
      "statement ok\n"
      "SELECT 'after halt'\n");
  ASSERT_EQ(file.error, "");
  ASSERT_EQ(file.records.size(), 2u);
  EXPECT_EQ(file.records[0].sql, "SELECT 'kept'");
  EXPECT_EQ(file.records[1].sql, "SELECT 'conditional'");
  ASSERT_EQ(file.records[1].conditions.size(), 1u);
  EXPECT_EQ(file.records[1].conditions[0].variable, "i");
  EXPECT_EQ(file.records[1].conditions[0].op, ">");
  EXPECT_EQ(file.records[1].conditions[0].value, "2");
  EXPECT_EQ(file.skipped_records, 3);
  EXPECT_EQ(file.test_records, 2);
}

TEST(SqllogictestParser, OtherDirectives) {
  const auto file = ParseTestText(
      "require ducklake\n"
      "\n"
      "test-env DUCKLAKE_CONNECTION __TEST_DIR__/{UUID}.db\n"
      "\n"
      "require-env HOME\n"
      "\n"
      "load __TEST_DIR__/x.db readonly\n"
      "\n"
      "restart\n"
      "\n"
      "reconnect\n"
      "\n"
      "sleep 1 millisecond\n"
      "\n"
      "reset label x\n"
      "\n"
      "hash-threshold 10\n"
      "\n"
      "unzip data/a.db.gz\n");
  ASSERT_EQ(file.error, "");
  std::vector<RecordKind> kinds;
  for (const auto& record : file.records) kinds.push_back(record.kind);
  EXPECT_EQ(kinds,
            (std::vector<RecordKind>{
                RecordKind::kRequire, RecordKind::kTestEnv, RecordKind::kRequireEnv,
                RecordKind::kLoad, RecordKind::kRestart, RecordKind::kReconnect, RecordKind::kSleep,
                RecordKind::kResetLabel, RecordKind::kHashThreshold, RecordKind::kUnzip}));
  EXPECT_EQ(file.records[1].params,
            (std::vector<std::string>{"DUCKLAKE_CONNECTION", "__TEST_DIR__/{UUID}.db"}));
}

TEST(SqllogictestParser, MalformedFilesReportTheLine) {
  EXPECT_EQ(ParseTestText("statement ok\nSELECT 1\n\nfrobnicate now\n").error,
            "line 4: unknown directive 'frobnicate'");
  EXPECT_EQ(ParseTestText("loop i 0 2\n\nstatement ok\nSELECT 1\n").error,
            "line 1: loop without endloop");
  EXPECT_EQ(ParseTestText("endloop\n").error, "line 1: endloop without a loop");
  EXPECT_NE(ParseTestText("require ducklake\nstatement ok\nSELECT 1\n").error, "");
  EXPECT_NE(ParseTestText("query X\nSELECT 1\n").error, "");
  EXPECT_NE(ParseTestText("statement ok\nSELECT 1\n----\nmessage\n").error, "");
  EXPECT_NE(ParseTestText("statement ok\n\n").error, "");
  EXPECT_NE(ParseTestText("loop i a b\n\nendloop\n").error, "");
}

TEST(SqllogictestParser, Substitutions) {
  SubstitutionContext context;
  context.variables = {{"DUCKLAKE_CONNECTION", "__TEST_DIR__/{UUID}.db"}, {"DATA", "/d"}};
  context.test_dir = "/tmp/t";
  context.test_name = "test/sql/a.test";
  int counter = 0;
  context.uuid = [&counter] { return "u" + std::to_string(++counter); };
  EXPECT_EQ(
      SubstituteKeywords("ATTACH 'ducklake:${DUCKLAKE_CONNECTION}' (DATA_PATH '{DATA}')", context),
      "ATTACH 'ducklake:/tmp/t/u1.db' (DATA_PATH '/d')");
  EXPECT_EQ(SubstituteKeywords("{UUID} {UUID} {TEST_DIR} {BASE_TEST_NAME}", context),
            "u2 u3 /tmp/t test_sql_a.test");

  EXPECT_EQ(SubstituteLoopVariables("${i}-${a}-${b}", {{"i", "3"}, {"a,b", "x,y"}}), "3-x-y");
  EXPECT_THROW(SubstituteLoopVariables("${a}", {{"a,b", "x"}}), std::runtime_error);

  const auto uuid = NewUuid();
  EXPECT_EQ(uuid.size(), 36u);
  EXPECT_EQ(uuid[14], '4');
  EXPECT_NE(uuid, NewUuid());
}

TEST(SqllogictestParser, Conditions) {
  const std::vector<Condition> skip_two = {{"i", "=", "2", true}};
  EXPECT_TRUE(ConditionsAllow(skip_two, {{"i", "1"}}));
  EXPECT_FALSE(ConditionsAllow(skip_two, {{"i", "2"}}));
  const std::vector<Condition> only_big = {{"i", ">=", "10", false}};
  EXPECT_FALSE(ConditionsAllow(only_big, {{"i", "9"}}));
  EXPECT_TRUE(ConditionsAllow(only_big, {{"i", "10"}}));
  EXPECT_THROW(ConditionsAllow(skip_two, {{"j", "2"}}), std::runtime_error);
}

TEST(SqllogictestParser, HashResults) {
  EXPECT_TRUE(IsHashResult("3 values hashing to 996dc30fa92a088d53929ed16588ec72"));
  EXPECT_FALSE(IsHashResult("3 values hashing to 996dc30f"));
  EXPECT_FALSE(IsHashResult("values hashing to 996dc30fa92a088d53929ed16588ec72"));
  EXPECT_FALSE(IsHashResult("1"));
}

}  // namespace
}  // namespace moraine::cli::slt
