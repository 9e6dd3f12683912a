#include "duckdb_shim/lake_function_args.h"

#include "duckdb/main/attached_database.hpp"
#include "duckdb/main/database_manager.hpp"
#include "duckdb_shim/duckdb_release.h"
#include "duckdb_shim/moraine_catalog.h"

namespace moraine::duckdb_shim {

std::string Argument(const duckdb::TableFunctionBindInput& input, size_t index,
                     const char* function, const char* what) {
  if (input.inputs[index].IsNull()) {
    throw duckdb::InvalidInputException("%s needs %s, not NULL", function, what);
  }
  return input.inputs[index].GetValue<std::string>();
}

std::shared_ptr<commit::CatalogCachingStore> StoreOfLake(duckdb::ClientContext& context,
                                                         const std::string& name,
                                                         const char* function) {
  auto& databases = duckdb::DatabaseManager::Get(context);
  for (const std::string& candidate : {name, "__ducklake_metadata_" + name}) {
    auto database = databases.GetDatabase(context, AsName(candidate));
    if (database && database->GetCatalog().GetCatalogType() == "moraine") {
      return database->GetCatalog().Cast<MoraineCatalog>().store();
    }
  }
  throw duckdb::InvalidInputException(
      "%s: '%s' is not an attached lake on moraine (attach it with "
      "ATTACH 'ducklake:moraine:<path>' AS %s, or ATTACH '<path>' AS %s (TYPE moraine))",
      function, name, name, name);
}

duckdb::unique_ptr<duckdb::GlobalTableFunctionState> InitRunOnce(duckdb::ClientContext&,
                                                                 duckdb::TableFunctionInitInput&) {
  return duckdb::make_uniq<RunOnceState>();
}

}  // namespace moraine::duckdb_shim
