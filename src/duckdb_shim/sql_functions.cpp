#include "duckdb_shim/sql_functions.h"

#include "commit/catalog_version_raise.h"
#include "commit/store_format.h"
#include "duckdb/function/table_function.hpp"
#include "duckdb/main/database_manager.hpp"
#include "duckdb/main/extension/extension_loader.hpp"
#include "duckdb_shim/moraine_catalog.h"
#include "duckdb_shim/moraine_transaction.h"
#include "store/error.h"

namespace moraine::duckdb_shim {
namespace {

struct MigrateBindData : public duckdb::TableFunctionData {
  std::string location;
};

struct RunOnceState : public duckdb::GlobalTableFunctionState {
  bool done = false;
};

duckdb::unique_ptr<duckdb::FunctionData> MigrateBind(duckdb::ClientContext&,
                                                     duckdb::TableFunctionBindInput& input,
                                                     duckdb::vector<duckdb::LogicalType>& types,
                                                     duckdb::vector<duckdb::string>& names) {
  if (input.inputs[0].IsNull()) {
    throw duckdb::InvalidInputException("moraine_migrate needs a store path, not NULL");
  }
  auto data = duckdb::make_uniq<MigrateBindData>();
  data->location = input.inputs[0].GetValue<std::string>();
  types = {duckdb::LogicalType::BIGINT, duckdb::LogicalType::BIGINT};
  names = {"from_format", "to_format"};
  return data;
}

duckdb::unique_ptr<duckdb::GlobalTableFunctionState> InitRunOnce(duckdb::ClientContext&,
                                                                 duckdb::TableFunctionInitInput&) {
  return duckdb::make_uniq<RunOnceState>();
}

// The migration runs when the function executes, never at bind time, so a
// statement that is only prepared or explained changes nothing.
void Migrate(duckdb::ClientContext&, duckdb::TableFunctionInput& input, duckdb::DataChunk& output) {
  auto& state = input.global_state->Cast<RunOnceState>();
  if (state.done) return;
  state.done = true;
  const auto& location = input.bind_data->Cast<MigrateBindData>().location;
  commit::MigrationReport report;
  try {
    report = commit::MigrateStore(location);
  } catch (const store::Error& error) {
    ThrowAsDuckDB(error);
  }
  output.SetCardinality(1);
  output.SetValue(0, 0, duckdb::Value::BIGINT(static_cast<int64_t>(report.from)));
  output.SetValue(1, 0, duckdb::Value::BIGINT(static_cast<int64_t>(report.to)));
}

struct RaiseBindData : public duckdb::TableFunctionData {
  std::shared_ptr<store::KvStore> store;
  commit::RaiseOptions options;
};

// The store behind an attached catalog name: a moraine catalog itself, or a
// DuckLake lake whose metadata catalog (DuckLake names it
// __ducklake_metadata_<lake>) is one.
std::shared_ptr<store::KvStore> StoreOfLake(duckdb::ClientContext& context,
                                            const std::string& name) {
  auto& databases = duckdb::DatabaseManager::Get(context);
  for (const std::string& candidate : {name, "__ducklake_metadata_" + name}) {
    auto database = databases.GetDatabase(context, candidate);
    if (database && database->GetCatalog().GetCatalogType() == "moraine") {
      return database->GetCatalog().Cast<MoraineCatalog>().store();
    }
  }
  throw duckdb::InvalidInputException(
      "moraine_raise_catalog_version: '%s' is not an attached lake on moraine (attach it with "
      "ATTACH 'ducklake:moraine:<path>' AS %s, or ATTACH '<path>' AS %s (TYPE moraine))",
      name, name, name);
}

duckdb::unique_ptr<duckdb::FunctionData> RaiseBind(duckdb::ClientContext& context,
                                                   duckdb::TableFunctionBindInput& input,
                                                   duckdb::vector<duckdb::LogicalType>& types,
                                                   duckdb::vector<duckdb::string>& names) {
  if (input.inputs[0].IsNull()) {
    throw duckdb::InvalidInputException(
        "moraine_raise_catalog_version needs the name of an attached lake, not NULL");
  }
  auto data = duckdb::make_uniq<RaiseBindData>();
  data->store = StoreOfLake(context, input.inputs[0].GetValue<std::string>());
  for (auto& [name, value] : input.named_parameters) {
    if (value.IsNull()) {
      throw duckdb::InvalidInputException("moraine_raise_catalog_version: %s cannot be NULL", name);
    }
    if (name == "dry_run") data->options.dry_run = value.GetValue<bool>();
    if (name == "confirm") data->options.confirm = value.GetValue<bool>();
  }
  types = {duckdb::LogicalType::VARCHAR, duckdb::LogicalType::VARCHAR};
  names = {"from_version", "to_version"};
  return data;
}

// Like the migration, the raise happens when the function executes.
void Raise(duckdb::ClientContext&, duckdb::TableFunctionInput& input, duckdb::DataChunk& output) {
  auto& state = input.global_state->Cast<RunOnceState>();
  if (state.done) return;
  state.done = true;
  const auto& data = input.bind_data->Cast<RaiseBindData>();
  commit::CatalogVersionRaise raise;
  try {
    raise = commit::RaiseCatalogVersion(data.store, data.options);
  } catch (const store::Error& error) {
    ThrowAsDuckDB(error);
  }
  output.SetCardinality(1);
  output.SetValue(0, 0, duckdb::Value(raise.from));
  output.SetValue(1, 0, duckdb::Value(raise.to));
}

}  // namespace

void RegisterSqlFunctions(duckdb::DatabaseInstance& database) {
  duckdb::ExtensionLoader loader(database, "moraine");
  duckdb::TableFunction migrate("moraine_migrate", {duckdb::LogicalType::VARCHAR}, Migrate,
                                MigrateBind, InitRunOnce);
  loader.RegisterFunction(migrate);
  duckdb::TableFunction raise("moraine_raise_catalog_version", {duckdb::LogicalType::VARCHAR},
                              Raise, RaiseBind, InitRunOnce);
  raise.named_parameters["dry_run"] = duckdb::LogicalType::BOOLEAN;
  raise.named_parameters["confirm"] = duckdb::LogicalType::BOOLEAN;
  loader.RegisterFunction(raise);
}

}  // namespace moraine::duckdb_shim
