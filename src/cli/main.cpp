// The moraine host: a DuckDB with moraine registered and DuckLake loaded,
// plus the store tools.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "cli/migrate_command.h"
#include "cli/repair_command.h"
#include "cli/sql_command.h"
#include "cli/sqllogictest_runner.h"
#include "cli/tour.h"

int main(int argc, char** argv) {
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

  CLI11_PARSE(app, argc, argv);
  try {
    if (*tour) return moraine::cli::RunTour(tour_dir);
    if (*migrate) return moraine::cli::RunMigrate(migrate_path, std::cout);
    if (*repair) return moraine::cli::RunRepair(repair_path, std::cout);
    if (*sql) {
      if (csv) sql_options.format = moraine::cli::OutputFormat::kCsv;
      if (json) sql_options.format = moraine::cli::OutputFormat::kJson;
      return moraine::cli::RunSql(sql_options);
    }
    if (*slt) {
      for (const auto& assignment : slt_env) {
        const auto equals = assignment.find('=');
        if (equals == std::string::npos || equals == 0) {
          std::cerr << "moraine sqllogictest: --env takes NAME=VALUE, not " << assignment << "\n";
          return 2;
        }
        slt_options.env.emplace_back(assignment.substr(0, equals), assignment.substr(equals + 1));
      }
      return moraine::cli::RunSqllogictest(slt_options);
    }
  } catch (const std::exception& error) {
    std::cerr << "moraine: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
