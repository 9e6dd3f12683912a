// `moraine migrate PATH`: the store-format migration from the command line.
#include <gtest/gtest.h>

#include <string>

#include "catalog/column_def.h"
#include "commit/migrations/store_format.h"
#include "commit/verbs/catalog.h"
#include "support/run_process.h"
#include "support/store_format_record.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

const std::string kMoraine = MORAINE_EXECUTABLE;

test::ProcessResult Moraine(const std::string& arguments) {
  return test::RunCommand(kMoraine + " " + arguments + " 2>&1");
}

TEST(CliMigrate, UpgradesAStoreThatPredatesTheFormatRecordOnceAndForAll) {
  test::TempDir dir;
  const std::string store = dir.path("lake.moraine");
  commit::Catalog::Open({.location = store})->Commit([](commit::Transaction& txn) {
    txn.CreateTable("main", "t", {catalog::ColumnDef::Leaf("a", "int32")});
  });
  test::WriteStoreFormat(store, std::nullopt);  // a store from before sys/format
  auto refused = Moraine("sql -c \"ATTACH '" + store + "' AS m (TYPE moraine)\"");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("moraine migrate " + store), std::string::npos) << refused.output;

  auto migrated = Moraine("migrate " + store);
  EXPECT_EQ(migrated.exit_code, 0) << migrated.output;
  EXPECT_EQ(migrated.output, "migrated " + store + " from store format 0 to " +
                                 std::to_string(commit::kStoreFormatVersion) + "\n");
  auto again = Moraine("migrate " + store);
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("already at store format"), std::string::npos) << again.output;

  auto attached = Moraine("sql --csv -c \"ATTACH '" + store +
                          "' AS m (TYPE moraine); SELECT table_name FROM m.ducklake_table\"");
  EXPECT_EQ(attached.exit_code, 0) << attached.output;
  EXPECT_EQ(attached.output, "table_name\nt\n");
}

TEST(CliMigrate, AMissingStoreIsAClearFailure) {
  test::TempDir dir;
  auto missing = Moraine("migrate " + dir.path("absent"));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("moraine: "), std::string::npos) << missing.output;
  auto no_path = Moraine("migrate");
  EXPECT_NE(no_path.exit_code, 0);
  EXPECT_NE(no_path.output.find("PATH"), std::string::npos) << no_path.output;
}

}  // namespace
}  // namespace moraine
