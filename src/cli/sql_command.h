// `moraine sql`: a DuckDB session with moraine registered and DuckLake loaded.
//
// Thread-safety: SqlOptions is plain data; RunSql is a whole `moraine sql` run,
// for the CLI's main thread (it owns standard input and the terminal).
#pragma once

#include <string>
#include <vector>

#include "cli/result_format.h"

namespace moraine::cli {

struct SqlOptions {
  OutputFormat format = OutputFormat::kBox;
  std::vector<std::string> commands;  // -c strings, run in order
  std::string file;                   // else a script file
  std::string database;               // the session's own DuckDB database (empty: memory)
};

// Runs -c strings, else FILE, else standard input (an interactive shell with
// line editing and history when it is a terminal). Non-interactive runs stop
// at the first error, report it on stderr and return non-zero.
int RunSql(const SqlOptions& options);

}  // namespace moraine::cli
