#include "duckdb_shim/sql_functions.h"

#include "commit/migrations/catalog_version_raise.h"
#include "commit/migrations/store_format.h"
#include "commit/tags/tag_book.h"
#include "duckdb/common/vector_operations/binary_executor.hpp"
#include "duckdb/function/scalar_function.hpp"
#include "duckdb/function/table_function.hpp"
#include "duckdb/main/attached_database.hpp"
#include "duckdb/main/database_manager.hpp"
#include "duckdb/main/extension/extension_loader.hpp"
#include "duckdb_shim/duckdb_release.h"
#include "duckdb_shim/lake_function_args.h"
#include "duckdb_shim/moraine_catalog.h"
#include "duckdb_shim/moraine_transaction.h"
#include "duckdb_shim/revert_functions.h"
#include "duckdb_shim/tool_values.h"
#include "store/error.h"
#include "tools/column_lineage.h"
#include "tools/snapshot_log.h"
#include "tools/store_backup.h"
#include "tools/store_census.h"
#include "tools/store_verifier.h"
#include "tools/table_schema.h"
#include "tools/tag_table.h"

namespace moraine::duckdb_shim {
namespace {

struct MigrateBindData : public duckdb::TableFunctionData {
  std::string location;
};

duckdb::unique_ptr<duckdb::FunctionData> MigrateBind(duckdb::ClientContext&,
                                                     duckdb::TableFunctionBindInput& input,
                                                     duckdb::vector<duckdb::LogicalType>& types,
                                                     duckdb::vector<EntryName>& names) {
  auto data = duckdb::make_uniq<MigrateBindData>();
  data->location = Argument(input, 0, "moraine_migrate", "a store path");
  types = {duckdb::LogicalType::BIGINT, duckdb::LogicalType::BIGINT};
  names = {"from_format", "to_format"};
  return data;
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
  SetRowCount(output, 1);
  output.data[0].SetValue(0, duckdb::Value::BIGINT(static_cast<int64_t>(report.from)));
  output.data[1].SetValue(0, duckdb::Value::BIGINT(static_cast<int64_t>(report.to)));
}

struct RaiseBindData : public duckdb::TableFunctionData {
  std::shared_ptr<commit::CatalogCachingStore> store;
  commit::RaiseOptions options;
};

duckdb::unique_ptr<duckdb::FunctionData> RaiseBind(duckdb::ClientContext& context,
                                                   duckdb::TableFunctionBindInput& input,
                                                   duckdb::vector<duckdb::LogicalType>& types,
                                                   duckdb::vector<EntryName>& names) {
  auto data = duckdb::make_uniq<RaiseBindData>();
  data->store = StoreOfLake(
      context, Argument(input, 0, "moraine_raise_catalog_version", "the name of an attached lake"),
      "moraine_raise_catalog_version");
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
  SetRowCount(output, 1);
  output.data[0].SetValue(0, duckdb::Value(raise.from));
  output.data[1].SetValue(0, duckdb::Value(raise.to));
}

// --- Protected tags (commit/tags/tag_book.h). ---
// moraine_tag and moraine_untag each commit one small batch of their own when
// they execute (never at bind), outside the session's transaction, like the
// catalog version raise: a tag is not undone by a ROLLBACK.

struct TagMoveBindData : public duckdb::TableFunctionData {
  std::shared_ptr<commit::CatalogCachingStore> store;
  commit::tags::TagRequest request;
};

duckdb::unique_ptr<duckdb::FunctionData> BindTagMove(duckdb::ClientContext& context,
                                                     duckdb::TableFunctionBindInput& input,
                                                     duckdb::vector<duckdb::LogicalType>& types,
                                                     duckdb::vector<EntryName>& names,
                                                     const char* function) {
  auto data = duckdb::make_uniq<TagMoveBindData>();
  data->store =
      StoreOfLake(context, Argument(input, 0, function, "the name of an attached lake"), function);
  data->request.name = Argument(input, 1, function, "a tag name");
  for (auto& [name, value] : input.named_parameters) {
    if (value.IsNull()) continue;  // an absent parameter (DuckDB 2.0 passes its default)
    if (name == "snapshot") data->request.snapshot_id = value.GetValue<int64_t>();
    if (name == "author") data->request.author = value.GetValue<std::string>();
  }
  types = {duckdb::LogicalType::VARCHAR, duckdb::LogicalType::BIGINT};
  names = {"name", "snapshot_id"};
  return data;
}

duckdb::unique_ptr<duckdb::FunctionData> TagBind(duckdb::ClientContext& context,
                                                 duckdb::TableFunctionBindInput& input,
                                                 duckdb::vector<duckdb::LogicalType>& types,
                                                 duckdb::vector<EntryName>& names) {
  return BindTagMove(context, input, types, names, "moraine_tag");
}

duckdb::unique_ptr<duckdb::FunctionData> UntagBind(duckdb::ClientContext& context,
                                                   duckdb::TableFunctionBindInput& input,
                                                   duckdb::vector<duckdb::LogicalType>& types,
                                                   duckdb::vector<EntryName>& names) {
  return BindTagMove(context, input, types, names, "moraine_untag");
}

// Runs a tag move once, when the function executes, and returns its one row.
template <class Move>
void RunTagMove(duckdb::TableFunctionInput& input, duckdb::DataChunk& output, const Move& move) {
  auto& state = input.global_state->Cast<RunOnceState>();
  if (state.done) return;
  state.done = true;
  const auto& data = input.bind_data->Cast<TagMoveBindData>();
  commit::tags::ProtectedTag tag;
  try {
    tag = move(data);
  } catch (const store::Error& error) {
    ThrowAsDuckDB(error);
  }
  SetRowCount(output, 1);
  output.data[0].SetValue(0, duckdb::Value(tag.name));
  output.data[1].SetValue(0, duckdb::Value::BIGINT(tag.snapshot_id));
}

void Tag(duckdb::ClientContext&, duckdb::TableFunctionInput& input, duckdb::DataChunk& output) {
  RunTagMove(input, output, [](const TagMoveBindData& data) {
    return commit::tags::CreateTag(data.store, data.request);
  });
}

void Untag(duckdb::ClientContext&, duckdb::TableFunctionInput& input, duckdb::DataChunk& output) {
  RunTagMove(input, output, [](const TagMoveBindData& data) {
    return commit::tags::RemoveTag(data.store, data.request.name);
  });
}

// moraine_tag_snapshot(lake, name): the snapshot a tag holds, read when the
// expression is evaluated, so `AT (VERSION => moraine_tag_snapshot(...))`
// folds it when the query is bound.
void TagSnapshot(duckdb::DataChunk& args, duckdb::ExpressionState& state, duckdb::Vector& result) {
  auto& context = state.GetContext();
  duckdb::BinaryExecutor::Execute<duckdb::string_t, duckdb::string_t, int64_t>(
      args.data[0], args.data[1], result, args.size(),
      [&](duckdb::string_t lake, duckdb::string_t name) {
        auto store = StoreOfLake(context, lake.GetString(), "moraine_tag_snapshot");
        try {
          return commit::tags::TaggedSnapshot(store, name.GetString());
        } catch (const store::Error& error) {
          ThrowAsDuckDB(error);
        }
      });
}

// --- Backups (tools/store_backup.h). ---
// moraine_backup copies the lake's store into a backup repository when it
// executes, holding the backup (a protected tag) until
// moraine_release_backup ends the hold.

struct BackupBindData : public duckdb::TableFunctionData {
  std::shared_ptr<commit::CatalogCachingStore> store;
  std::string repository;
  std::optional<uint64_t> id;
};

duckdb::unique_ptr<duckdb::FunctionData> BindBackupMove(duckdb::ClientContext& context,
                                                        duckdb::TableFunctionBindInput& input,
                                                        const char* function) {
  auto data = duckdb::make_uniq<BackupBindData>();
  data->store =
      StoreOfLake(context, Argument(input, 0, function, "the name of an attached lake"), function);
  data->repository = Argument(input, 1, function, "a backup repository path");
  for (auto& [name, value] : input.named_parameters) {
    if (name == "id" && !value.IsNull()) data->id = value.GetValue<uint64_t>();
  }
  return data;
}

duckdb::unique_ptr<duckdb::FunctionData> BackupBind(duckdb::ClientContext& context,
                                                    duckdb::TableFunctionBindInput& input,
                                                    duckdb::vector<duckdb::LogicalType>& types,
                                                    duckdb::vector<EntryName>& names) {
  types = {duckdb::LogicalType::BIGINT, duckdb::LogicalType::BIGINT, duckdb::LogicalType::BIGINT,
           duckdb::LogicalType::BIGINT, duckdb::LogicalType::BIGINT, duckdb::LogicalType::VARCHAR};
  names = {"backup_id", "snapshot_id", "keys", "bytes", "bytes_copied", "hold"};
  return BindBackupMove(context, input, "moraine_backup");
}

void Backup(duckdb::ClientContext&, duckdb::TableFunctionInput& input, duckdb::DataChunk& output) {
  auto& state = input.global_state->Cast<RunOnceState>();
  if (state.done) return;
  state.done = true;
  const auto& data = input.bind_data->Cast<BackupBindData>();
  tools::BackupReport report;
  try {
    report = tools::BackupLake(data.store, data.repository);
  } catch (const store::Error& error) {
    ThrowAsDuckDB(error);
  }
  SetRowCount(output, 1);
  const auto& manifest = report.manifest;
  output.data[0].SetValue(0, duckdb::Value::BIGINT(static_cast<int64_t>(manifest.id)));
  output.data[1].SetValue(0, duckdb::Value::BIGINT(manifest.head_snapshot));
  output.data[2].SetValue(0, duckdb::Value::BIGINT(static_cast<int64_t>(manifest.keys)));
  output.data[3].SetValue(0, duckdb::Value::BIGINT(static_cast<int64_t>(manifest.bytes)));
  output.data[4].SetValue(0, duckdb::Value::BIGINT(static_cast<int64_t>(report.bytes_copied)));
  output.data[5].SetValue(0, duckdb::Value(report.hold));
}

duckdb::unique_ptr<duckdb::FunctionData> ReleaseBind(duckdb::ClientContext& context,
                                                     duckdb::TableFunctionBindInput& input,
                                                     duckdb::vector<duckdb::LogicalType>& types,
                                                     duckdb::vector<EntryName>& names) {
  types = {duckdb::LogicalType::VARCHAR};
  names = {"released"};
  return BindBackupMove(context, input, "moraine_release_backup");
}

struct ReleaseState : public duckdb::GlobalTableFunctionState {
  bool done = false;
  std::vector<std::string> released;
  size_t next = 0;
};

duckdb::unique_ptr<duckdb::GlobalTableFunctionState> InitRelease(duckdb::ClientContext&,
                                                                 duckdb::TableFunctionInitInput&) {
  return duckdb::make_uniq<ReleaseState>();
}

void Release(duckdb::ClientContext&, duckdb::TableFunctionInput& input, duckdb::DataChunk& output) {
  auto& state = input.global_state->Cast<ReleaseState>();
  if (!state.done) {
    state.done = true;
    const auto& data = input.bind_data->Cast<BackupBindData>();
    try {
      state.released = tools::ReleaseBackup(data.store, data.repository, data.id);
    } catch (const store::Error& error) {
      ThrowAsDuckDB(error);
    }
  }
  duckdb::idx_t count = 0;
  for (; state.next < state.released.size() && count < STANDARD_VECTOR_SIZE; ++state.next) {
    output.data[0].SetValue(count++, duckdb::Value(state.released[state.next]));
  }
  SetRowCount(output, count);
}

// --- The store tools (src/tools) as table functions on an attached lake. ---
// Each reads one consistent snapshot of the lake's store when it is bound and
// serves the tool's table; they read only, so binding early changes nothing.

struct ToolBindData : public duckdb::TableFunctionData {
  tools::ToolTable table;
};

struct ToolScanState : public duckdb::GlobalTableFunctionState {
  size_t next = 0;
};

// Binds a tool: `produce` makes its table from the lake's store snapshot.
template <class Produce>
duckdb::unique_ptr<duckdb::FunctionData> BindTool(duckdb::ClientContext& context,
                                                  duckdb::TableFunctionBindInput& input,
                                                  duckdb::vector<duckdb::LogicalType>& types,
                                                  duckdb::vector<EntryName>& names,
                                                  const char* function, Produce&& produce) {
  auto data = duckdb::make_uniq<ToolBindData>();
  auto store =
      StoreOfLake(context, Argument(input, 0, function, "the name of an attached lake"), function);
  try {
    data->table = produce(*store->GetSnapshot());
  } catch (const store::Error& error) {
    ThrowAsDuckDB(error);
  }
  for (const auto& column : data->table.columns) {
    types.push_back(ToolColumnType(column.type));
    names.push_back(AsName(column.name));
  }
  return data;
}

duckdb::unique_ptr<duckdb::GlobalTableFunctionState> InitToolScan(duckdb::ClientContext&,
                                                                  duckdb::TableFunctionInitInput&) {
  return duckdb::make_uniq<ToolScanState>();
}

void ScanTool(duckdb::ClientContext&, duckdb::TableFunctionInput& input,
              duckdb::DataChunk& output) {
  auto& state = input.global_state->Cast<ToolScanState>();
  const auto& table = input.bind_data->Cast<ToolBindData>().table;
  duckdb::idx_t count = 0;
  for (; state.next < table.rows.size() && count < STANDARD_VECTOR_SIZE; ++state.next, ++count) {
    const tools::ToolRow& row = table.rows[state.next];
    for (size_t c = 0; c < row.size(); ++c) {
      output.data[c].SetValue(count, ToolCellValue(row[c], table.columns[c].type));
    }
  }
  SetRowCount(output, count);
}

duckdb::unique_ptr<duckdb::FunctionData> LineageBind(duckdb::ClientContext& context,
                                                     duckdb::TableFunctionBindInput& input,
                                                     duckdb::vector<duckdb::LogicalType>& types,
                                                     duckdb::vector<EntryName>& names) {
  constexpr const char* kName = "moraine_column_lineage";
  tools::LineageRequest request;
  request.table = Argument(input, 1, kName, "a table name");
  const std::string column = Argument(input, 2, kName, "a column name");
  // A nested field is named by its dotted path from the top level.
  for (size_t start = 0;;) {
    const size_t dot = column.find('.', start);
    request.column_path.push_back(column.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return BindTool(context, input, types, names, kName, [&](const store::KvSnapshot& snapshot) {
    return tools::TraceColumn(snapshot, request).versions;
  });
}

duckdb::unique_ptr<duckdb::FunctionData> SchemaBind(duckdb::ClientContext& context,
                                                    duckdb::TableFunctionBindInput& input,
                                                    duckdb::vector<duckdb::LogicalType>& types,
                                                    duckdb::vector<EntryName>& names) {
  constexpr const char* kName = "moraine_schema";
  const std::string table = Argument(input, 1, kName, "a table name");
  std::optional<catalog::Id> at;
  for (auto& [name, value] : input.named_parameters) {
    if (name == "at" && !value.IsNull()) at = value.GetValue<int64_t>();
  }
  return BindTool(context, input, types, names, kName, [&](const store::KvSnapshot& snapshot) {
    return tools::SchemaAt(snapshot, table, at);
  });
}

duckdb::unique_ptr<duckdb::FunctionData> LogBind(duckdb::ClientContext& context,
                                                 duckdb::TableFunctionBindInput& input,
                                                 duckdb::vector<duckdb::LogicalType>& types,
                                                 duckdb::vector<EntryName>& names) {
  return BindTool(context, input, types, names, "moraine_log",
                  [](const store::KvSnapshot& snapshot) { return tools::SnapshotLog(snapshot); });
}

duckdb::unique_ptr<duckdb::FunctionData> VerifyBind(duckdb::ClientContext& context,
                                                    duckdb::TableFunctionBindInput& input,
                                                    duckdb::vector<duckdb::LogicalType>& types,
                                                    duckdb::vector<EntryName>& names) {
  return BindTool(context, input, types, names, "moraine_verify",
                  [](const store::KvSnapshot& snapshot) {
                    return tools::ViolationTable(tools::VerifyStore(snapshot));
                  });
}

duckdb::unique_ptr<duckdb::FunctionData> TagsBind(duckdb::ClientContext& context,
                                                  duckdb::TableFunctionBindInput& input,
                                                  duckdb::vector<duckdb::LogicalType>& types,
                                                  duckdb::vector<EntryName>& names) {
  bool history = false;
  for (auto& [name, value] : input.named_parameters) {
    if (name == "history" && !value.IsNull()) history = value.GetValue<bool>();
  }
  return BindTool(context, input, types, names, "moraine_tags",
                  [&](const store::KvSnapshot& snapshot) {
                    return tools::ProtectedTagTable(snapshot, history);
                  });
}

duckdb::unique_ptr<duckdb::FunctionData> InspectBind(duckdb::ClientContext& context,
                                                     duckdb::TableFunctionBindInput& input,
                                                     duckdb::vector<duckdb::LogicalType>& types,
                                                     duckdb::vector<EntryName>& names) {
  return BindTool(
      context, input, types, names, "moraine_inspect",
      [](const store::KvSnapshot& snapshot) { return tools::TakeCensus(snapshot).census; });
}

}  // namespace

void RegisterSqlFunctions(duckdb::DatabaseInstance& database) {
  duckdb::ExtensionLoader loader(database, "moraine");
  duckdb::TableFunction migrate("moraine_migrate", {duckdb::LogicalType::VARCHAR}, Migrate,
                                MigrateBind, InitRunOnce);
  loader.RegisterFunction(migrate);
  duckdb::TableFunction raise("moraine_raise_catalog_version", {duckdb::LogicalType::VARCHAR},
                              Raise, RaiseBind, InitRunOnce);
  AddNamedParameter(raise, "dry_run", duckdb::Value::BOOLEAN(false));
  AddNamedParameter(raise, "confirm", duckdb::Value::BOOLEAN(false));
  loader.RegisterFunction(raise);

  const auto text = duckdb::LogicalType::VARCHAR;
  loader.RegisterFunction(duckdb::TableFunction("moraine_column_lineage", {text, text, text},
                                                ScanTool, LineageBind, InitToolScan));
  duckdb::TableFunction schema("moraine_schema", {text, text}, ScanTool, SchemaBind, InitToolScan);
  AddNamedParameter(schema, "at", duckdb::Value(duckdb::LogicalType::BIGINT));
  loader.RegisterFunction(schema);
  loader.RegisterFunction(
      duckdb::TableFunction("moraine_log", {text}, ScanTool, LogBind, InitToolScan));
  loader.RegisterFunction(
      duckdb::TableFunction("moraine_verify", {text}, ScanTool, VerifyBind, InitToolScan));
  loader.RegisterFunction(
      duckdb::TableFunction("moraine_inspect", {text}, ScanTool, InspectBind, InitToolScan));

  duckdb::TableFunction tag("moraine_tag", {text, text}, Tag, TagBind, InitRunOnce);
  AddNamedParameter(tag, "snapshot", duckdb::Value(duckdb::LogicalType::BIGINT));
  AddNamedParameter(tag, "author", duckdb::Value(duckdb::LogicalType::VARCHAR));
  loader.RegisterFunction(tag);
  loader.RegisterFunction(
      duckdb::TableFunction("moraine_untag", {text, text}, Untag, UntagBind, InitRunOnce));
  duckdb::TableFunction tags("moraine_tags", {text}, ScanTool, TagsBind, InitToolScan);
  AddNamedParameter(tags, "history", duckdb::Value::BOOLEAN(false));
  loader.RegisterFunction(tags);
  loader.RegisterFunction(
      duckdb::TableFunction("moraine_backup", {text, text}, Backup, BackupBind, InitRunOnce));
  duckdb::TableFunction release("moraine_release_backup", {text, text}, Release, ReleaseBind,
                                InitRelease);
  AddNamedParameter(release, "id", duckdb::Value(duckdb::LogicalType::BIGINT));
  loader.RegisterFunction(release);
  duckdb::ScalarFunction tag_snapshot("moraine_tag_snapshot", {text, text},
                                      duckdb::LogicalType::BIGINT, TagSnapshot);
  tag_snapshot.SetStability(duckdb::FunctionStability::CONSISTENT_WITHIN_QUERY);
  loader.RegisterFunction(tag_snapshot);
  RegisterRevertFunctions(loader);
}

}  // namespace moraine::duckdb_shim
