// The differential harness: one SQL script run statement by statement
// against a moraine lake and a stock DuckLake lake (DuckLake's own DuckDB-file
// catalog) attached side by side in one DuckDB. After every statement it
// compares
//   (a) every table of the two hidden metadata catalogs, full rows, every
//       version (ended rows included), the inlined data/delete tables too;
//   (b) every user table's contents at every snapshot the lake still has
//       (`AT (VERSION => n)`), for each table that existed at n.
// The first disagreement stops the script and is returned as a readable diff.
//
// Scripts: statements end with `;` at the end of a line; lines starting with
// `--` are comments. The word `LAKE` (not part of a longer name, `_` allowed
// before it so `__ducklake_metadata_LAKE` works) names the lake the statement
// runs on; `SCRATCH` names a directory of that lake's own for files the
// script writes itself (e.g. for ducklake_add_data_files).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace moraine::differential {

// A script's statements, in order, still holding the LAKE / SCRATCH tokens.
std::vector<std::string> ParseScript(const std::string& text);
std::string ReadFile(const std::string& path);
// A script file again: one statement per line-ending `;`.
std::string RenderScript(const std::vector<std::string>& statements);

// `LAKE` -> lake, `SCRATCH` -> scratch (whole words; see above).
std::string Substitute(const std::string& statement, const std::string& lake,
                       const std::string& scratch);

struct Mismatch {
  size_t statement_index = 0;  // 0-based
  std::string statement;       // with LAKE tokens
  std::string report;          // what differs, readable
};

struct RunResult {
  std::optional<Mismatch> mismatch;
  size_t statements_run = 0;
  size_t statements_refused = 0;      // refused by both lakes alike
  std::vector<std::string> refusals;  // "#n: statement -> error", each
  // The largest row count seen per metadata table after any statement
  // (inlined tables are counted under their family name).
  std::map<std::string, int64_t> max_rows;
  // Where the time went: the statements themselves, comparing the metadata
  // catalogs, comparing the user tables snapshot by snapshot.
  double seconds_statements = 0;
  double seconds_catalog = 0;
  double seconds_snapshots = 0;
};

struct Options {
  // Compare every user table at every snapshot after every statement (the
  // default); false compares only at the head.
  bool all_snapshots = true;
  // Compare past snapshots only after the last statement (the head is still
  // compared after every statement): for long bulk runs of random seeds.
  bool sweep_at_end_only = false;
  // Attach a second stock catalog in moraine's place: a control run that
  // shows DuckLake's own nondeterminism between two identical lakes.
  bool control = false;
  // Let moraine's native DuckLake metadata manager answer what it can (the
  // default); false attaches with META_NATIVE_MANAGER false, so DuckLake's
  // SQL reads every answer from the ducklake_* tables.
  bool native_manager = true;
};

// Options from the environment: MORAINE_DIFF_CONTROL=1 (control run),
// MORAINE_DIFF_SWEEP=end (sweep_at_end_only), MORAINE_DIFF_NATIVE=0
// (native_manager off).
Options OptionsFromEnvironment();

// Runs `statements` against a fresh moraine lake and a fresh stock lake.
RunResult RunDifferential(const std::vector<std::string>& statements, const Options& options = {});

// The fixed metadata tables of DuckLake 1.0 (the 28 ducklake_* tables).
std::vector<std::string> FixedCatalogTables();

// The family an inlined table belongs to, for coverage; other names as is.
std::string CoverageName(const std::string& table);

}  // namespace moraine::differential
