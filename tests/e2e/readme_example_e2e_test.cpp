// The README's C++ example, kept honest: the test holds the example's code
// verbatim (checked against README.md, with only the store location
// replaced), runs it, and attaches the lake it wrote through the pinned
// DuckLake, which must read and extend it as its own (one writer).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "commit/verbs/catalog.h"
#include "support/ducklake_session.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

constexpr const char* kReadmeLocation = "/data/lake.moraine";

// The example as README.md shows it, between its ```cpp fence and the next fence.
constexpr const char* kExample =
    R"(auto catalog = moraine::commit::Catalog::Open({.location = "/data/lake.moraine"});
catalog->Commit([](moraine::commit::Transaction& txn) {
  auto t = txn.CreateTable("main", "orders", {moraine::catalog::ColumnDef::Leaf("id", "int32")});
  txn.AddColumn(t, {}, moraine::catalog::ColumnDef::Leaf("status", "varchar"));
});
auto before = catalog->At(1);  // the catalog as of snapshot 1
)";

std::string ReadmeExample() {
  std::ifstream readme(std::string(MORAINE_SOURCE_DIR) + "/README.md");
  std::stringstream text;
  text << readme.rdbuf();
  const std::string all = text.str();
  const auto use = all.find("Use the core from C++");
  const auto open = all.find("```cpp\n", use);
  const auto close = all.find("```", open + 7);
  if (use == std::string::npos || open == std::string::npos || close == std::string::npos) {
    return "";
  }
  return all.substr(open + 7, close - open - 7);
}

TEST(ReadmeExample, IsTheCodeThisTestRuns) { EXPECT_EQ(ReadmeExample(), kExample); }

TEST(ReadmeExample, RunsAndDuckLakeReadsTheLakeItWrote) {
  test::TempDir dir;
  const std::string location = dir.path("lake.moraine");
  ASSERT_NE(std::string(kReadmeLocation), location);
  {
    // kExample, with the location replaced.
    auto catalog = moraine::commit::Catalog::Open({.location = location});
    catalog->Commit([](moraine::commit::Transaction& txn) {
      auto t =
          txn.CreateTable("main", "orders", {moraine::catalog::ColumnDef::Leaf("id", "int32")});
      txn.AddColumn(t, {}, moraine::catalog::ColumnDef::Leaf("status", "varchar"));
    });
    auto before = catalog->At(1);  // the catalog as of snapshot 1
    ASSERT_NE(before->FindTable(0, "orders"), nullptr);
    EXPECT_EQ(before->FindTable(0, "orders")->columns.size(), 2u);
  }
  test::DuckLakeSession session;
  // The data path the verbs recorded (<location>.files/) is DuckLake's default on moraine.
  session.Run("ATTACH 'ducklake:moraine:" + location + "' AS lake");
  session.Run("INSERT INTO lake.orders VALUES (1, 'new'), (2, 'paid')");
  EXPECT_EQ(session.Query("SELECT id, status FROM lake.orders ORDER BY id"),
            (test::Rows{{"1", "new"}, {"2", "paid"}}));
  EXPECT_EQ(session.Query("SELECT column_name FROM (DESCRIBE lake.orders)"),
            (test::Rows{{"id"}, {"status"}}));
  session.Run("ALTER TABLE lake.orders ADD COLUMN note VARCHAR");
  session.Run("DETACH lake");
  auto reopened = moraine::commit::Catalog::Open({.location = location});
  EXPECT_NE(reopened->Head()->FindTable(0, "orders")->FindColumn({"note"}), nullptr);
}

}  // namespace
}  // namespace moraine
