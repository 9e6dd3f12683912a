#include "cli/store_tools_command.h"

#include <vector>

#include "cli/progress_line.h"
#include "cli/tool_printer.h"
#include "store/error.h"
#include "tools/column_lineage.h"
#include "tools/rocksdb_figures.h"
#include "tools/snapshot_log.h"
#include "tools/store_census.h"
#include "tools/store_verifier.h"
#include "tools/table_lookup.h"
#include "tools/table_schema.h"
#include "tools/tag_table.h"
#include "tools/tool_store.h"

namespace moraine::cli {
namespace {

std::vector<std::string> SplitDots(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t dot = text.find('.'); dot != std::string::npos; dot = text.find('.', start)) {
    parts.push_back(text.substr(start, dot - start));
    start = dot + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

// "a.b.c": table a.b with column c when schema a ever had a table b, else
// table a with the nested column b.c.
tools::LineageRequest ParseColumn(const store::KvSnapshot& snapshot, const std::string& column,
                                  std::optional<int64_t> field_id) {
  tools::LineageRequest request;
  request.field_id = field_id;
  std::vector<std::string> parts = SplitDots(column);
  if (field_id) {
    request.table = column;
    return request;
  }
  if (parts.size() < 2) {
    throw store::InvalidArgumentError("name the column as TABLE.COLUMN (or give --field-id), not " +
                                      column);
  }
  size_t table_parts = 1;
  if (parts.size() >= 3) {
    try {
      tools::FindTableEver(snapshot, parts[0] + "." + parts[1]);
      table_parts = 2;
    } catch (const store::NotFoundError&) {
    }
  }
  for (size_t i = 0; i < table_parts; ++i) request.table += (i ? "." : "") + parts[i];
  request.column_path.assign(parts.begin() + static_cast<long>(table_parts), parts.end());
  return request;
}

}  // namespace

int RunInspect(const StoreToolOptions& options, std::ostream& out) {
  auto store = tools::OpenStoreReadOnly(options.path);
  const tools::StoreCensus census = tools::TakeCensus(*store->GetSnapshot());
  tools::ToolTable rocksdb;
  rocksdb.columns = {{"property", tools::ToolType::kVarchar}, {"value", tools::ToolType::kVarchar}};
  for (auto& [property, value] : tools::RocksDbFigures(options.path)) {
    rocksdb.rows.push_back({property, value});
  }
  PrintToolTable(census.summary, options.format, out, "store");
  PrintToolTable(census.census, options.format, out, "keys by kind");
  PrintToolTable(rocksdb, options.format, out, "rocksdb");
  return 0;
}

int RunVerify(const StoreToolOptions& options, std::ostream& out) {
  auto store = tools::OpenStoreReadOnly(options.path);
  tools::VerifyReport report;
  {
    ProgressLine progress;
    report = tools::VerifyStore(*store->GetSnapshot(), [&](uint64_t keys, uint8_t subspace) {
      progress.Update(keys, subspace);
    });
  }
  if (options.format != OutputFormat::kBox) {
    PrintToolTable(tools::ViolationTable(report), options.format, out);
  } else {
    for (const tools::Violation& violation : report.violations) {
      out << violation.check << " " << (violation.key.empty() ? "-" : violation.key) << ": "
          << violation.message << "\n";
    }
    out << options.path << ": " << report.keys_scanned << " keys, " << report.violations.size()
        << (report.violations.size() == 1 ? " violation" : " violations") << "\n";
  }
  return report.clean() ? 0 : kVerifyViolations;
}

int RunSchema(const StoreToolOptions& options, const std::string& table, std::optional<int64_t> at,
              std::ostream& out) {
  auto store = tools::OpenStoreReadOnly(options.path);
  PrintToolTable(tools::SchemaAt(*store->GetSnapshot(), table, at), options.format, out);
  return 0;
}

int RunLineage(const StoreToolOptions& options, const std::string& column,
               std::optional<int64_t> field_id, std::ostream& out) {
  auto store = tools::OpenStoreReadOnly(options.path);
  auto snapshot = store->GetSnapshot();
  const tools::ColumnLineage lineage =
      tools::TraceColumn(*snapshot, ParseColumn(*snapshot, column, field_id));
  PrintToolTable(lineage.versions, options.format, out, "versions");
  PrintToolTable(lineage.files, options.format, out, "data files carrying the field");
  return 0;
}

int RunLog(const StoreToolOptions& options, std::ostream& out) {
  auto store = tools::OpenStoreReadOnly(options.path);
  PrintToolTable(tools::SnapshotLog(*store->GetSnapshot()), options.format, out);
  return 0;
}

int RunTags(const StoreToolOptions& options, bool history, std::ostream& out) {
  auto store = tools::OpenStoreReadOnly(options.path);
  PrintToolTable(tools::ProtectedTagTable(*store->GetSnapshot(), history), options.format, out);
  return 0;
}

}  // namespace moraine::cli
