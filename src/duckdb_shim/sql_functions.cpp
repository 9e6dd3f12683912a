#include "duckdb_shim/sql_functions.h"

#include "commit/store_format.h"
#include "duckdb/function/table_function.hpp"
#include "duckdb/main/extension/extension_loader.hpp"
#include "duckdb_shim/moraine_transaction.h"
#include "store/error.h"

namespace moraine::duckdb_shim {
namespace {

struct MigrateBindData : public duckdb::TableFunctionData {
  std::string location;
};

struct MigrateState : public duckdb::GlobalTableFunctionState {
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

duckdb::unique_ptr<duckdb::GlobalTableFunctionState> MigrateInit(duckdb::ClientContext&,
                                                                 duckdb::TableFunctionInitInput&) {
  return duckdb::make_uniq<MigrateState>();
}

// The migration runs when the function executes, never at bind time, so a
// statement that is only prepared or explained changes nothing.
void Migrate(duckdb::ClientContext&, duckdb::TableFunctionInput& input, duckdb::DataChunk& output) {
  auto& state = input.global_state->Cast<MigrateState>();
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

}  // namespace

void RegisterSqlFunctions(duckdb::DatabaseInstance& database) {
  duckdb::ExtensionLoader loader(database, "moraine");
  duckdb::TableFunction migrate("moraine_migrate", {duckdb::LogicalType::VARCHAR}, Migrate,
                                MigrateBind, MigrateInit);
  loader.RegisterFunction(migrate);
}

}  // namespace moraine::duckdb_shim
