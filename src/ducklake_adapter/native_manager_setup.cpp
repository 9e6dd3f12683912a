#include "ducklake_adapter/native_manager_setup.h"

#include <iterator>
#include <memory>
#include <string>

#include "duckdb/function/table_function.hpp"
#include "duckdb/main/config.hpp"
#include "duckdb/main/extension/extension_loader.hpp"
#include "duckdb/planner/extension_callback.hpp"
#include "ducklake_adapter/native_metadata_manager.h"

namespace moraine::ducklake_adapter {
namespace {

struct RunOnceState : public duckdb::GlobalTableFunctionState {
  bool done = false;
};

duckdb::unique_ptr<duckdb::GlobalTableFunctionState> InitRunOnce(duckdb::ClientContext&,
                                                                 duckdb::TableFunctionInitInput&) {
  return duckdb::make_uniq<RunOnceState>();
}

duckdb::unique_ptr<duckdb::FunctionData> NativeManagerBind(
    duckdb::ClientContext&, duckdb::TableFunctionBindInput&,
    duckdb::vector<duckdb::LogicalType>& types, duckdb::vector<duckdb::string>& names) {
  names = {"state", "reason", "ducklake"};
  types.assign(3, duckdb::LogicalType::VARCHAR);
#define MORAINE_COLUMN(name, type) \
  names.push_back(#name);          \
  types.push_back(duckdb::LogicalType::type);
#define MORAINE_COUNTER_COLUMN(name, meaning) MORAINE_COLUMN(name, UBIGINT)
#define MORAINE_FLAG_COLUMN(name, meaning) MORAINE_COLUMN(name, BOOLEAN)
#define MORAINE_TEXT_COLUMN(name, meaning) MORAINE_COLUMN(name, VARCHAR)
  MORAINE_NATIVE_MANAGER_COLUMNS(MORAINE_COUNTER_COLUMN, MORAINE_FLAG_COLUMN, MORAINE_TEXT_COLUMN)
#undef MORAINE_COLUMN
#undef MORAINE_COUNTER_COLUMN
#undef MORAINE_FLAG_COLUMN
#undef MORAINE_TEXT_COLUMN
  return duckdb::make_uniq<duckdb::TableFunctionData>();
}

// moraine_native_manager(): whether moraine's DuckLake metadata manager is
// registered in this process, why not, and how often it answered.
void NativeManagerStatus(duckdb::ClientContext&, duckdb::TableFunctionInput& input,
                         duckdb::DataChunk& output) {
  auto& state = input.global_state->Cast<RunOnceState>();
  if (state.done) return;
  state.done = true;
  const auto status = NativeMetadataManager::CurrentStatus();
  output.SetCardinality(1);
  output.SetValue(0, 0, duckdb::Value(NativeMetadataManager::StateName(status.state)));
  output.SetValue(1, 0, status.reason.empty() ? duckdb::Value() : duckdb::Value(status.reason));
  output.SetValue(
      2, 0, status.ducklake_path.empty() ? duckdb::Value() : duckdb::Value(status.ducklake_path));
  duckdb::idx_t column = 3;
#define MORAINE_COUNTER_VALUE(name, meaning) \
  output.SetValue(column++, 0, duckdb::Value::UBIGINT(status.name));
#define MORAINE_FLAG_VALUE(name, meaning) \
  output.SetValue(column++, 0, duckdb::Value::BOOLEAN(status.name));
#define MORAINE_TEXT_VALUE(name, meaning) \
  output.SetValue(column++, 0, status.name.empty() ? duckdb::Value() : duckdb::Value(status.name));
  MORAINE_NATIVE_MANAGER_COLUMNS(MORAINE_COUNTER_VALUE, MORAINE_FLAG_VALUE, MORAINE_TEXT_VALUE)
#undef MORAINE_COUNTER_VALUE
#undef MORAINE_FLAG_VALUE
#undef MORAINE_TEXT_VALUE
}

// Registers moraine's DuckLake metadata manager once DuckLake is loaded.
class RegisterWhenDuckLakeLoads final : public duckdb::ExtensionCallback {
 public:
  void OnExtensionLoaded(duckdb::DatabaseInstance&, const duckdb::string& name) override {
    if (name == "ducklake") NativeMetadataManager::EnsureRegistered();
  }
};

}  // namespace

void SetUpNativeManager(duckdb::DatabaseInstance& database) {
  duckdb::ExtensionLoader loader(database, "moraine");
  loader.RegisterFunction(duckdb::TableFunction("moraine_native_manager", {}, NativeManagerStatus,
                                                NativeManagerBind, InitRunOnce));
  // The manager registers as soon as DuckLake is loaded, before or after
  // moraine, so that the first ATTACH's manager is moraine's too (its attach
  // reads among them).
  NativeMetadataManager::EnsureRegistered();
  duckdb::ExtensionCallback::Register(duckdb::DBConfig::GetConfig(database),
                                      duckdb::make_shared_ptr<RegisterWhenDuckLakeLoads>());
}

}  // namespace moraine::ducklake_adapter
