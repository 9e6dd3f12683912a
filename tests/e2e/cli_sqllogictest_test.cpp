// `moraine sqllogictest`, run as users run it: a separate process on .test files.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/run_process.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

const std::string kMoraine = MORAINE_EXECUTABLE;

std::string Write(const test::TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.path(name);
  std::ofstream(path) << text;
  return path;
}

std::string LastLine(const std::string& output) {
  std::string text = output;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  const auto newline = text.rfind('\n');
  return newline == std::string::npos ? text : text.substr(newline + 1);
}

test::ProcessResult RunSlt(const std::string& arguments) {
  return test::RunCommand(kMoraine + " sqllogictest " + arguments + " 2>&1");
}

const char* const kPassing = R"(# name: passing.test
require ducklake

require parquet

test-env GREETING nobody

test-env LAKE __TEST_DIR__/{UUID}.ducklake

statement ok
CREATE TABLE t (i INTEGER, s VARCHAR, b BOOLEAN, d DOUBLE)

statement ok
INSERT INTO t VALUES (3, 'c', true, 0.5), (1, '', false, 1.5), (2, NULL, NULL, 2.25)

# rows in any order, sorted by the runner
query ITTR rowsort
SELECT * FROM t
----
1	(empty)	false	1.5
2	NULL	NULL	2.25
3	c	true	0.5

query I valuesort
SELECT i FROM t ORDER BY i DESC
----
1
2
3

query IT nosort
SELECT i, s FROM t ORDER BY i
----
1
(empty)
2
NULL
3
c

query R
SELECT 0.1 + 0.2
----
0.3

query T
SELECT '${GREETING}'
----
hello

loop i 0 3

foreach word red green

statement ok
INSERT INTO t VALUES (${i} + 10, '${word}', true, 0)

endloop

endloop

query IT
SELECT count(*), string_agg(DISTINCT s, ',' ORDER BY s) FROM t WHERE i >= 10
----
6	green,red

statement ok
CREATE TABLE c (i INTEGER)

concurrentloop i 0 4

statement ok
INSERT INTO c VALUES (${i})

endloop

loop j 0 3

onlyif j=1
statement ok
INSERT INTO c VALUES (100)

endloop

query I
SELECT sum(i) FROM c
----
106

query I
SELECT 42
----
1 values hashing to 50a2fabfdd276f573ff97ace8b11c5f4

statement ok
ATTACH 'ducklake:${LAKE}' AS lake (DATA_PATH '__TEST_DIR__/files/', DATA_INLINING_ROW_LIMIT 0)

statement ok
CREATE TABLE lake.numbers AS SELECT range AS n FROM range(5)

query I
SELECT sum(n) FROM lake.numbers
----
10

query I
SELECT count(*) FROM glob('__TEST_DIR__/files/**')
----
1

statement ok
CREATE TABLE uuids AS SELECT '{UUID}' AS a, '{UUID}' AS b

query I
SELECT a <> b AND length(a) = 36 FROM uuids
----
true

mode skip

statement ok
THIS IS NOT SQL

mode unskip

skipif duckdb
statement ok
NOR IS THIS

restart

# restart drops the in-memory session database
statement error
SELECT * FROM t
----
Table with name t does not exist

load __TEST_DIR__/session.duckdb

statement ok
CREATE TABLE kept AS SELECT 7 AS k

restart

query I
SELECT k FROM kept
----
7
)";

TEST(CliSqllogictest, PassingFileExitsZero) {
  test::TempDir dir;
  const auto file = Write(dir, "passing.test", kPassing);
  auto result = RunSlt("--env GREETING=hello " + file);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(LastLine(result.output), "1 passed, 0 failed, 0 skipped") << result.output;
}

// Regression: two --env flags before the files once swallowed the files.
TEST(CliSqllogictest, SeveralEnvFlagsLeaveTheFilesAlone) {
  test::TempDir dir;
  const auto file = Write(dir, "two_envs.test", R"(test-env FIRST a

test-env SECOND b

query T
SELECT '${FIRST}' || '${SECOND}'
----
xy
)");
  auto result = RunSlt("--env FIRST=x --env SECOND=y " + file);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(LastLine(result.output), "1 passed, 0 failed, 0 skipped") << result.output;
}

TEST(CliSqllogictest, TestEnvFallsBackToItsDefault) {
  test::TempDir dir;
  const auto file = Write(dir, "greeting.test", R"(test-env GREETING nobody

query T
SELECT '${GREETING}'
----
nobody
)");
  auto result = RunSlt(file);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(LastLine(result.output), "1 passed, 0 failed, 0 skipped") << result.output;
}

// A file that detaches its lake and attaches it again, as DuckLake's
// multiple_column_changes.test does: the {UUID} of its DUCKLAKE_CONNECTION
// must name the same catalog both times.
const char* const kReattach = R"(require ducklake

test-env DUCKLAKE_CONNECTION __TEST_DIR__/{UUID}.db

test-env DATA_PATH __TEST_DIR__

statement ok
ATTACH 'ducklake:${DUCKLAKE_CONNECTION}' AS lake (DATA_PATH '${DATA_PATH}/files')

statement ok
CREATE TABLE lake.t AS SELECT 42 AS i

statement ok
DETACH lake

statement ok
ATTACH 'ducklake:${DUCKLAKE_CONNECTION}' AS lake (DATA_PATH '${DATA_PATH}/files')

query I
SELECT i FROM lake.t
----
42

query I
SELECT '${DUCKLAKE_CONNECTION}' = '${DUCKLAKE_CONNECTION}'
----
true
)";

// Regression: {UUID} was expanded afresh at every use, so the re-attach
// landed on a new, empty catalog ("Table with name t does not exist").
TEST(CliSqllogictest, AVariableNamesOneCatalogForTheWholeFile) {
  test::TempDir dir;
  const auto file = Write(dir, "reattach.test", kReattach);
  auto stock = RunSlt(file);
  EXPECT_EQ(LastLine(stock.output), "1 passed, 0 failed, 0 skipped") << stock.output;
  // The same through --env, on a moraine store.
  auto moraine = RunSlt("--env 'DUCKLAKE_CONNECTION=moraine:__TEST_DIR__/{UUID}.moraine' " + file);
  EXPECT_EQ(LastLine(moraine.output), "1 passed, 0 failed, 0 skipped") << moraine.output;
}

// --env-prefix puts 'moraine:' before the file's own path: the catalog lives
// where the file names it, as a moraine store directory.
TEST(CliSqllogictest, EnvPrefixKeepsTheFilesOwnCatalogPath) {
  test::TempDir dir;
  const auto file = Write(dir, "prefix.test", R"(require ducklake

test-env DUCKLAKE_CONNECTION __TEST_DIR__/own_name.db

query T
SELECT '${DUCKLAKE_CONNECTION}' LIKE 'moraine:%/own_name.db'
----
true

statement ok
ATTACH 'ducklake:${DUCKLAKE_CONNECTION}' AS lake (DATA_PATH '__TEST_DIR__/files')

query I
SELECT count(*) FROM glob('__TEST_DIR__/own_name.db/CURRENT')
----
1
)");
  auto result = RunSlt("--env-prefix DUCKLAKE_CONNECTION=moraine: " + file);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(LastLine(result.output), "1 passed, 0 failed, 0 skipped") << result.output;
  auto malformed = RunSlt("--env-prefix DUCKLAKE_CONNECTION " + file);
  EXPECT_EQ(malformed.exit_code, 2) << malformed.output;
  EXPECT_NE(malformed.output.find("--env-prefix takes NAME=PREFIX"), std::string::npos)
      << malformed.output;
}

TEST(CliSqllogictest, WrongResultFailsWithExpectedAndActual) {
  test::TempDir dir;
  const auto good = Write(dir, "good.test", "query I\nSELECT 1\n----\n1\n");
  const auto bad =
      Write(dir, "bad.test", "statement ok\nSELECT 1\n\nquery II\nSELECT 1, 'x'\n----\n1\ty\n");
  auto result = RunSlt(good + " " + bad);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("FAIL " + bad + ":4: wrong result"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("SELECT 1, 'x'"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("expected:\n    1\ty\n  actual:\n    1\tx\n"), std::string::npos)
      << result.output;
  EXPECT_EQ(LastLine(result.output), "1 passed, 1 failed, 0 skipped") << result.output;
}

TEST(CliSqllogictest, MissingExtensionSkipsTheFile) {
  test::TempDir dir;
  const auto file = Write(dir, "missing.test",
                          "require ducklake\n\nrequire no_such_extension_anywhere\n\n"
                          "statement ok\nTHIS WOULD FAIL\n");
  auto result = RunSlt(file);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("require no_such_extension_anywhere"), std::string::npos)
      << result.output;
  EXPECT_EQ(LastLine(result.output), "0 passed, 0 failed, 1 skipped") << result.output;
}

TEST(CliSqllogictest, FileCoveredByModeSkipIsSkipped) {
  test::TempDir dir;
  const auto file = Write(dir, "skipped.test", "mode skip\n\nstatement ok\nNOT SQL\n");
  auto result = RunSlt(file);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(LastLine(result.output), "0 passed, 0 failed, 1 skipped") << result.output;
}

TEST(CliSqllogictest, StatementErrorMatchesTheMessage) {
  test::TempDir dir;
  const auto matching = Write(dir, "matching.test",
                              "statement error\nSELECT * FROM nowhere\n----\n"
                              "Table with name nowhere does not exist\n\n"
                              "statement error\nSELECT * FROM nowhere\n----\n"
                              "<REGEX>:.*nowhere.*exist.*\n\n"
                              "statement error\nSELECT * FROM nowhere\n");
  const auto wrong = Write(dir, "wrong.test",
                           "statement error\nSELECT * FROM nowhere\n----\nsome other message\n");
  const auto succeeds = Write(dir, "succeeds.test", "statement error\nSELECT 1\n");
  auto result = RunSlt(matching + " " + wrong + " " + succeeds);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("FAIL " + wrong + ":1: wrong error message"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("FAIL " + succeeds + ":1: statement succeeded"), std::string::npos)
      << result.output;
  EXPECT_EQ(LastLine(result.output), "1 passed, 2 failed, 0 skipped") << result.output;
}

TEST(CliSqllogictest, UnknownDirectiveFailsTheFileClearly) {
  test::TempDir dir;
  const auto file = Write(dir, "odd.test", "statement ok\nSELECT 1\n\nfrobnicate now\n");
  auto result = RunSlt(file);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find(file + ":4: malformed test file: unknown directive 'frobnicate'"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(LastLine(result.output), "0 passed, 1 failed, 0 skipped") << result.output;
}

TEST(CliSqllogictest, KeepGoingReportsEveryFailingRecord) {
  test::TempDir dir;
  const auto file =
      Write(dir, "two.test", "query I\nSELECT 1\n----\n2\n\nquery I\nSELECT 3\n----\n4\n");
  auto first_only = RunSlt(file);
  EXPECT_EQ(first_only.output.find(file + ":6:"), std::string::npos) << first_only.output;
  auto all = RunSlt("--keep-going " + file);
  EXPECT_NE(all.output.find(file + ":1:"), std::string::npos) << all.output;
  EXPECT_NE(all.output.find(file + ":6:"), std::string::npos) << all.output;
  EXPECT_EQ(LastLine(all.output), "0 passed, 1 failed, 0 skipped") << all.output;
}

}  // namespace
}  // namespace moraine
