#include "cli/tour.h"

#include <filesystem>
#include <iostream>

#include "cli/result_format.h"
#include "duckdb.hpp"
#include "duckdb_shim/host.h"

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

  duckdb_shim::Host host;
  auto connection = host.Connect();

  // Until the moraine catalog is served, the tour proves the pinned stack end to
  // end on DuckLake's stock DuckDB-file catalog.
  const std::string catalog = (root / "stock.ducklake").string();
  const std::string data = (root / "files").string() + "/";
  const Step steps[] = {
      {"Attach a lake (catalog: a DuckDB file; data: Parquet under DATA_PATH)",
       "ATTACH 'ducklake:" + catalog + "' AS lake (DATA_PATH '" + data + "')"},
      {"Create a table", "CREATE TABLE lake.orders (id INTEGER, name VARCHAR)"},
      {"Insert rows", "INSERT INTO lake.orders VALUES (1, 'anvil'), (2, 'rope')"},
      {"Evolve the schema: a new column with a default",
       "ALTER TABLE lake.orders ADD COLUMN status VARCHAR DEFAULT 'new'"},
      {"Insert under the new schema", "INSERT INTO lake.orders VALUES (3, 'glue', 'shipped')"},
      {"Read the table at head", "SELECT * FROM lake.orders ORDER BY id"},
      {"Time travel: the table as of snapshot 2, before the ALTER",
       "SELECT * FROM lake.orders AT (VERSION => 2) ORDER BY id"},
      {"The snapshots DuckLake recorded",
       "SELECT snapshot_id, schema_version, changes FROM lake.snapshots() ORDER BY snapshot_id"},
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
