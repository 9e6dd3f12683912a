// Prints the store tools' tables the way `moraine sql` prints query results
// (result_format.h): boxes by default, CSV or JSON lines on request.
#pragma once

#include <ostream>
#include <string>

#include "cli/result_format.h"
#include "tools/tool_table.h"

namespace moraine::cli {

// Prints `table`. A non-empty `section` names the table: a title line above
// a box, and a leading "section" field on every JSON line, so one output
// holding several tables stays self-describing for machines.
void PrintToolTable(const tools::ToolTable& table, OutputFormat format, std::ostream& out,
                    const std::string& section = "");

}  // namespace moraine::cli
