// `moraine sqllogictest`: runs DuckDB sqllogictest files (DuckLake's own
// suite, our e2e cases) in the moraine host, a DuckDB with moraine registered
// and the pinned DuckLake loaded.
//
// Semantics follow DuckDB's runner (test/sqlite/ in duckdb/duckdb):
// - every file gets a fresh __TEST_DIR__ and a fresh in-memory session database;
//   `load PATH` opens a database file instead, `restart` closes and reopens the
//   current one (a file keeps its state, memory loses it; ATTACHed lakes are
//   gone either way and the test re-attaches them);
// - a file stops at its first failing record (`--keep-going` reports them all);
// - a variable (test-env, require-env, --env) is expanded when it is bound,
//   so a {UUID} in its value stays one value for the whole file: a file's
//   DUCKLAKE_CONNECTION names one catalog, however often it re-attaches it;
// - `require X` that cannot be met, and `require-env` on an unset variable,
//   skip the whole file; so does a file whose every record is excluded;
// - `concurrentloop` / `concurrentforeach` run each iteration on a thread and
//   a connection of its own (one nested in another runs its iterations in turn);
// - hash results (`N values hashing to X`) and query labels are checked with
//   MD5 as DuckDB does.
//
// Thread-safety: SqllogictestOptions is plain data; RunSqllogictest is a whole
// CLI run (it prints to standard output) and starts the threads of concurrent
// loops itself.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace moraine::cli {

struct SqllogictestOptions {
  std::vector<std::string> files;
  // --env NAME=VALUE: the value test-env NAME takes (before the environment and the default).
  std::vector<std::pair<std::string, std::string>> env;
  // --env-prefix NAME=PREFIX: test-env NAME takes PREFIX followed by the value
  // it takes otherwise (--env, the environment, or the file's default), e.g.
  // DUCKLAKE_CONNECTION=moraine: puts each file's catalog where the file
  // itself names it, as a moraine store.
  std::vector<std::pair<std::string, std::string>> env_prefix;
  bool keep_going = false;  // report every failing record of a file, not just the first
  bool verbose = false;     // name every file and its outcome
};

// Prints failing records as they happen and, last, exactly one line
// "N passed, N failed, N skipped" counting files. Returns 0 iff nothing failed.
int RunSqllogictest(const SqllogictestOptions& options);

}  // namespace moraine::cli
