// The stock DuckDB that users run, at the pinned version (the venv and the
// Node modules that scripts/setup.sh installs): its CLI, its Python package
// and its Node client, each given a SQL script in a process of its own, with
// moraine installed as a user installs it.
#pragma once

#include <fstream>
#include <string>

#include "support/run_process.h"

namespace moraine::test {

enum class FrontEnd { kCli, kPython, kNode };

inline const char* Name(FrontEnd front_end) {
  switch (front_end) {
    case FrontEnd::kCli:
      return "cli";
    case FrontEnd::kPython:
      return "python";
    case FrontEnd::kNode:
      return "node";
  }
  return "?";
}

// How a script brings moraine into the session: the README's three ways.
enum class MoraineFrom {
  kRepository,   // INSTALL moraine FROM '<repo>'; LOAD moraine;
  kInstallFile,  // INSTALL '<file>'; LOAD moraine;
  kLoadFile,     // LOAD '<file>';
};

// The lines that start every script: extensions go to `extension_directory`
// (not the user's ~/.duckdb), nothing is fetched from the network, moraine
// comes as `from` says and the pinned DuckLake is loaded by path.
inline std::string Prelude(const std::string& extension_directory, MoraineFrom from,
                           const std::string& extension) {
  std::string sql = "SET extension_directory = '" + extension_directory +
                    "';\n"
                    "SET autoinstall_known_extensions = false;\n";
  switch (from) {
    case MoraineFrom::kRepository:
      sql += "INSTALL moraine FROM '" + extension + "';\nLOAD moraine;\n";
      break;
    case MoraineFrom::kInstallFile:
      sql += "INSTALL '" + extension + "';\nLOAD moraine;\n";
      break;
    case MoraineFrom::kLoadFile:
      sql += "LOAD '" + extension + "';\n";
      break;
  }
  sql += "LOAD '" DUCKLAKE_EXTENSION "';\n";
  return sql;
}

// Runs `script` (written to `script_path`) in a fresh process of the stock
// CLI, Python or Node. Output is CSV with headers every way (tests/ecosystem/
// run_sql.py and run_sql.mjs print what the CLI's -csv mode prints); the first
// error stops the script with exit status 1.
inline ProcessResult RunStock(FrontEnd front_end, const std::string& script,
                              const std::string& script_path) {
  std::ofstream(script_path) << script;
  const std::string venv = STOCK_DUCKDB_VENV;
  if (front_end == FrontEnd::kCli) {
    // The README's line for the CLI: -unsigned allows an unsigned extension.
    return RunCommand(venv + "/bin/duckdb -unsigned -csv -bail -init /dev/null -f '" + script_path +
                      "' 2>&1 </dev/null");
  }
  if (front_end == FrontEnd::kNode) {
    return RunCommand("NODE_PATH='" STOCK_NODE_MODULES "' node " RUN_SQL_NODE_SCRIPT " '" +
                      script_path + "' 2>&1");
  }
  return RunCommand(venv + "/bin/python " RUN_SQL_SCRIPT " '" + script_path + "' 2>&1");
}

}  // namespace moraine::test
