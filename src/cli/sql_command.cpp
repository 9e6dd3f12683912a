#include "cli/sql_command.h"

#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/line_reader.h"
#include "duckdb.hpp"
#include "ducklake_adapter/host.h"

namespace moraine::cli {
namespace {

// Runs every statement of `sql`, printing each result. Returns false at the
// first error, after reporting it on stderr.
bool RunStatements(duckdb::Connection& connection, const std::string& sql, OutputFormat format) {
  duckdb::vector<duckdb::unique_ptr<duckdb::SQLStatement>> statements;
  try {
    statements = connection.ExtractStatements(sql);
  } catch (const std::exception& error) {
    std::cerr << duckdb::ErrorData(error).Message() << "\n";
    return false;
  }
  for (auto& statement : statements) {
    auto result = connection.Query(std::move(statement));
    if (result->HasError()) {
      std::cerr << result->GetError() << "\n";
      return false;
    }
    if (result->properties.return_type == duckdb::StatementReturnType::QUERY_RESULT) {
      PrintResult(*result, *connection.context, format, std::cout);
      // Each result reaches a pipe as soon as its statement is done, so that
      // what a session printed before it was killed is not lost with it.
      std::cout.flush();
    }
  }
  return true;
}

std::string ReadAll(std::istream& in) {
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A statement is complete once its text, trimmed, ends with a semicolon.
bool EndsStatement(const std::string& text) {
  const auto last = text.find_last_not_of(" \t\r\n");
  return last != std::string::npos && text[last] == ';';
}

int RunInteractive(duckdb::Connection& connection, OutputFormat format) {
  LineReader reader;
  std::cout << "moraine: DuckDB with moraine and DuckLake. End statements with ';', "
               "quit with .quit or Ctrl-D.\n";
  std::string pending;
  std::string line;
  while (reader.ReadLine(pending.empty() ? "moraine> " : "    ...> ", &line)) {
    if (pending.empty() && (line == ".quit" || line == ".exit")) break;
    if (pending.empty() && line.find_first_not_of(" \t") == std::string::npos) continue;
    pending += line + "\n";
    if (!EndsStatement(pending)) continue;
    reader.AddHistory(pending.substr(0, pending.size() - 1));
    RunStatements(connection, pending, format);  // errors are shown; the shell goes on
    pending.clear();
  }
  return 0;
}

}  // namespace

int RunSql(const SqlOptions& options) {
  ducklake_adapter::HostOptions host_options;
  host_options.database_path = options.database;
  ducklake_adapter::Host host(host_options);
  auto connection = host.Connect();

  if (!options.commands.empty()) {
    for (const auto& command : options.commands) {
      if (!RunStatements(*connection, command, options.format)) return 1;
    }
    return 0;
  }
  if (!options.file.empty()) {
    std::ifstream in(options.file);
    if (!in) {
      std::cerr << "moraine sql: cannot read " << options.file << "\n";
      return 1;
    }
    return RunStatements(*connection, ReadAll(in), options.format) ? 0 : 1;
  }
  if (isatty(STDIN_FILENO)) return RunInteractive(*connection, options.format);
  return RunStatements(*connection, ReadAll(std::cin), options.format) ? 0 : 1;
}

}  // namespace moraine::cli
