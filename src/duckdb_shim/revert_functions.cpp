#include "duckdb_shim/revert_functions.h"

#include "commit/revert/lake_revert.h"
#include "duckdb/common/file_system.hpp"
#include "duckdb/common/string_util.hpp"
#include "duckdb/main/connection.hpp"
#include "duckdb_shim/duckdb_release.h"
#include "duckdb_shim/error_translation.h"
#include "duckdb_shim/lake_function_args.h"
#include "store/error.h"
#include "util/strings.h"

namespace moraine::duckdb_shim {
namespace {

struct RevertBindData : public duckdb::TableFunctionData {
  std::shared_ptr<commit::CatalogCachingStore> store;
  std::optional<int64_t> to_snapshot;  // moraine_rollback
  std::string schema;                  // moraine_undrop
  std::string table;
};

void DeclareOutcome(duckdb::vector<duckdb::LogicalType>& types, duckdb::vector<EntryName>& names) {
  types = {duckdb::LogicalType::BIGINT, duckdb::LogicalType::BIGINT, duckdb::LogicalType::BIGINT};
  names = {"snapshot_id", "ended_versions", "revived_versions"};
}

duckdb::unique_ptr<duckdb::FunctionData> RollbackBind(duckdb::ClientContext& context,
                                                      duckdb::TableFunctionBindInput& input,
                                                      duckdb::vector<duckdb::LogicalType>& types,
                                                      duckdb::vector<EntryName>& names) {
  constexpr const char* kFunction = "moraine_rollback";
  auto data = duckdb::make_uniq<RevertBindData>();
  data->store = StoreOfLake(context, Argument(input, 0, kFunction, "the name of an attached lake"),
                            kFunction);
  for (auto& [name, value] : input.named_parameters) {
    if (name == "to_snapshot" && !value.IsNull()) data->to_snapshot = value.GetValue<int64_t>();
  }
  if (!data->to_snapshot) {
    throw duckdb::InvalidInputException("%s needs to_snapshot => the snapshot to roll back to",
                                        kFunction);
  }
  DeclareOutcome(types, names);
  return data;
}

duckdb::unique_ptr<duckdb::FunctionData> UndropBind(duckdb::ClientContext& context,
                                                    duckdb::TableFunctionBindInput& input,
                                                    duckdb::vector<duckdb::LogicalType>& types,
                                                    duckdb::vector<EntryName>& names) {
  constexpr const char* kFunction = "moraine_undrop";
  auto data = duckdb::make_uniq<RevertBindData>();
  data->store = StoreOfLake(context, Argument(input, 0, kFunction, "the name of an attached lake"),
                            kFunction);
  const std::string name = Argument(input, 1, kFunction, "the table to undrop, as 'schema.table'");
  const auto parts = duckdb::StringUtil::SplitWithQuote(name, '.');
  if (parts.empty() || parts.size() > 2) {
    throw duckdb::InvalidInputException(
        "%s takes the table as 'schema.table' or 'table' (in main), not '%s'", kFunction, name);
  }
  data->schema = parts.size() == 2 ? parts[0] : "main";
  data->table = parts.back();
  DeclareOutcome(types, names);
  return data;
}

// The lake's files as the session reaches them: DuckDB's file system, and
// its Parquet reader for the rows of a file that holds several snapshots'.
commit::revert::LakeFiles FilesOf(duckdb::ClientContext& context) {
  commit::revert::LakeFiles files;
  files.missing = [&context](const std::vector<std::string>& paths) {
    auto& file_system = duckdb::FileSystem::GetFileSystem(context);
    std::vector<std::string> missing;
    for (const auto& path : paths) {
      if (!file_system.FileExists(path)) missing.push_back(path);
    }
    return missing;
  };
  // A connection of its own: the session's is running this function.
  const auto positions = [&context](const std::string& sql, const std::string& path) {
    duckdb::Connection connection(*context.db);
    auto result = connection.Query(sql);
    if (result->HasError()) {
      throw store::IoError("cannot read the file " + path + ": " + result->GetError());
    }
    std::vector<int64_t> found;
    for (auto chunk = result->Fetch(); chunk && chunk->size() > 0; chunk = result->Fetch()) {
      for (duckdb::idx_t row = 0; row < chunk->size(); ++row) {
        found.push_back(chunk->GetValue(0, row).GetValue<int64_t>());
      }
    }
    return found;
  };
  files.partial_files.rows_after = [positions](const std::string& path, int64_t snapshot) {
    return positions("SELECT file_row_number FROM read_parquet(" + util::SqlQuoted(path, '\'') +
                         ", file_row_number => true) WHERE _ducklake_internal_snapshot_id > " +
                         std::to_string(snapshot) + " ORDER BY 1",
                     path);
  };
  files.partial_files.deleted_up_to = [positions](const std::string& path, int64_t snapshot) {
    return positions("SELECT pos FROM read_parquet(" + util::SqlQuoted(path, '\'') +
                         ") WHERE _ducklake_internal_snapshot_id <= " + std::to_string(snapshot) +
                         " ORDER BY 1",
                     path);
  };
  return files;
}

template <class Revert>
void RunRevert(duckdb::TableFunctionInput& input, duckdb::DataChunk& output, const Revert& revert) {
  auto& state = input.global_state->Cast<RunOnceState>();
  if (state.done) return;
  state.done = true;
  const auto& data = input.bind_data->Cast<RevertBindData>();
  commit::revert::RevertOutcome outcome;
  try {
    outcome = revert(data);
  } catch (const store::Error& error) {
    ThrowAsDuckDB(error);
  }
  SetRowCount(output, 1);
  output.data[0].SetValue(0, duckdb::Value::BIGINT(outcome.snapshot_id));
  output.data[1].SetValue(0, duckdb::Value::BIGINT(outcome.ended_versions));
  output.data[2].SetValue(0, duckdb::Value::BIGINT(outcome.revived_versions));
}

void Rollback(duckdb::ClientContext& context, duckdb::TableFunctionInput& input,
              duckdb::DataChunk& output) {
  RunRevert(input, output, [&](const RevertBindData& data) {
    return commit::revert::RollBackLake(data.store, *data.to_snapshot, FilesOf(context));
  });
}

void Undrop(duckdb::ClientContext& context, duckdb::TableFunctionInput& input,
            duckdb::DataChunk& output) {
  RunRevert(input, output, [&](const RevertBindData& data) {
    return commit::revert::UndropTable(data.store, data.schema, data.table, FilesOf(context));
  });
}

}  // namespace

void RegisterRevertFunctions(duckdb::ExtensionLoader& loader) {
  const auto text = duckdb::LogicalType::VARCHAR;
  duckdb::TableFunction rollback("moraine_rollback", {text}, Rollback, RollbackBind, InitRunOnce);
  AddNamedParameter(rollback, "to_snapshot", duckdb::Value(duckdb::LogicalType::BIGINT));
  loader.RegisterFunction(rollback);
  loader.RegisterFunction(
      duckdb::TableFunction("moraine_undrop", {text, text}, Undrop, UndropBind, InitRunOnce));
}

}  // namespace moraine::duckdb_shim
