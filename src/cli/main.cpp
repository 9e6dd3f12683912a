// The moraine host: a DuckDB with moraine registered and DuckLake loaded,
// plus the store tools.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <optional>

#include "cli/backup_command.h"
#include "cli/migrate_command.h"
#include "cli/repair_command.h"
#include "cli/sql_command.h"
#include "cli/sqllogictest_runner.h"
#include "cli/store_tools_command.h"
#include "cli/tour.h"
#include "duckdb_shim/raw_cell_order.h"

int main(int argc, char** argv) {
  // The store tools (migrate, repair) write inlined batches' summaries too,
  // bounded in the order the DuckDB shim gives the cells.
  moraine::duckdb_shim::RawCellOrder::Install();
  CLI::App app{"moraine: a DuckLake catalog in an embedded key-value store"};
  app.require_subcommand(1);

  std::string tour_dir = "moraine-tour";
  auto* tour = app.add_subcommand("tour", "a short printed tour of a lake on moraine");
  tour->add_option("--dir", tour_dir, "working directory for the tour (recreated)");

  moraine::cli::SqlOptions sql_options;
  auto* sql = app.add_subcommand(
      "sql", "run SQL: -c strings, else FILE, else standard input (a shell on a terminal)");
  bool csv = false, json = false, box = false;
  auto* csv_flag = sql->add_flag("--csv", csv, "print results as CSV");
  auto* json_flag = sql->add_flag("--json", json, "print results as JSON lines");
  auto* box_flag = sql->add_flag("--box", box, "print results as boxes (the default)");
  csv_flag->excludes(json_flag)->excludes(box_flag);
  json_flag->excludes(box_flag);
  sql->add_option("-c,--command", sql_options.commands, "SQL to run (repeatable)");
  sql->add_option("--database", sql_options.database,
                  "the session's own DuckDB database file (default: in memory)");
  sql->add_option("FILE", sql_options.file, "a SQL script")->check(CLI::ExistingFile);

  moraine::cli::SqllogictestOptions slt_options;
  std::vector<std::string> slt_env;
  auto* slt = app.add_subcommand("sqllogictest", "run DuckDB sqllogictest files against moraine");
  // One NAME=VALUE per --env: without this CLI11 would let a --env swallow the files.
  slt->add_option("--env", slt_env, "NAME=VALUE for test-env NAME (repeatable)")
      ->allow_extra_args(false);
  std::vector<std::string> slt_env_prefix;
  slt->add_option("--env-prefix", slt_env_prefix,
                  "NAME=PREFIX: test-env NAME takes PREFIX before the value it takes otherwise "
                  "(repeatable)")
      ->allow_extra_args(false);
  slt->add_flag("--keep-going", slt_options.keep_going,
                "report every failing record of a file, not only the first");
  slt->add_flag("-v,--verbose", slt_options.verbose, "name passing files too");
  slt->add_option("FILE", slt_options.files, "test files")->required()->check(CLI::ExistingFile);

  std::string migrate_path;
  auto* migrate = app.add_subcommand(
      "migrate", "upgrade a store written in an older store format in place (idempotent)");
  migrate->add_option("PATH", migrate_path, "the store directory")->required();

  std::string repair_path;
  auto* repair = app.add_subcommand(
      "repair", "rebuild a damaged store's manifest from the files that still read (offline)");
  repair->add_option("PATH", repair_path, "the store directory")->required();
  // The store tools: read-only, safe beside a live writer.
  moraine::cli::StoreToolOptions tool_options;
  bool tool_csv = false, tool_json = false;
  auto add_tool = [&](const char* name, const char* description) {
    auto* command = app.add_subcommand(name, description);
    command->add_option("PATH", tool_options.path, "the store directory")->required();
    auto* tool_csv_flag = command->add_flag("--csv", tool_csv, "print tables as CSV");
    command->add_flag("--json", tool_json, "print tables as JSON lines")->excludes(tool_csv_flag);
    return command;
  };
  auto* inspect =
      add_tool("inspect", "the store's format, versions, head and where its space goes");
  auto* verify =
      add_tool("verify", "check every invariant of the store (exit 0 clean, 2 with violations)");
  std::string tool_table;
  std::optional<int64_t> schema_at;
  auto* schema = add_tool("schema", "a table's columns at a snapshot, nested fields as a tree");
  schema->add_option("TABLE", tool_table, "table or schema.table")->required();
  schema->add_option("--at", schema_at, "the snapshot (default: the head)");
  std::string lineage_column;
  std::optional<int64_t> lineage_field;
  auto* lineage = add_tool("lineage", "every version of a column, and the files that carry it");
  lineage->add_option("COLUMN", lineage_column, "TABLE.COLUMN, or TABLE with --field-id")
      ->required();
  lineage->add_option("--field-id", lineage_field, "the column's field id");
  auto* log = add_tool("log", "the lake's snapshots, newest first");
  bool tags_history = false;
  auto* tags = add_tool("tags", "the lake's protected tags, oldest first");
  tags->add_flag("--history", tags_history, "every tag ever made, removed ones too");

  std::string backup_store, backup_repository;
  auto* backup = app.add_subcommand(
      "backup", "copy a store at one snapshot into a backup repository, beside live writers");
  backup->add_option("STORE", backup_store, "the store directory")->required();
  backup
      ->add_option("REPOSITORY", backup_repository,
                   "the backup repository (created if absent; a later backup there copies "
                   "only what changed)")
      ->required();
  std::string restore_repository, restore_destination;
  std::optional<uint64_t> restore_id;
  auto* restore = app.add_subcommand("restore", "make a new store from a backup");
  restore->add_option("REPOSITORY", restore_repository, "the backup repository")->required();
  restore->add_option("DEST", restore_destination, "the new store directory (must not exist)")
      ->required();
  restore->add_option("--id", restore_id, "the backup (default: the newest)");

  CLI11_PARSE(app, argc, argv);
  try {
    if (*tour) return moraine::cli::RunTour(tour_dir);
    if (*migrate) return moraine::cli::RunMigrate(migrate_path, std::cout);
    if (*repair) return moraine::cli::RunRepair(repair_path, std::cout);
    if (*backup) return moraine::cli::RunBackup(backup_store, backup_repository, std::cout);
    if (*restore) {
      return moraine::cli::RunRestore(restore_repository, restore_id, restore_destination,
                                      std::cout);
    }
    if (tool_csv) tool_options.format = moraine::cli::OutputFormat::kCsv;
    if (tool_json) tool_options.format = moraine::cli::OutputFormat::kJson;
    if (*inspect) return moraine::cli::RunInspect(tool_options, std::cout);
    if (*verify) return moraine::cli::RunVerify(tool_options, std::cout);
    if (*schema) return moraine::cli::RunSchema(tool_options, tool_table, schema_at, std::cout);
    if (*lineage) {
      return moraine::cli::RunLineage(tool_options, lineage_column, lineage_field, std::cout);
    }
    if (*log) return moraine::cli::RunLog(tool_options, std::cout);
    if (*tags) return moraine::cli::RunTags(tool_options, tags_history, std::cout);
    if (*sql) {
      if (csv) sql_options.format = moraine::cli::OutputFormat::kCsv;
      if (json) sql_options.format = moraine::cli::OutputFormat::kJson;
      return moraine::cli::RunSql(sql_options);
    }
    if (*slt) {
      const auto split = [](const std::vector<std::string>& assignments, const char* flag,
                            const char* form, auto& into) {
        for (const auto& assignment : assignments) {
          const auto equals = assignment.find('=');
          if (equals == std::string::npos || equals == 0) {
            std::cerr << "moraine sqllogictest: " << flag << " takes " << form << ", not "
                      << assignment << "\n";
            return false;
          }
          into.emplace_back(assignment.substr(0, equals), assignment.substr(equals + 1));
        }
        return true;
      };
      if (!split(slt_env, "--env", "NAME=VALUE", slt_options.env) ||
          !split(slt_env_prefix, "--env-prefix", "NAME=PREFIX", slt_options.env_prefix)) {
        return 2;
      }
      return moraine::cli::RunSqllogictest(slt_options);
    }
  } catch (const std::exception& error) {
    std::cerr << "moraine: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
