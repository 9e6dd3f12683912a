// The `moraine sql` host, run as users run it: a separate process.
#include <gtest/gtest.h>

#include <fstream>

#include "support/run_process.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

const std::string kMoraine = MORAINE_EXECUTABLE;

TEST(CliSql, RunsCommandsInOrderAndPrintsCsv) {
  auto result = test::RunCommand(kMoraine + " sql --csv -c \"SELECT 1 AS a, 'x,y' AS b\" -c " +
                                 "\"SELECT NULL AS n\"");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.output, "a,b\n1,\"x,y\"\nn\n\n");
}

TEST(CliSql, PrintsJsonLines) {
  auto result = test::RunCommand(kMoraine + " sql --json -c \"SELECT 2.5 AS d, true AS t, " +
                                 "'q\\\"' AS s, NULL AS n\"");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.output, "{\"d\":2.5,\"t\":true,\"s\":\"q\\\"\",\"n\":null}\n");
}

TEST(CliSql, FirstErrorGoesToStderrAndStops) {
  test::TempDir dir;
  const std::string script = dir.path("script.sql");
  std::ofstream(script) << "SELECT 1 AS ok;\nSELECT nope;\nSELECT 3 AS never;\n";
  auto result = test::RunCommand(kMoraine + " sql --csv " + script + " 2>" + dir.path("err"));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.output, "ok\n1\n");
  std::ifstream err(dir.path("err"));
  std::string message((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  EXPECT_NE(message.find("nope"), std::string::npos) << message;
}

TEST(CliSql, ReadsStandardInputAndLoadsDuckLake) {
  test::TempDir dir;
  const std::string sql = "ATTACH 'ducklake:" + dir.path("c.ducklake") + "' AS lake (DATA_PATH '" +
                          dir.path("files") + "/'); CREATE TABLE lake.t (i INT); " +
                          "INSERT INTO lake.t VALUES (41), (42); SELECT max(i) AS m FROM lake.t;";
  auto result = test::RunCommand("echo \"" + sql + "\" | " + kMoraine + " sql --csv");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.output.find("m\n42\n"), std::string::npos) << result.output;
}

TEST(CliTour, ToursALakeOnMoraine) {
  test::TempDir dir;
  auto result = test::RunCommand(kMoraine + " tour --dir " + dir.path("tour") + " 2>&1");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("ducklake:moraine:"), std::string::npos);
  // The renamed column's ended version, read back from the moraine store.
  EXPECT_NE(result.output.find("│         2 │ name        │ varchar     │              1 │         "
                               "   4 │"),
            std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace moraine
