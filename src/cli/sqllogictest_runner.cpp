#include "cli/sqllogictest_runner.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <sstream>
#include <thread>

#include "cli/sqllogictest_parser.h"
#include "duckdb.hpp"
#include "duckdb/common/crypto/md5.hpp"
#include "ducklake_adapter/host.h"
#include "util/strings.h"
#include "util/temp_dir.h"

namespace moraine::cli {
namespace {

using slt::Expectation;
using slt::LoopBinding;
using slt::Record;
using slt::RecordKind;
using slt::SortMode;
using util::Lower;
using util::Trim;

enum class Outcome { kPassed, kFailed, kSkipped };

// Thrown to end a file early and count it as skipped.
struct SkipFile {
  std::string reason;
};

// The line of the record being run, per thread (concurrent loops run records on threads).
thread_local int current_line = 0;

constexpr int64_t kStandardVectorSize = 2048;
constexpr int64_t kDefaultBlockSize = 262144;

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string SqlString(const std::string& text) { return util::SqlQuoted(text, '\''); }

std::string Indent(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out += "    " + line + "\n";
  return out;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

// The directive line of a record as it would appear in the file.
std::string DirectiveText(const Record& record) {
  std::string text = record.kind == RecordKind::kQuery ? "query" : "statement";
  for (const auto& param : record.params) text += " " + param;
  return text;
}

// One query result rendered two ways: `canonical` is DuckDB's runner form
// (booleans 1/0), which sorting, comparing and hashing use; `display` shows
// booleans as true/false for people.
struct RenderedResult {
  std::vector<std::string> canonical;
  std::vector<std::string> display;
  size_t columns = 0;
  size_t rows = 0;
};

RenderedResult Render(duckdb::MaterializedQueryResult& result, duckdb::ClientContext& context) {
  RenderedResult rendered;
  rendered.columns = result.ColumnCount();
  rendered.rows = result.RowCount();
  for (size_t row = 0; row < rendered.rows; row++) {
    for (size_t column = 0; column < rendered.columns; column++) {
      const auto value = result.GetValue(column, row);
      const auto& type = result.types[column];
      if (value.IsNull()) {
        rendered.canonical.emplace_back("NULL");
        rendered.display.emplace_back("NULL");
      } else if (type.id() == duckdb::LogicalTypeId::BOOLEAN) {
        const bool truth = duckdb::BooleanValue::Get(value);
        rendered.canonical.emplace_back(truth ? "1" : "0");
        rendered.display.emplace_back(truth ? "true" : "false");
      } else {
        std::string text = value.CastAs(context, duckdb::LogicalType::VARCHAR).ToString();
        text = text.empty() ? "(empty)" : slt::ReplaceAll(text, std::string(1, '\0'), "\\0");
        rendered.canonical.push_back(text);
        rendered.display.push_back(std::move(text));
      }
    }
  }
  return rendered;
}

// rowsort / valuesort, ordering by the canonical strings as DuckDB does.
void Sort(SortMode mode, RenderedResult& result) {
  if (mode == SortMode::kNone || result.columns == 0) return;
  const size_t width = mode == SortMode::kValue ? 1 : result.columns;
  const size_t count = result.canonical.size() / width;
  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::lexicographical_compare(
        result.canonical.begin() + static_cast<std::ptrdiff_t>(a * width),
        result.canonical.begin() + static_cast<std::ptrdiff_t>((a + 1) * width),
        result.canonical.begin() + static_cast<std::ptrdiff_t>(b * width),
        result.canonical.begin() + static_cast<std::ptrdiff_t>((b + 1) * width));
  });
  RenderedResult sorted = result;
  for (size_t i = 0; i < count; i++) {
    for (size_t j = 0; j < width; j++) {
      sorted.canonical[i * width + j] = result.canonical[order[i] * width + j];
      sorted.display[i * width + j] = result.display[order[i] * width + j];
    }
  }
  result = std::move(sorted);
}

std::string DisplayRows(const RenderedResult& result) {
  std::string out;
  for (size_t row = 0; row < result.rows; row++) {
    for (size_t column = 0; column < result.columns; column++) {
      if (column > 0) out += "\t";
      out += result.display[row * result.columns + column];
    }
    out += "\n";
  }
  return out.empty() ? "(no rows)\n" : out;
}

class FileRun {
 public:
  FileRun(const SqllogictestOptions& options, std::string path, duckdb::Connection& helper,
          std::ostream& out)
      : options_(options), path_(std::move(path)), helper_(helper), out_(out) {}

  Outcome Run() {
    const auto parsed = slt::ParseTestFile(path_);
    if (!parsed.error.empty()) {
      // "line N: message" from the parser becomes "FAIL file:N: malformed test file: message"
      const std::string prefix = "line " + std::to_string(parsed.error_line) + ": ";
      const std::string message =
          StartsWith(parsed.error, prefix) ? parsed.error.substr(prefix.size()) : parsed.error;
      out_ << "FAIL " << path_
           << (parsed.error_line > 0 ? ":" + std::to_string(parsed.error_line) : std::string())
           << ": malformed test file: " << message << "\n";
      return Outcome::kFailed;
    }
    // A fresh directory for the file's __TEST_DIR__, removed afterwards.
    const util::TempDir test_dir("moraine-slt-");
    substitution_.test_dir = test_dir.root().string();
    substitution_.test_name = path_;
    std::error_code ignored;
    substitution_.working_directory = std::filesystem::current_path(ignored).string();

    Outcome outcome = Outcome::kPassed;
    try {
      OpenDatabase("");
      std::vector<LoopBinding> bindings;
      Execute(parsed.records, bindings, nullptr);
    } catch (const SkipFile& skip) {
      if (failures_ == 0) {
        out_ << "SKIP " << path_ << ": " << skip.reason << "\n";
        outcome = Outcome::kSkipped;
      }
    } catch (const std::exception& error) {
      Fail("error: " + duckdb::ErrorData(error).Message(), "");
    }
    named_.clear();
    connection_.reset();
    host_.reset();
    if (failures_ > 0) return Outcome::kFailed;
    if (outcome == Outcome::kPassed && parsed.test_records == 0 && parsed.skipped_records > 0) {
      out_ << "SKIP " << path_ << ": every record is skipped (mode skip / skipif / onlyif)\n";
      return Outcome::kSkipped;
    }
    return outcome;
  }

 private:
  // --- failures ---

  void Fail(const std::string& headline, const std::string& details) {
    std::lock_guard lock(mutex_);
    out_ << "FAIL " << path_ << ":" << current_line << ": " << headline << "\n" << details;
    out_.flush();
    failures_++;
    if (!options_.keep_going) stopped_ = true;
  }

  template <typename F>
  void Serial(F&& action) {
    std::lock_guard lock(mutex_);
    action();
  }

  void FailRecord(const Record& record, const std::string& sql, const std::string& headline,
                  const std::string& details) {
    Fail(headline, "  " + DirectiveText(record) + "\n" + Indent(sql) + details);
  }

  // --- database ---

  void Setup(duckdb::Connection& connection) {
    connection.Query("SET secret_directory=" +
                     SqlString(substitution_.test_dir + "/test_secret_dir"));
  }

  void OpenDatabase(const std::string& path) {
    if (in_concurrent_loop_)
      throw std::runtime_error("cannot load or restart in a concurrent loop");
    named_.clear();
    connection_.reset();
    host_.reset();
    database_path_ = path;
    ducklake_adapter::HostOptions host_options;
    host_options.database_path = path;
    host_ = std::make_unique<ducklake_adapter::Host>(host_options);
    connection_ = host_->Connect();
    Setup(*connection_);
    for (const auto& extension : loaded_extensions_) connection_->Query("LOAD " + extension);
  }

  duckdb::Connection& ConnectionFor(const std::string& name, duckdb::Connection* loop_connection) {
    if (name.empty()) return loop_connection ? *loop_connection : *connection_;
    if (in_concurrent_loop_) {
      throw std::runtime_error("named connections are not supported in a concurrent loop");
    }
    auto& named = named_[name];
    if (!named) {
      named = host_->Connect();
      Setup(*named);
    }
    return *named;
  }

  // --- substitution ---

  std::string Substitute(const std::string& text, const std::vector<LoopBinding>& bindings) {
    return slt::SubstituteLoopVariables(slt::SubstituteKeywords(text, substitution_), bindings);
  }

  // The value is expanded once, here: a {UUID} in it names one thing for the
  // whole file (the file's catalog, attached, detached and attached again),
  // not a fresh one at every use.
  void SetVariable(const std::string& name, const std::string& raw_value) {
    const std::string value = slt::SubstituteKeywords(raw_value, substitution_);
    for (auto& variable : substitution_.variables) {
      if (variable.first == name) {
        variable.second = value;
        return;
      }
    }
    substitution_.variables.emplace_back(name, value);
  }

  // --env NAME=VALUE, else the environment; nullptr when neither has it.
  const std::string* LookupEnv(const std::string& name) {
    for (auto it = options_.env.rbegin(); it != options_.env.rend(); ++it) {
      if (it->first == name) return &it->second;
    }
    if (const char* value = std::getenv(name.c_str())) {
      env_scratch_ = value;
      return &env_scratch_;
    }
    return nullptr;
  }

  // --- execution ---

  void Execute(const std::vector<Record>& records, std::vector<LoopBinding>& bindings,
               duckdb::Connection* loop_connection) {
    for (const auto& record : records) {
      if (stopped_) return;
      current_line = record.line;
      if (!record.conditions.empty() && !slt::ConditionsAllow(record.conditions, bindings)) {
        continue;
      }
      switch (record.kind) {
        case RecordKind::kStatement:
          RunStatement(record, bindings, loop_connection);
          break;
        case RecordKind::kQuery:
          RunQuery(record, bindings, loop_connection);
          break;
        case RecordKind::kLoop:
          RunLoop(record, bindings, loop_connection);
          break;
        case RecordKind::kRequire:
          Require(record.params);
          break;
        case RecordKind::kRequireEnv: {
          const std::string& name = record.params[0];
          const std::string* value = LookupEnv(name);
          if (value == nullptr) throw SkipFile{"require-env " + name + ": not set"};
          if (record.params.size() == 2 && *value != record.params[1]) {
            throw SkipFile{"require-env " + name + " " + record.params[1] + ": it is " + *value};
          }
          SetVariable(name, *value);
          break;
        }
        case RecordKind::kTestEnv: {
          const std::string& name = record.params[0];
          const std::string* value = LookupEnv(name);
          std::string prefix;
          for (const auto& [prefixed, text] : options_.env_prefix) {
            if (prefixed == name) prefix = text;
          }
          SetVariable(name, prefix + (value ? *value : record.params[1]));
          break;
        }
        case RecordKind::kLoad: {
          const std::string path =
              record.params.empty() ? "" : slt::SubstituteKeywords(record.params[0], substitution_);
          const bool read_only = record.params.size() > 1 && Lower(record.params[1]) == "readonly";
          if (!path.empty() && !read_only) {  // DuckDB's runner starts a writable load afresh
            std::error_code ignored;
            std::filesystem::remove(path, ignored);
            std::filesystem::remove(path + ".wal", ignored);
          }
          OpenDatabase(path);
          break;
        }
        case RecordKind::kRestart: {
          const bool reload =
              !(record.params.size() == 1 && record.params[0] == "no_extension_load");
          auto extensions = loaded_extensions_;
          if (!reload) loaded_extensions_.clear();
          OpenDatabase(database_path_);
          loaded_extensions_ = std::move(extensions);
          break;
        }
        case RecordKind::kReconnect:
          connection_ = host_->Connect();
          Setup(*connection_);
          break;
        case RecordKind::kSleep:
          Sleep(record.params);
          break;
        case RecordKind::kResetLabel:
          Serial([&] { labels_.erase(record.params[1]); });
          break;
        case RecordKind::kSet:
          Set(record.params);
          break;
        case RecordKind::kHashThreshold:
          hash_threshold_ = std::stoll(record.params[0]);
          break;
        case RecordKind::kMode: {
          static const char* const kModes[] = {"output_result", "output_hash", "no_output",
                                               "debug"};
          if (std::find(std::begin(kModes), std::end(kModes), record.params[0]) ==
              std::end(kModes)) {
            Fail("unrecognized mode '" + record.params[0] + "'", "");
          }
          break;  // output modes only change what DuckDB's runner prints
        }
        case RecordKind::kUnzip:
          Unzip(record.params);
          break;
        case RecordKind::kTags:
          break;
      }
    }
  }

  void RunLoop(const Record& loop, std::vector<LoopBinding>& bindings,
               duckdb::Connection* loop_connection) {
    std::vector<std::string> values = loop.tokens;
    if (!loop.foreach) {
      for (int64_t i = loop.start; i < loop.end; i++) values.push_back(std::to_string(i));
    }
    if (loop.concurrent && !in_concurrent_loop_) {
      RunConcurrently(loop, bindings, values);
      return;
    }
    for (const auto& value : values) {
      if (stopped_) return;
      bindings.push_back({loop.iterator, slt::SubstituteKeywords(value, substitution_)});
      // a concurrent loop inside another runs its iterations in turn, each on its own connection
      std::unique_ptr<duckdb::Connection> own;
      if (loop.concurrent) own = NewConnection();
      Execute(loop.body, bindings, own ? own.get() : loop_connection);
      bindings.pop_back();
    }
  }

  // One thread per iteration, each on a connection of its own, as DuckDB's runner does.
  void RunConcurrently(const Record& loop, const std::vector<LoopBinding>& bindings,
                       const std::vector<std::string>& values) {
    in_concurrent_loop_ = true;
    std::vector<std::thread> threads;
    std::vector<std::string> skips(values.size());
    for (size_t i = 0; i < values.size(); i++) {
      std::vector<LoopBinding> own_bindings = bindings;
      own_bindings.push_back({loop.iterator, slt::SubstituteKeywords(values[i], substitution_)});
      threads.emplace_back([this, &loop, &skips, i, own_bindings, line = current_line]() mutable {
        current_line = line;
        try {
          auto connection = NewConnection();
          Execute(loop.body, own_bindings, connection.get());
        } catch (const SkipFile& skip) {
          skips[i] = skip.reason;
          stopped_ = true;
        } catch (const std::exception& error) {
          Fail("error: " + duckdb::ErrorData(error).Message(), "");
        }
      });
    }
    for (auto& thread : threads) thread.join();
    in_concurrent_loop_ = false;
    for (const auto& reason : skips) {
      if (!reason.empty()) throw SkipFile{reason};
    }
  }

  std::unique_ptr<duckdb::Connection> NewConnection() {
    auto connection = host_->Connect();
    Setup(*connection);
    return connection;
  }

  bool IsInternalError(const std::string& error) const {
    if (Contains(error, "INTERNAL Error")) return true;
    for (const auto& message : always_fail_) {
      if (Contains(error, message)) return true;
    }
    return false;
  }

  void CheckIgnoredError(const std::string& error) const {
    for (const auto& message : ignore_errors_) {
      if (Contains(error, message))
        throw SkipFile{"error matched ignore_error_messages: " + message};
    }
  }

  bool RegexMatches(const std::string& value, const std::string& pattern_with_prefix) {
    const bool want_match = StartsWith(pattern_with_prefix, "<REGEX>:");
    const std::string pattern = pattern_with_prefix.substr(pattern_with_prefix.find(':') + 1);
    std::lock_guard lock(mutex_);
    auto result = helper_.Query("SELECT regexp_full_match(" + SqlString(value) + ", " +
                                SqlString("(?s)" + pattern) + ")");
    if (result->HasError() || result->RowCount() != 1) return false;
    const auto matched = result->GetValue(0, 0);
    return !matched.IsNull() && duckdb::BooleanValue::Get(matched) == want_match;
  }

  bool ErrorMatches(const std::string& error, const std::string& expected,
                    const std::vector<LoopBinding>& bindings) {
    if (Contains(error, expected) || Contains(error, Substitute(expected, bindings))) return true;
    if (StartsWith(expected, "<REGEX>:") || StartsWith(expected, "<!REGEX>:")) {
      return RegexMatches(error, expected);
    }
    return false;
  }

  void RunStatement(const Record& record, const std::vector<LoopBinding>& bindings,
                    duckdb::Connection* loop_connection) {
    const std::string sql = Substitute(record.sql, bindings);
    auto& connection = ConnectionFor(record.connection, loop_connection);
    auto result = connection.Query(sql);
    const bool errored = result->HasError();
    const std::string error = errored ? result->GetError() : "";
    if (errored) CheckIgnoredError(error);
    switch (record.expectation) {
      case Expectation::kOk:
        if (errored) FailRecord(record, sql, "statement failed", "  error:\n" + Indent(error));
        return;
      case Expectation::kError:
        if (!errored) {
          FailRecord(record, sql, "statement succeeded, an error was expected",
                     record.expected_error.empty()
                         ? ""
                         : "  expected error:\n" + Indent(record.expected_error));
          return;
        }
        break;
      case Expectation::kMaybe:
        if (!errored) return;
        break;
    }
    if (IsInternalError(error)) {
      FailRecord(record, sql, "internal errors are never expected", "  error:\n" + Indent(error));
    } else if (!record.expected_error.empty() &&
               !ErrorMatches(error, record.expected_error, bindings)) {
      FailRecord(record, sql, "wrong error message",
                 "  expected error containing:\n" + Indent(record.expected_error) +
                     "  actual error:\n" + Indent(error));
    }
  }

  bool ValuesEqual(const std::string& actual, const std::string& expected,
                   const duckdb::LogicalType& type, const std::vector<LoopBinding>& bindings) {
    if (actual == expected || actual == Substitute(expected, bindings)) return true;
    if (StartsWith(expected, "<REGEX>:") || StartsWith(expected, "<!REGEX>:")) {
      if (RegexMatches(actual, expected)) return true;
    }
    auto& context = *helper_.context;
    std::lock_guard lock(mutex_);
    if (type.IsNumeric()) {
      // floating point and decimals compare as values of the column's type
      auto convert = [&](const std::string& text, duckdb::Value& value) {
        if (text == "NULL") {
          value = duckdb::Value(type);
          return true;
        }
        value = duckdb::Value(text);
        return value.TryCastAs(context, type);
      };
      duckdb::Value left, right;
      if (!convert(actual, left) || !convert(expected, right)) return false;
      return duckdb::Value::ValuesAreEqual(context, left, right);
    }
    if (type.id() == duckdb::LogicalTypeId::BOOLEAN) {
      auto truth = [](const std::string& text) {
        const std::string lower = Lower(text);
        if (lower == "true" || lower == "1") return 1;
        if (lower == "false" || lower == "0") return 0;
        return -1;
      };
      return truth(actual) >= 0 && truth(actual) == truth(expected);
    }
    return false;
  }

  void RunQuery(const Record& record, const std::vector<LoopBinding>& bindings,
                duckdb::Connection* loop_connection) {
    const std::string sql = Substitute(record.sql, bindings);
    auto& connection = ConnectionFor(record.connection, loop_connection);
    auto result = connection.Query(sql);
    if (result->HasError()) {
      CheckIgnoredError(result->GetError());
      FailRecord(record, sql, "query failed", "  error:\n" + Indent(result->GetError()));
      return;
    }
    RenderedResult rendered = Render(*result, *connection.context);
    Sort(record.sort, rendered);
    const auto& expected = record.expected;
    const size_t total = rendered.canonical.size();

    const bool expected_is_hash = expected.size() == 1 && slt::IsHashResult(expected[0]);
    if (expected_is_hash || !record.label.empty() ||
        (hash_threshold_ > 0 && static_cast<int64_t>(total) > hash_threshold_)) {
      duckdb::MD5Context md5;
      for (const auto& value : rendered.canonical) {
        md5.Add(value);
        md5.Add("\n");
      }
      const std::string hash = std::to_string(total) + " values hashing to " + md5.FinishHex();
      std::string wanted;
      if (!record.label.empty()) {
        Serial([&] {
          auto [entry, inserted] = labels_.emplace(record.label, hash);
          if (!inserted && entry->second != hash) {
            wanted = entry->second + " (label " + record.label + ")";
          }
        });
      }
      if (expected_is_hash && expected[0] != hash) wanted = expected[0];
      if (!wanted.empty()) {
        FailRecord(record, sql, "wrong result hash",
                   "  expected:\n" + Indent(wanted) + "  actual:\n" + Indent(hash) +
                       "  actual rows:\n" + Indent(DisplayRows(rendered)));
      }
      return;
    }

    auto wrong = [&](const std::string& headline) {
      FailRecord(record, sql, headline,
                 "  expected:\n" + Indent(expected.empty() ? "(no rows)" : JoinLines(expected)) +
                     "  actual:\n" + Indent(DisplayRows(rendered)));
    };
    size_t columns = record.types.size();
    const bool column_count_mismatch = columns != rendered.columns;
    if (column_count_mismatch) columns = rendered.columns;
    if (columns == 0) return wrong("the query returned no columns");
    // Expected values come one row per line (tab-separated) or one value per line.
    bool row_wise = columns > 1 && expected.size() == rendered.rows;
    if (!row_wise) {
      row_wise = std::all_of(expected.begin(), expected.end(),
                             [](const std::string& line) { return Contains(line, "\t"); });
    }
    std::vector<std::string> expected_values;
    if (row_wise) {
      if (expected.size() != rendered.rows) {
        return wrong(column_count_mismatch ? "wrong column count" : "wrong row count");
      }
      for (const auto& line : expected) {
        size_t count = 0, start = 0;
        while (true) {
          const size_t tab = line.find('\t', start);
          expected_values.push_back(line.substr(start, tab - start));
          count++;
          if (tab == std::string::npos) break;
          start = tab + 1;
        }
        if (count != columns) {
          return wrong(column_count_mismatch
                           ? "wrong column count"
                           : "a row of the expected result has " + std::to_string(count) +
                                 " values, not " + std::to_string(columns));
        }
      }
    } else {
      if (expected.size() % columns != 0 || expected.size() / columns != rendered.rows) {
        return wrong(column_count_mismatch ? "wrong column count" : "wrong row count");
      }
      expected_values = expected;
    }
    for (size_t i = 0; i < total; i++) {
      if (!ValuesEqual(rendered.canonical[i], expected_values[i], result->types[i % columns],
                       bindings)) {
        return wrong("wrong result (row " + std::to_string(i / columns + 1) + ", column " +
                     std::to_string(i % columns + 1) + ": " + rendered.display[i] + " <> " +
                     expected_values[i] + ")");
      }
    }
    if (column_count_mismatch) {
      wrong("wrong column count: the query has " + std::to_string(rendered.columns) +
            " columns, the record declares " + std::to_string(record.types.size()));
    }
  }

  // --- other directives ---

  void Require(const std::vector<std::string>& params) {
    const std::string what = Lower(params[0]);
    auto number = [&params]() -> int64_t {
      if (params.size() != 2) throw std::runtime_error("require " + params[0] + " needs a value");
      return std::stoll(params[1]);
    };
    static const char* const kAlwaysMet[] = {"notwindows",
                                             "notmingw",
                                             "notmusl",
                                             "64bit",
                                             "longdouble",
                                             "noforcestorage",
                                             "nothreadsan",
                                             "strinline",
                                             "skip_reload",
                                             "no_alternative_verify",
                                             "no_latest_storage",
                                             "no_vector_verification",
                                             "no_extension_autoloading",
                                             "ram",
                                             "disk_space"};
    if (std::find(std::begin(kAlwaysMet), std::end(kAlwaysMet), what) != std::end(kAlwaysMet)) {
      return;
    }
    bool met = false;
    if (what == "windows" || what == "mingw") {
      met = false;
    } else if (what == "vector_size") {
      met = number() <= kStandardVectorSize;
    } else if (what == "exact_vector_size") {
      met = number() == kStandardVectorSize;
    } else if (what == "block_size") {
      met = number() == kDefaultBlockSize;
    } else if (what == "allow_unsigned_extensions") {
      auto result = connection_->Query("SELECT current_setting('allow_unsigned_extensions')");
      met = !result->HasError() && result->RowCount() == 1 &&
            result->GetValue(0, 0).ToString() == "true";
    } else {
      met = LoadExtension(what);
    }
    if (!met) throw SkipFile{"require " + params[0]};
  }

  // Whether the extension is loaded or can be loaded from what is installed (no network).
  bool LoadExtension(const std::string& name) {
    auto status = connection_->Query(
        "SELECT loaded FROM duckdb_extensions() WHERE extension_name = " + SqlString(name));
    if (!status->HasError() && status->RowCount() == 1 && !status->GetValue(0, 0).IsNull() &&
        duckdb::BooleanValue::Get(status->GetValue(0, 0))) {
      return true;
    }
    auto load = connection_->Query("LOAD " + duckdb::KeywordHelper::WriteOptionallyQuoted(name));
    if (load->HasError()) return false;
    loaded_extensions_.push_back(name);
    return true;
  }

  void Set(const std::vector<std::string>& params) {
    const std::string& what = params[0];
    if (what == "ignore_error_messages" || what == "always_fail_error_messages") {
      auto& messages = what == "ignore_error_messages" ? ignore_errors_ : always_fail_;
      messages.clear();
      std::string joined;
      for (size_t i = 1; i < params.size(); i++) joined += (i > 1 ? " " : "") + params[i];
      std::istringstream in(joined);
      std::string message;
      while (std::getline(in, message, ',')) {
        message = Trim(message);
        if (!message.empty()) messages.push_back(message);
      }
    } else if (what == "seed" && params.size() == 2) {
      connection_->Query("SELECT setseed(" + params[1] + ")");
    } else {
      throw std::runtime_error("unrecognized set parameter: " + what);
    }
  }

  static void Sleep(const std::vector<std::string>& params) {
    const double amount = std::stod(params[0]);
    const std::string& unit = params[1];
    double seconds;
    if (unit == "second" || unit == "seconds" || unit == "sec") {
      seconds = amount;
    } else if (unit == "millisecond" || unit == "milliseconds" || unit == "milli") {
      seconds = amount / 1e3;
    } else if (unit == "microsecond" || unit == "microseconds" || unit == "micro") {
      seconds = amount / 1e6;
    } else if (unit == "nanosecond" || unit == "nanoseconds" || unit == "nano") {
      seconds = amount / 1e9;
    } else {
      throw std::runtime_error("unrecognized sleep unit '" + unit + "'");
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  }

  void Unzip(const std::vector<std::string>& params) {
    const std::string input = slt::SubstituteKeywords(params[0], substitution_);
    if (input.size() < 3 || input.substr(input.size() - 3) != ".gz") {
      throw std::runtime_error("unzip: " + input + " is not a .gz file");
    }
    const std::string name = std::filesystem::path(input.substr(0, input.size() - 3)).filename();
    std::string output = substitution_.test_dir + "/" + name;
    if (params.size() == 2 && params[1] != "NULL") {
      output = slt::SubstituteKeywords(params[1], substitution_);
    }
    gzFile in = gzopen(input.c_str(), "rb");
    if (in == nullptr) throw std::runtime_error("unzip: cannot open " + input);
    std::ofstream out(output, std::ios::binary | std::ios::trunc);
    char buffer[1 << 16];
    int read;
    while ((read = gzread(in, buffer, sizeof(buffer))) > 0) out.write(buffer, read);
    gzclose(in);
    if (read < 0 || !out)
      throw std::runtime_error("unzip: cannot extract " + input + " to " + output);
  }

  const SqllogictestOptions& options_;
  const std::string path_;
  duckdb::Connection& helper_;  // evaluates regexes and casts, apart from the test's session
  std::ostream& out_;

  slt::SubstitutionContext substitution_;
  std::string env_scratch_;
  std::unique_ptr<ducklake_adapter::Host> host_;
  std::unique_ptr<duckdb::Connection> connection_;
  std::map<std::string, std::unique_ptr<duckdb::Connection>> named_;
  std::string database_path_;
  std::vector<std::string> loaded_extensions_;
  std::map<std::string, std::string> labels_;
  std::vector<std::string> ignore_errors_;
  std::vector<std::string> always_fail_;
  int64_t hash_threshold_ = 0;
  std::atomic<int> failures_ = 0;
  std::atomic<bool> stopped_ = false;
  std::atomic<bool> in_concurrent_loop_ = false;
  std::recursive_mutex mutex_;  // output, labels and the helper connection, across loop threads
};

}  // namespace

int RunSqllogictest(const SqllogictestOptions& options) {
  duckdb::DuckDB helper_database(nullptr);
  duckdb::Connection helper(helper_database);
  int passed = 0, failed = 0, skipped = 0;
  for (const auto& file : options.files) {
    FileRun run(options, file, helper, std::cout);
    switch (run.Run()) {
      case Outcome::kPassed:
        passed++;
        if (options.verbose) std::cout << "PASS " << file << "\n";
        break;
      case Outcome::kFailed:
        failed++;
        break;
      case Outcome::kSkipped:
        skipped++;
        break;
    }
    std::cout.flush();
  }
  std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped" << std::endl;
  return failed == 0 ? 0 : 1;
}

}  // namespace moraine::cli
