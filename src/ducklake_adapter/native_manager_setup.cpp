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
  // In the order NativeManagerStatus fills them.
  names = {"state",
           "reason",
           "ducklake",
           "managers_created",
           "native_snapshot_reads",
           "native_stats_reads",
           "native_column_id_reads",
           "native_catalog_reads",
           "catalog_cache_hits",
           "catalog_cache_rereads",
           "catalog_full_reads",
           "in_catalog_retry",
           "in_catalog_commits",
           "native_conflict_checks",
           "native_catalog_queries",
           "native_inlined_table_lookups",
           "staged_batch_statements",
           "sql_batch_statements",
           "rebase",
           "rebased_commits",
           "native_row_counts",
           "native_attach_reads",
           "native_inlined_reads",
           "ducklake_build",
           "kept_methods",
           "in_catalog_retry_reason",
           "rebase_reason"};
  types.assign(3, duckdb::LogicalType::VARCHAR);
  types.resize(11, duckdb::LogicalType::UBIGINT);
  types.push_back(duckdb::LogicalType::BOOLEAN);
  types.resize(18, duckdb::LogicalType::UBIGINT);
  types.push_back(duckdb::LogicalType::BOOLEAN);
  types.resize(23, duckdb::LogicalType::UBIGINT);
  types.resize(27, duckdb::LogicalType::VARCHAR);
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
  output.SetValue(3, 0, duckdb::Value::UBIGINT(status.managers_created));
  output.SetValue(4, 0, duckdb::Value::UBIGINT(status.native_snapshot_reads));
  output.SetValue(5, 0, duckdb::Value::UBIGINT(status.native_stats_reads));
  output.SetValue(6, 0, duckdb::Value::UBIGINT(status.native_column_id_reads));
  output.SetValue(7, 0, duckdb::Value::UBIGINT(status.native_catalog_reads));
  output.SetValue(8, 0, duckdb::Value::UBIGINT(status.catalog_cache_hits));
  output.SetValue(9, 0, duckdb::Value::UBIGINT(status.catalog_cache_rereads));
  output.SetValue(10, 0, duckdb::Value::UBIGINT(status.catalog_full_reads));
  output.SetValue(11, 0, duckdb::Value::BOOLEAN(status.in_catalog_retry));
  output.SetValue(12, 0, duckdb::Value::UBIGINT(status.in_catalog_commits));
  output.SetValue(13, 0, duckdb::Value::UBIGINT(status.native_conflict_checks));
  output.SetValue(14, 0, duckdb::Value::UBIGINT(status.native_catalog_queries));
  output.SetValue(15, 0, duckdb::Value::UBIGINT(status.native_inlined_table_lookups));
  output.SetValue(16, 0, duckdb::Value::UBIGINT(status.staged_batch_statements));
  output.SetValue(17, 0, duckdb::Value::UBIGINT(status.sql_batch_statements));
  output.SetValue(18, 0, duckdb::Value::BOOLEAN(status.rebase));
  output.SetValue(19, 0, duckdb::Value::UBIGINT(status.rebased_commits));
  output.SetValue(20, 0, duckdb::Value::UBIGINT(status.native_row_counts));
  output.SetValue(21, 0, duckdb::Value::UBIGINT(status.native_attach_reads));
  output.SetValue(22, 0, duckdb::Value::UBIGINT(status.native_inlined_reads));
  const std::string* texts[] = {&status.ducklake_build, &status.kept_methods,
                                &status.in_catalog_retry_reason, &status.rebase_reason};
  for (size_t i = 0; i < std::size(texts); ++i) {
    output.SetValue(23 + i, 0, texts[i]->empty() ? duckdb::Value() : duckdb::Value(*texts[i]));
  }
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
