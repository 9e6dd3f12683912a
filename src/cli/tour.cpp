#include "cli/tour.h"

#include <filesystem>
#include <iostream>

#include "cli/result_format.h"
#include "duckdb.hpp"
#include "ducklake_adapter/host.h"

namespace moraine::cli {
namespace {

struct Step {
  const char* explanation;
  std::string sql;
};

}  // namespace

int RunTour(const std::string& work_dir) {
  namespace fs = std::filesystem;
  const fs::path root = fs::absolute(work_dir);
  fs::remove_all(root);
  fs::create_directories(root / "files");

  ducklake_adapter::Host host;
  auto connection = host.Connect();

  const std::string store = (root / "lake.moraine").string();
  const std::string data = (root / "files").string() + "/";
  const Step steps[] = {
      {"Attach a lake: its catalog is a moraine store (a directory), its data Parquet files",
       "ATTACH 'ducklake:moraine:" + store + "' AS lake (DATA_PATH '" + data + "')"},
      {"Create a table", "CREATE TABLE lake.orders (id INTEGER, name VARCHAR)"},
      {"Insert rows (small inserts are inlined into the catalog itself)",
       "INSERT INTO lake.orders VALUES (1, 'anvil'), (2, 'rope')"},
      {"Evolve the schema: a new column with a default",
       "ALTER TABLE lake.orders ADD COLUMN status VARCHAR DEFAULT 'new'"},
      {"Rename a column: the field id stays, only the name changes",
       "ALTER TABLE lake.orders RENAME COLUMN name TO item"},
      {"Insert under the new schema", "INSERT INTO lake.orders VALUES (3, 'glue', 'shipped')"},
      {"Read the table at head", "SELECT * FROM lake.orders ORDER BY id"},
      {"Time travel: the table as of snapshot 2, before both ALTERs",
       "SELECT * FROM lake.orders AT (VERSION => 2) ORDER BY id"},
      {"The snapshots DuckLake recorded",
       "SELECT snapshot_id, schema_version, changes FROM lake.snapshots() ORDER BY snapshot_id"},
      {"Under the hood: every column change ended a version and began a new one",
       "SELECT column_id, column_name, column_type, begin_snapshot, end_snapshot "
       "FROM __ducklake_metadata_lake.ducklake_column ORDER BY column_id, begin_snapshot"},
  };
  for (const auto& step : steps) {
    std::cout << "-- " << step.explanation << "\n" << step.sql << ";\n";
    auto result = connection->Query(step.sql);
    if (result->HasError()) {
      std::cerr << "moraine tour: " << result->GetError() << "\n";
      return 1;
    }
    if (result->properties.return_type == duckdb::StatementReturnType::QUERY_RESULT) {
      PrintResult(*result, *connection->context, OutputFormat::kBox, std::cout);
    }
    std::cout << "\n";
  }
  return 0;
}

}  // namespace moraine::cli
