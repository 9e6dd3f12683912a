#include "differential/differential_harness.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "catalog/ducklake_tables.h"
#include "duckdb.hpp"
#include "ducklake_adapter/host.h"
#include "support/temp_dir.h"
#include "tools/store_verifier.h"
#include "tools/tool_store.h"
#include "util/strings.h"

namespace moraine::differential {
namespace {

using Row = std::vector<std::string>;
using Rows = std::vector<Row>;
using util::Trim;

// Cells or names as one line of a report.
std::string Join(const std::vector<std::string>& values) { return util::Join(values, " | "); }

constexpr const char* kMoraine = "lake";
constexpr const char* kStock = "stock";

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Replaces `token` where it is not glued to a letter or digit on either side.
std::string ReplaceWord(const std::string& text, const std::string& token,
                        const std::string& with) {
  std::string out;
  size_t at = 0;
  while (true) {
    const size_t hit = text.find(token, at);
    if (hit == std::string::npos) break;
    const bool left_ok = hit == 0 || !IsWordChar(text[hit - 1]);
    const size_t after = hit + token.size();
    const bool right_ok = after >= text.size() || !IsWordChar(text[after]);
    out.append(text, at, hit - at);
    out.append(left_ok && right_ok ? with : token);
    at = after;
  }
  out.append(text, at, std::string::npos);
  return out;
}

std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

bool IsHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// Replaces every 8-4-4-4-12 hex UUID in `text` with `<uuid>`.
std::string ReplaceUuids(const std::string& text) {
  static constexpr int kGroups[] = {8, 4, 4, 4, 12};
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    bool match = true;
    for (int g = 0; g < 5 && match; g++) {
      for (int k = 0; k < kGroups[g]; k++, j++) {
        if (j >= text.size() || !IsHex(text[j])) {
          match = false;
          break;
        }
      }
      if (match && g < 4) {
        if (j >= text.size() || text[j] != '-') match = false;
        j++;
      }
    }
    if (match) {
      out += "<uuid>";
      i = j;
    } else {
      out += text[i++];
    }
  }
  return out;
}

std::string Quote(const std::string& identifier) {
  return "\"" + ReplaceAll(identifier, "\"", "\"\"") + "\"";
}

std::string Metadata(const std::string& lake) { return "__ducklake_metadata_" + lake; }

// One query's outcome, every value rendered as DuckDB prints it.
struct Outcome {
  bool ok = false;
  std::string error;
  std::vector<std::string> names;
  std::vector<std::string> types;
  Rows rows;
};

Outcome Execute(duckdb::Connection& connection, const std::string& sql) {
  Outcome outcome;
  auto result = connection.Query(sql);
  if (result->HasError()) {
    outcome.error = result->GetError();
    return outcome;
  }
  outcome.ok = true;
  outcome.names = result->names;
  for (const auto& type : result->types) outcome.types.push_back(type.ToString());
  for (duckdb::idx_t r = 0; r < result->RowCount(); r++) {
    Row row;
    row.reserve(result->ColumnCount());
    for (duckdb::idx_t c = 0; c < result->ColumnCount(); c++) {
      auto value = result->GetValue(c, r);
      row.push_back(value.IsNull() ? "NULL" : value.ToString());
    }
    outcome.rows.push_back(std::move(row));
  }
  return outcome;
}

// Rows present in one sorted multiset and not the other, both ways.
std::string RowDiff(const std::vector<std::string>& names, const Rows& moraine, const Rows& stock) {
  Rows only_moraine;
  Rows only_stock;
  std::set_difference(moraine.begin(), moraine.end(), stock.begin(), stock.end(),
                      std::back_inserter(only_moraine));
  std::set_difference(stock.begin(), stock.end(), moraine.begin(), moraine.end(),
                      std::back_inserter(only_stock));
  constexpr size_t kShow = 25;
  std::ostringstream out;
  out << "    columns: " << Join(names) << "\n";
  out << "    rows: moraine " << moraine.size() << ", stock " << stock.size() << "\n";
  const auto show = [&](const char* label, const Rows& rows) {
    for (size_t i = 0; i < rows.size() && i < kShow; i++) {
      out << "    " << label << Join(rows[i]) << "\n";
    }
    if (rows.size() > kShow) out << "    " << label << "... " << rows.size() - kShow << " more\n";
  };
  show("- only moraine: ", only_moraine);
  show("+ only stock:   ", only_stock);
  return out.str();
}

// DuckDB's "LINE n: ..." excerpt is cut at a width, so it shifts with the
// lake's name; compare the message above it, with the lake names unified.
std::string ErrorMessage(const std::string& error, const std::string& lake,
                         const std::string& lake_dir) {
  std::string message = error.substr(0, error.find("\nLINE "));
  // "Did you mean ...?" suggests names from every attached database: the
  // other lake shows up in it.
  message = message.substr(0, message.find("\nDid you mean"));
  message = ReplaceAll(message, lake_dir, "<LAKEDIR>");
  message = ReplaceAll(message, Metadata(lake), "__ducklake_metadata_LAKE");
  message = ReplaceWord(message, lake, "LAKE");
  return ReplaceUuids(message);
}

// Values that legitimately differ between two lakes running the same script.
// Everything else must be equal byte for byte.
std::string NormalizeCatalogValue(const std::string& table, const std::string& column,
                                  const std::string& value, const std::string& lake_dir) {
  if (value == "NULL") return value;
  // Wall-clock times of commits: the two lakes commit moments apart.
  if ((table == "ducklake_snapshot" && column == "snapshot_time") ||
      (table == "ducklake_files_scheduled_for_deletion" && column == "schedule_start")) {
    return "<time>";
  }
  // Random identities DuckLake draws per object (uuid v4/v7).
  if (column == "schema_uuid" || column == "table_uuid" || column == "view_uuid") {
    return "<uuid>";
  }
  // Each lake lives in a directory of its own (the data_path option, files
  // added with ducklake_add_data_files); file names DuckLake writes embed a
  // fresh uuid (ducklake-<uuid>.parquet, ...-delete.parquet).
  // A delete file holds the absolute path of the data file it applies to
  // (the lake's directory and that file's random name) in Snappy-compressed
  // pages: how well they compress varies (seen: 5 bytes apart when one
  // directory name repeated part of the temp directory's name). Its footer
  // (uncompressed statistics of the same path, equal in length) stays exact.
  if (table == "ducklake_delete_file" && column == "file_size_bytes") return "<size>";
  std::string normalized = ReplaceAll(value, lake_dir, "<LAKEDIR>");
  if (column == "path") normalized = ReplaceUuids(normalized);
  return normalized;
}

// Statement results (CALLs of maintenance functions list files, ...): the
// lake's directory and generated file names differ.
Rows NormalizeStatementRows(Rows rows, const std::string& lake_dir) {
  for (auto& row : rows) {
    for (auto& value : row) value = ReplaceUuids(ReplaceAll(value, lake_dir, "<LAKEDIR>"));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

class Lakes {
 public:
  explicit Lakes(const Options& options) : options_(options) {
    for (const char* lake : {kMoraine, kStock}) {
      std::filesystem::create_directories(LakeDir(lake) + "/files");
      std::filesystem::create_directories(LakeDir(lake) + "/scratch");
    }
    moraine_ = host_.Connect();
    stock_ = host_.Connect();
    check_ = host_.Connect();
    for (auto* connection : {moraine_.get(), stock_.get(), check_.get()}) {
      // DuckLake's catalog cache has an upstream race with several threads.
      Must(*connection, "SET threads = 1");
      // Upstream (both catalogs alike): after a type promotion a column's
      // ducklake_table_column_stats can hold a range narrower than its data,
      // and DuckDB trusts it (compressed materialization of ORDER BY, filter
      // folding). What is compared here is what the catalogs hold and what
      // DuckLake reads through them, not DuckDB's use of table statistics.
      Must(*connection,
           "SET disabled_optimizers = 'compressed_materialization,statistics_propagation'");
    }
    // The control experiment puts a second stock catalog where moraine goes:
    // whatever differs then is DuckLake's own nondeterminism.
    const std::string moraine_target =
        options_.control ? LakeDir(kMoraine) + "/control.ducklake" : "moraine:" + MoraineStore();
    const std::string manager =
        options_.control || options_.native_manager ? "" : ", META_NATIVE_MANAGER false";
    Must(*check_, "ATTACH 'ducklake:" + moraine_target + "' AS " + kMoraine + " (DATA_PATH '" +
                      LakeDir(kMoraine) + "/files/'" + manager + ")");
    Must(*check_, "ATTACH 'ducklake:" + LakeDir(kStock) + "/stock.ducklake' AS " + kStock +
                      " (DATA_PATH '" + LakeDir(kStock) + "/files/')");
  }

  RunResult Run(const std::vector<std::string>& statements) {
    RunResult result;
    for (size_t i = 0; i < statements.size(); i++) {
      const std::string& statement = statements[i];
      using Clock = std::chrono::steady_clock;
      if (Maintenance(statement)) stock_snapshots_.clear();
      const auto t0 = Clock::now();
      std::string report = RunStatement(statement, result);
      const auto t1 = Clock::now();
      if (report.empty()) report = CompareCatalogs(result);
      const auto t2 = Clock::now();
      if (report.empty()) {
        report = CompareSnapshots(!options_.sweep_at_end_only || i + 1 == statements.size());
      }
      const auto t3 = Clock::now();
      result.seconds_statements += std::chrono::duration<double>(t1 - t0).count();
      result.seconds_catalog += std::chrono::duration<double>(t2 - t1).count();
      result.seconds_snapshots += std::chrono::duration<double>(t3 - t2).count();
      result.statements_run = i + 1;
      if (!report.empty()) {
        result.mismatch = Mismatch{i, statement, report};
        break;
      }
    }
    if (!result.mismatch && !options_.control && !statements.empty()) {
      if (std::string report = VerifyMoraineStore(); !report.empty()) {
        result.mismatch = Mismatch{statements.size() - 1, statements.back(), report};
      }
    }
    return result;
  }

  // `moraine verify` on the moraine lake's store: every invariant of the
  // design holds once the script has run. Empty when clean.
  std::string VerifyMoraineStore() const {
    auto store = tools::OpenStoreReadOnly(MoraineStore());
    const tools::VerifyReport verified = tools::VerifyStore(*store->GetSnapshot());
    std::string report;
    for (const tools::Violation& violation : verified.violations) {
      report += "  moraine verify: " + violation.check + " " + violation.key + ": " +
                violation.message + "\n";
    }
    return report;
  }

 private:
  // Both lakes' directories have names of the same length: a delete file
  // stores the full path of the data file it applies to, so the length of
  // the lake's directory shows in its file_size_bytes and footer_size.
  std::string MoraineStore() const {
    return options_.moraine_store.empty() ? LakeDir(kMoraine) + "/store" : options_.moraine_store;
  }

  std::string LakeDir(const std::string& lake) const {
    return dir_.path(lake == kMoraine ? "lake-m" : "lake-s");
  }

  // A call of a DuckLake function (flush, compaction, expiry, cleanup,
  // options, ...) rather than plain DDL/DML.
  static bool Maintenance(const std::string& statement) {
    std::string lower = statement;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower.rfind("call", 0) == 0 || lower.find("ducklake_") != std::string::npos;
  }

  static void Must(duckdb::Connection& connection, const std::string& sql) {
    auto result = connection.Query(sql);
    if (result->HasError()) throw std::runtime_error(sql + "\n  -> " + result->GetError());
  }

  std::string RunStatement(const std::string& statement, RunResult& result) {
    const Outcome moraine =
        Execute(*moraine_, Substitute(statement, kMoraine, LakeDir(kMoraine) + "/scratch"));
    const Outcome stock =
        Execute(*stock_, Substitute(statement, kStock, LakeDir(kStock) + "/scratch"));
    std::ostringstream out;
    if (moraine.ok != stock.ok) {
      out << "  the statement " << (moraine.ok ? "succeeded" : "failed") << " on moraine and "
          << (stock.ok ? "succeeded" : "failed") << " on stock\n";
      if (!moraine.ok) out << "    moraine: " << moraine.error << "\n";
      if (!stock.ok) out << "    stock: " << stock.error << "\n";
      return out.str();
    }
    if (!moraine.ok) {
      result.statements_refused++;
      const std::string a = ErrorMessage(moraine.error, kMoraine, LakeDir(kMoraine));
      result.refusals.push_back(statement + "\n      -> " + a);
      const std::string b = ErrorMessage(stock.error, kStock, LakeDir(kStock));
      if (a != b) {
        out << "  both refused the statement, with different errors\n    moraine: " << a
            << "\n    stock:   " << b << "\n";
      }
      return out.str();
    }
    const Rows a = NormalizeStatementRows(moraine.rows, LakeDir(kMoraine));
    const Rows b = NormalizeStatementRows(stock.rows, LakeDir(kStock));
    if (moraine.names != stock.names || a != b) {
      out << "  the statement's own result differs\n" << RowDiff(moraine.names, a, b);
    }
    return out.str();
  }

  // The metadata catalog's tables are not listed by duckdb_tables(): the
  // fixed ones are known, the inlined data tables are listed in
  // ducklake_inlined_data_tables (of either catalog), and an inlined delete
  // table may exist for any table id either catalog has.
  std::vector<std::string> CatalogTables(std::string& error) {
    std::set<std::string> inlined;
    for (const char* lake : {kMoraine, kStock}) {
      const Outcome data = Execute(
          *check_, "SELECT table_name FROM " + Metadata(lake) + ".ducklake_inlined_data_tables");
      const Outcome ids =
          Execute(*check_, "SELECT DISTINCT table_id FROM " + Metadata(lake) + ".ducklake_table");
      if (!data.ok || !ids.ok) {
        error += lake + std::string(": ") + (data.ok ? ids.error : data.error) + "\n";
        continue;
      }
      for (const auto& row : data.rows) inlined.insert(row[0]);
      for (const auto& row : ids.rows) inlined.insert("ducklake_inlined_delete_" + row[0]);
    }
    std::vector<std::string> names = FixedCatalogTables();
    names.insert(names.end(), inlined.begin(), inlined.end());
    return names;
  }

  static bool Missing(const Outcome& outcome) {
    return !outcome.ok && outcome.error.find("does not exist") != std::string::npos;
  }

  // (a) Every table of both metadata catalogs, full rows, sorted.
  std::string CompareCatalogs(RunResult& result) {
    std::ostringstream out;
    std::string error;
    const auto tables = CatalogTables(error);
    if (!error.empty()) return "  listing the metadata tables failed: " + error;
    for (const auto& table : tables) {
      Outcome moraine =
          Execute(*check_, "SELECT * FROM " + Metadata(kMoraine) + "." + Quote(table));
      Outcome stock = Execute(*check_, "SELECT * FROM " + Metadata(kStock) + "." + Quote(table));
      // An inlined table DuckLake has not created (yet) in either catalog.
      if (table.rfind("ducklake_inlined_", 0) == 0 && table != "ducklake_inlined_data_tables" &&
          Missing(moraine) && Missing(stock)) {
        continue;
      }
      if (!moraine.ok || !stock.ok) {
        out << "  table " << table
            << ": reading it failed\n    moraine: " << (moraine.ok ? "ok" : moraine.error)
            << "\n    stock:   " << (stock.ok ? "ok" : stock.error) << "\n";
        return out.str();
      }
      if (moraine.names != stock.names || moraine.types != stock.types) {
        out << "  table " << table << ": different columns\n    moraine: " << Join(moraine.names)
            << " / " << Join(moraine.types) << "\n    stock:   " << Join(stock.names) << " / "
            << Join(stock.types) << "\n";
        return out.str();
      }
      auto& max = result.max_rows[CoverageName(table)];
      max = std::max<int64_t>(max, static_cast<int64_t>(moraine.rows.size()));
      // DuckLake numbers the delete files one commit writes in the order of
      // a hash map keyed by their random file names: two stock catalogs
      // running the same script (MORAINE_DIFF_CONTROL=1) permute the ids of
      // a flush's delete files, and later replacements then end different
      // ids. A delete file is named here by what identifies it: the data file
      // it applies to and the snapshot it starts at.
      if (table == "ducklake_delete_file") {
        for (auto* side : {&moraine, &stock}) {
          const auto column = [&](const char* name) {
            return std::find(side->names.begin(), side->names.end(), name) - side->names.begin();
          };
          const auto id = column("delete_file_id");
          const auto data_file = column("data_file_id");
          const auto begin = column("begin_snapshot");
          for (auto& row : side->rows) {
            row[id] = "delete of file " + row[data_file] + " from " + row[begin];
          }
        }
      }
      // The same permuted ids show where a replaced delete file waits for
      // deletion.
      if (table == "ducklake_files_scheduled_for_deletion") {
        for (auto* side : {&moraine, &stock}) {
          const auto path =
              std::find(side->names.begin(), side->names.end(), "path") - side->names.begin();
          for (auto& row : side->rows) {
            const std::string suffix = "-delete.parquet";
            const std::string& file = row[path];
            if (file.size() >= suffix.size() &&
                file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0) {
              row[0] = "<id of a delete file>";
            }
          }
        }
      }
      for (auto* side : {&moraine, &stock}) {
        const std::string lake_dir = LakeDir(side == &moraine ? kMoraine : kStock);
        for (auto& row : side->rows) {
          for (size_t c = 0; c < row.size(); c++) {
            row[c] = NormalizeCatalogValue(table, side->names[c], row[c], lake_dir);
          }
        }
        std::sort(side->rows.begin(), side->rows.end());
      }
      if (moraine.rows != stock.rows) {
        out << "  table " << table << " differs\n"
            << RowDiff(moraine.names, moraine.rows, stock.rows);
        return out.str();
      }
    }
    return "";
  }

  // (b) Every user table at every snapshot the lake still has, and at head.
  std::string CompareSnapshots(bool sweep) {
    const std::string m = Metadata(kStock);
    const Outcome tables = Execute(
        *check_,
        "SELECT sn.snapshot_id, s.schema_name, t.table_name FROM " + m +
            ".ducklake_snapshot sn JOIN " + m +
            ".ducklake_table t ON t.begin_snapshot <= sn.snapshot_id AND (t.end_snapshot IS NULL "
            "OR t.end_snapshot > sn.snapshot_id) JOIN " +
            m +
            ".ducklake_schema s ON s.schema_id = t.schema_id AND s.begin_snapshot <= "
            "sn.snapshot_id AND (s.end_snapshot IS NULL OR s.end_snapshot > sn.snapshot_id) "
            "ORDER BY sn.snapshot_id, s.schema_name, t.table_name");
    if (!tables.ok) return "  listing the tables per snapshot failed: " + tables.error + "\n";
    int64_t head = -1;
    for (const auto& row : tables.rows) head = std::max<int64_t>(head, std::stoll(row[0]));
    std::ostringstream out;
    for (const auto& row : tables.rows) {
      const int64_t snapshot = std::stoll(row[0]);
      if ((!options_.all_snapshots || !sweep) && snapshot != head) continue;
      const std::string name = Quote(row[1]) + "." + Quote(row[2]);
      const std::string at = " AT (VERSION => " + row[0] + ")";
      std::vector<std::string> suffixes = {at};
      if (snapshot == head) suffixes.push_back("");  // the current read path too
      for (const auto& suffix : suffixes) {
        const Outcome moraine =
            Execute(*check_, std::string("SELECT * FROM ") + kMoraine + "." + name + suffix);
        const std::string stock_sql = std::string("SELECT * FROM ") + kStock + "." + name + suffix;
        Outcome stock;
        if (suffix.empty()) {
          stock = Execute(*check_, stock_sql);
        } else {
          auto cached = stock_snapshots_.find(stock_sql);
          if (cached == stock_snapshots_.end()) {
            cached = stock_snapshots_.emplace(stock_sql, Execute(*check_, stock_sql)).first;
          }
          stock = cached->second;
        }
        const std::string where = "  table " + row[1] + "." + row[2] +
                                  (suffix.empty() ? " at head (no AT)" : " at snapshot " + row[0]);
        if (moraine.ok != stock.ok) {
          out << where << ": reading it " << (moraine.ok ? "succeeded" : "failed")
              << " on moraine and " << (stock.ok ? "succeeded" : "failed") << " on stock\n";
          if (!moraine.ok) out << "    moraine: " << moraine.error << "\n";
          if (!stock.ok) out << "    stock: " << stock.error << "\n";
          return out.str();
        }
        if (!moraine.ok) {
          const std::string a = ErrorMessage(moraine.error, kMoraine, LakeDir(kMoraine));
          const std::string b = ErrorMessage(stock.error, kStock, LakeDir(kStock));
          if (a != b) {
            out << where << ": both fail to read it, differently\n    moraine: " << a
                << "\n    stock:   " << b << "\n";
            return out.str();
          }
          continue;
        }
        if (moraine.names != stock.names || moraine.types != stock.types) {
          out << where << ": different columns\n    moraine: " << Join(moraine.names) << " / "
              << Join(moraine.types) << "\n    stock:   " << Join(stock.names) << " / "
              << Join(stock.types) << "\n";
          return out.str();
        }
        Rows a = moraine.rows;
        Rows b = stock.rows;
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        if (a != b) {
          out << where << " differs\n" << RowDiff(moraine.names, a, b);
          return out.str();
        }
      }
    }
    return "";
  }

  Options options_;
  // The stock lake's reads at past snapshots, which only maintenance can
  // change (expiring snapshots, deleting files, rewriting them): the stock
  // catalog is the reference, so each is read once and kept until a
  // maintenance call (see Run). Moraine's side is read after every statement.
  std::map<std::string, Outcome> stock_snapshots_;
  test::TempDir dir_;
  ducklake_adapter::Host host_;
  std::unique_ptr<duckdb::Connection> moraine_;
  std::unique_ptr<duckdb::Connection> stock_;
  std::unique_ptr<duckdb::Connection> check_;
};

}  // namespace

std::vector<std::string> ParseScript(const std::string& text) {
  std::vector<std::string> statements;
  std::istringstream lines(text);
  std::string line;
  std::string current;
  while (std::getline(lines, line)) {
    const std::string trimmed = Trim(line);
    if (trimmed.empty() || trimmed.rfind("--", 0) == 0) continue;
    if (!current.empty()) current += "\n";
    current += trimmed;
    if (trimmed.back() == ';') {
      current.pop_back();
      current = Trim(current);
      if (!current.empty()) statements.push_back(current);
      current.clear();
    }
  }
  if (!Trim(current).empty()) statements.push_back(Trim(current));
  return statements;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string RenderScript(const std::vector<std::string>& statements) {
  std::string out;
  for (const auto& statement : statements) out += statement + ";\n";
  return out;
}

std::string Substitute(const std::string& statement, const std::string& lake,
                       const std::string& scratch) {
  return ReplaceWord(ReplaceWord(statement, "LAKE", lake), "SCRATCH", scratch);
}

Options OptionsFromEnvironment() {
  Options options;
  const char* control = std::getenv("MORAINE_DIFF_CONTROL");
  options.control = control && std::string(control) == "1";
  const char* sweep = std::getenv("MORAINE_DIFF_SWEEP");
  options.sweep_at_end_only = sweep && std::string(sweep) == "end";
  const char* native = std::getenv("MORAINE_DIFF_NATIVE");
  options.native_manager = !(native && std::string(native) == "0");
  return options;
}

RunResult RunDifferential(const std::vector<std::string>& statements, const Options& options) {
  Lakes lakes(options);
  return lakes.Run(statements);
}

std::vector<std::string> FixedCatalogTables() {
  std::vector<std::string> names;
  for (const auto& table : catalog::CatalogTablesV1_0()) names.emplace_back(table.name);
  return names;
}

std::string CoverageName(const std::string& table) {
  if (table.rfind("ducklake_inlined_data_", 0) == 0 && table != "ducklake_inlined_data_tables") {
    return "ducklake_inlined_data_<table>_<version>";
  }
  if (table.rfind("ducklake_inlined_delete_", 0) == 0) return "ducklake_inlined_delete_<table>";
  return table;
}

}  // namespace moraine::differential
