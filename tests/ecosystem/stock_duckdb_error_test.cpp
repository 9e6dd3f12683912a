// Errors raised inside moraine reach the stock DuckDB CLI and Python as typed
// DuckDB errors with clean messages, though the extension throws them from its
// own private copy of DuckDB: a second writer, a corrupt value, a refused
// catalog version raise. A wrong DuckDB version is refused by DuckDB itself.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "ecosystem/stock_duckdb.h"
#include "store/key.h"
#include "store/key_range.h"
#include "store/kv_store.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using test::FrontEnd;

class StockDuckDBErrors : public ::testing::Test {
 protected:
  std::string Store() const { return dir_.path("lake.moraine"); }

  std::string Script(const std::string& sql) const {
    return test::Prelude(dir_.path("extensions"), test::MoraineFrom::kRepository,
                         MORAINE_EXTENSION_REPOSITORY) +
           "ATTACH 'ducklake:moraine:" + Store() + "' AS lake (DATA_PATH '" + dir_.path("files") +
           "/');\n" + sql;
  }

  // Runs `script` in both front ends; each must stop at the error. Returns
  // the CLI's message, after checking that Python raised the same one as a
  // typed exception: the class DuckDB's Python API maps the error type to.
  std::string Error(const std::string& script) {
    auto cli = test::RunStock(FrontEnd::kCli, script, dir_.path("cli.sql"));
    EXPECT_EQ(cli.exit_code, 1) << cli.output;
    auto python = test::RunStock(FrontEnd::kPython, script, dir_.path("python.sql"));
    EXPECT_EQ(python.exit_code, 1) << python.output;
    std::smatch typed;
    const std::regex python_error("^(\\w+Exception): ((\\w+( \\w+)*) Error: [\\s\\S]*)$");
    EXPECT_TRUE(std::regex_match(python.output, typed, python_error)) << python.output;
    if (typed.empty()) return cli.output;
    const std::string exception = typed[1], message = typed[2], type = typed[3];
    // Typed: not DuckDB's catch-all for exceptions it does not know.
    EXPECT_NE(exception, "InternalException") << python.output;
    EXPECT_NE(type, "INTERNAL") << python.output;
    EXPECT_EQ(cli.output, message) << "the CLI and Python report different errors";
    // Clean: moraine's own sentence (DuckLake may put its context before
    // it), said once: no layer's prefix before another's, no C++ names, no
    // stack trace.
    EXPECT_EQ(message.find("moraine: "), std::string::npos) << message;
    EXPECT_EQ(message.find("std::"), std::string::npos) << message;
    EXPECT_EQ(message.find("Stack Trace"), std::string::npos) << message;
    return message;
  }

  test::TempDir dir_;
};

TEST_F(StockDuckDBErrors, ASecondWriterIsRefused) {
  auto writer = store::OpenKvStore({.location = Store()});
  const std::string error = Error(Script("SELECT 1;\n"));
  EXPECT_NE(error.find("already open read-write"), std::string::npos) << error;
}

TEST_F(StockDuckDBErrors, ACorruptValueIsAnErrorNotACrash) {
  auto created = test::RunStock(FrontEnd::kPython, Script("CREATE TABLE lake.t (i INTEGER);\n"),
                                dir_.path("create.sql"));
  ASSERT_EQ(created.exit_code, 0) << created.output;
  {
    auto store = store::OpenKvStore({.location = Store()});
    auto view = store->GetSnapshot();
    auto it = view->Scan(store::PrefixRange(store::Subspace::kCurrent, store::Kind::kColumn));
    ASSERT_TRUE(it->Valid());
    store::WriteBatch damage;
    damage.Put(std::string(it->key()), "not a moraine value");
    store->Write(damage);
  }
  const std::string error = Error(Script("SELECT * FROM lake.t;\n"));
  EXPECT_NE(error.find("corrupt"), std::string::npos) << error;
}

TEST_F(StockDuckDBErrors, ARaiseWithoutConfirmIsRefused) {
  const std::string error = Error(Script("SELECT * FROM moraine_raise_catalog_version('lake');\n"));
  EXPECT_NE(error.find("one way"), std::string::npos) << error;
  // Refused means nothing recorded: the pinned DuckLake still attaches.
  auto again = test::RunStock(FrontEnd::kCli, Script("SELECT 1 AS ok;\n"), dir_.path("again.sql"));
  EXPECT_EQ(again.output, "ok\n1\n");
}

// An extension whose footer names another DuckDB is refused by DuckDB before
// it runs any of the file's code.
TEST_F(StockDuckDBErrors, AnotherDuckDBVersionIsRefusedByDuckDB) {
  const std::string file = dir_.path("moraine.duckdb_extension");
  std::filesystem::copy_file(MORAINE_LOADABLE_EXTENSION, file);
  {
    // The DuckDB version field: the sixth of the footer's eight 32-byte fields.
    std::fstream out(file, std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(-512 + 5 * 32, std::ios::end);
    const std::string other = "v1.4.4";
    out.write(other.c_str(), static_cast<std::streamsize>(other.size() + 1));
  }
  for (FrontEnd front_end : {FrontEnd::kCli, FrontEnd::kPython}) {
    auto result = test::RunStock(front_end, "LOAD '" + file + "';\n", dir_.path("load.sql"));
    EXPECT_EQ(result.exit_code, 1) << result.output;
    EXPECT_NE(result.output.find("The file was built specifically for DuckDB version 'v1.4.4' and "
                                 "can only be loaded with that version of DuckDB. (this version "
                                 "of DuckDB is 'v1.5.5')"),
              std::string::npos)
        << result.output;
  }
}

}  // namespace
}  // namespace moraine
