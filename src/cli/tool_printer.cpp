#include "cli/tool_printer.h"

#include <stdexcept>

#include "duckdb.hpp"
#include "duckdb_shim/tool_values.h"

namespace moraine::cli {
namespace {

// The table as printed: in JSON with a leading "section" field when named.
tools::ToolTable Labelled(const tools::ToolTable& table, OutputFormat format,
                          const std::string& section) {
  if (format != OutputFormat::kJson || section.empty()) return table;
  tools::ToolTable labelled;
  labelled.columns.push_back({"section", tools::ToolType::kVarchar});
  labelled.columns.insert(labelled.columns.end(), table.columns.begin(), table.columns.end());
  for (const auto& row : table.rows) {
    tools::ToolRow with_label{section};
    with_label.insert(with_label.end(), row.begin(), row.end());
    labelled.rows.push_back(std::move(with_label));
  }
  return labelled;
}

}  // namespace

void PrintToolTable(const tools::ToolTable& tool_table, OutputFormat format, std::ostream& out,
                    const std::string& section) {
  const tools::ToolTable table = Labelled(tool_table, format, section);
  // The rows go through a private in-memory DuckDB result so the one renderer
  // of `moraine sql` prints them: the same boxes, CSV quoting and JSON typing.
  duckdb::DuckDB database(nullptr);
  duckdb::Connection connection(database);
  duckdb::vector<duckdb::LogicalType> types;
  duckdb::vector<duckdb::string> names;
  for (const auto& column : table.columns) {
    types.push_back(duckdb_shim::ToolColumnType(column.type));
    names.push_back(column.name);
  }
  auto rows =
      duckdb::make_uniq<duckdb::ColumnDataCollection>(duckdb::Allocator::DefaultAllocator(), types);
  duckdb::DataChunk chunk;
  chunk.Initialize(duckdb::Allocator::DefaultAllocator(), types);
  for (const auto& row : table.rows) {
    if (row.size() != table.columns.size()) throw std::logic_error("a tool row of the wrong width");
    const auto at = chunk.size();
    for (size_t c = 0; c < row.size(); ++c) {
      chunk.SetValue(c, at, duckdb_shim::ToolCellValue(row[c], table.columns[c].type));
    }
    chunk.SetCardinality(at + 1);
    if (chunk.size() == STANDARD_VECTOR_SIZE) {
      rows->Append(chunk);
      chunk.Reset();
    }
  }
  if (chunk.size() > 0) rows->Append(chunk);
  if (format == OutputFormat::kBox && !section.empty()) out << section << "\n";
  duckdb::MaterializedQueryResult result(duckdb::StatementType::SELECT_STATEMENT,
                                         duckdb::StatementProperties(), names, std::move(rows),
                                         connection.context->GetClientProperties());
  PrintResult(result, *connection.context, format, out);
}

}  // namespace moraine::cli
