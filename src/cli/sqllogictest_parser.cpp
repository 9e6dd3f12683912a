#include "cli/sqllogictest_parser.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "util/strings.h"

namespace moraine::cli::slt {
namespace {

using util::Lower;
using util::Split;
using util::Trim;

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool EmptyOrComment(const std::string& line) { return line.empty() || line[0] == '#'; }

std::vector<std::string> Tokenize(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  for (char c : line) {
    if (IsSpace(c)) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word.push_back(c);
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

struct ParseError : std::runtime_error {
  ParseError(int line_number, const std::string& message)
      : std::runtime_error(message), line(line_number) {}
  int line;
};

// Directives that stand alone on their line and must be followed by a blank or comment line.
bool IsSingleLine(const std::string& directive) {
  static const char* const kSingle[] = {"hash-threshold",
                                        "halt",
                                        "mode",
                                        "set",
                                        "reset",
                                        "loop",
                                        "foreach",
                                        "endloop",
                                        "require",
                                        "load",
                                        "restart",
                                        "reconnect",
                                        "sleep",
                                        "unzip",
                                        "tags",
                                        "test-env",
                                        "require-env",
                                        "concurrentloop",
                                        "concurrentforeach"};
  return std::find(std::begin(kSingle), std::end(kSingle), directive) != std::end(kSingle);
}

// `text` holds a loop condition (`i=2`, `i>3&&j<>x`) rather than a system name.
bool TryParseConditions(const std::string& text, bool skip_if, int line,
                        std::vector<Condition>& conditions) {
  if (text.find_first_of("=<>") == std::string::npos) return false;
  static const char* const kOperators[] = {"<>", ">=", ">", "<=", "<", "="};
  for (const auto& part : Split(text, "&&")) {
    bool parsed = false;
    for (const char* op : kOperators) {
      if (part.find(op) == std::string::npos) continue;
      auto sides = Split(part, op);
      if (sides.size() != 2) break;
      conditions.push_back(Condition{Trim(sides[0]), op, Trim(sides[1]), skip_if});
      parsed = true;
      break;
    }
    if (!parsed) {
      throw ParseError(line,
                       "skipif/onlyif conditions look like x=y or x>y, joined by &&: " + text);
    }
  }
  return true;
}

class Parser {
 public:
  explicit Parser(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) lines_.push_back(ReplaceAll(line, "\r", ""));
  }

  ParsedFile Parse() {
    ParsedFile file;
    try {
      Run(file);
    } catch (const ParseError& error) {
      file.records.clear();
      file.error_line = error.line;
      file.error = "line " + std::to_string(error.line) + ": " + error.what();
    }
    return file;
  }

 private:
  void Run(ParsedFile& file) {
    std::vector<Record> open_loops;
    int skip_level = 0;
    while (true) {
      while (at_ < lines_.size() && EmptyOrComment(lines_[at_])) at_++;
      if (at_ >= lines_.size()) break;

      // skipif / onlyif lines in front of a record
      bool skip = false;
      std::vector<Condition> conditions;
      auto words = Tokenize(lines_[at_]);
      while (words[0] == "skipif" || words[0] == "onlyif") {
        const bool skip_if = words[0] == "skipif";
        if (words.size() < 2) Fail("skipif/onlyif needs a parameter (e.g. skipif duckdb)");
        const std::string system = Lower(words[1]);
        if (!TryParseConditions(words[1], skip_if, Line(), conditions)) {
          // we are DuckDB: skip on `skipif duckdb` and on `onlyif <another system>`
          if ((system == "duckdb") == skip_if) skip = true;
        }
        at_++;
        if (at_ >= lines_.size() || EmptyOrComment(lines_[at_])) {
          Fail("skipif/onlyif must be followed by a record");
        }
        words = Tokenize(lines_[at_]);
      }

      const std::string directive = words[0];
      const int line = Line();
      if (IsSingleLine(directive) && at_ + 1 < lines_.size() && !EmptyOrComment(lines_[at_ + 1])) {
        Fail("all test records need to be separated by an empty line");
      }
      if (directive == "halt" && !skip && skip_level == 0) break;
      if (directive == "mode" && words.size() == 2 && !skip &&
          (words[1] == "skip" || words[1] == "unskip")) {
        if (words[1] == "skip") {
          skip_level++;
        } else if (skip_level > 0) {
          skip_level--;
        }
        at_++;
        continue;
      }

      Record record = ParseRecord(words);
      record.line = line;
      record.conditions = std::move(conditions);
      const bool is_test =
          record.kind == RecordKind::kStatement || record.kind == RecordKind::kQuery;
      if (skip || skip_level > 0) {
        if (is_test) file.skipped_records++;
        continue;  // loop/endloop in a skipped region are dropped too, as DuckDB does
      }
      if (is_test) file.test_records++;
      if (directive == "endloop") {
        if (open_loops.empty()) throw ParseError(line, "endloop without a loop");
        Record loop = std::move(open_loops.back());
        open_loops.pop_back();
        Add(open_loops, file, std::move(loop));
      } else if (record.kind == RecordKind::kLoop) {
        open_loops.push_back(std::move(record));
      } else {
        Add(open_loops, file, std::move(record));
      }
    }
    if (!open_loops.empty()) throw ParseError(open_loops.back().line, "loop without endloop");
  }

  static void Add(std::vector<Record>& open_loops, ParsedFile& file, Record record) {
    if (open_loops.empty()) {
      file.records.push_back(std::move(record));
    } else {
      open_loops.back().body.push_back(std::move(record));
    }
  }

  int Line() const { return static_cast<int>(at_) + 1; }

  [[noreturn]] void Fail(const std::string& message) const { throw ParseError(Line(), message); }

  // Statement text: up to a blank line, a comment line or `----`.
  std::string ExtractSql() {
    std::string sql;
    while (at_ < lines_.size() && !EmptyOrComment(lines_[at_]) && lines_[at_] != "----") {
      if (!sql.empty()) sql += "\n";
      sql += lines_[at_++];
    }
    return sql;
  }

  // Lines after `----` up to the next blank line (comment lines included).
  std::vector<std::string> ExtractExpected() {
    std::vector<std::string> expected;
    if (at_ < lines_.size() && lines_[at_] == "----") at_++;
    while (at_ < lines_.size() && !lines_[at_].empty()) expected.push_back(lines_[at_++]);
    return expected;
  }

  // Parses the record at the current line (its directive is `words`) and moves past it.
  Record ParseRecord(const std::vector<std::string>& words) {
    Record record;
    const std::string& directive = words[0];
    record.params.assign(words.begin() + 1, words.end());
    const auto& params = record.params;
    if (directive == "statement") {
      record.kind = RecordKind::kStatement;
      if (params.empty()) Fail("statement needs ok, error or maybe");
      if (params[0] == "ok") {
        record.expectation = Expectation::kOk;
      } else if (params[0] == "error") {
        record.expectation = Expectation::kError;
      } else if (params[0] == "maybe" || params[0] == "debug" || params[0] == "debug_skip") {
        record.expectation = Expectation::kMaybe;
      } else {
        Fail("statement needs ok, error or maybe, not '" + params[0] + "'");
      }
      if (params.size() >= 2) record.connection = params[1];
      at_++;
      record.sql = ExtractSql();
      if (record.sql.empty()) Fail("statement without SQL");
      if (at_ < lines_.size() && lines_[at_] == "----") {
        if (record.expectation == Expectation::kOk) {
          Fail("only statement error can have an expected error message, not statement ok");
        }
        std::string message;
        for (const auto& text : ExtractExpected()) message += (message.empty() ? "" : "\n") + text;
        record.expected_error = message;
      }
      return record;
    }
    if (directive == "query") {
      record.kind = RecordKind::kQuery;
      if (params.empty()) Fail("query needs its column types (e.g. query II)");
      record.types = params[0];
      for (char c : record.types) {
        if (c != 'T' && c != 'I' && c != 'R') {
          Fail(std::string("unknown column type '") + c + "' in query, expected T, I or R");
        }
      }
      if (params.size() >= 2) {
        const std::string& mode = params[1];
        if (mode == "nosort") {
          record.sort = SortMode::kNone;
        } else if (mode == "rowsort" || mode == "sort") {
          record.sort = SortMode::kRow;
        } else if (mode == "valuesort") {
          record.sort = SortMode::kValue;
        } else {
          record.connection = mode;  // DuckDB: an unknown sort mode names a connection
        }
      }
      if (params.size() >= 3) record.label = params[2];
      at_++;
      record.sql = ExtractSql();
      if (record.sql.empty()) Fail("query without SQL");
      record.expected = ExtractExpected();
      return record;
    }
    // Everything else is a single line.
    const int line = Line();
    at_++;
    auto fail = [line](const std::string& message) { throw ParseError(line, message); };
    if (directive == "loop" || directive == "concurrentloop") {
      record.kind = RecordKind::kLoop;
      record.concurrent = directive == "concurrentloop";
      if (params.size() != 3) fail("expected loop NAME START END (e.g. loop i 1 300)");
      record.iterator = params[0];
      try {
        record.start = std::stoll(params[1]);
        record.end = std::stoll(params[2]);
      } catch (const std::exception&) {
        fail("loop start and end must be numbers");
      }
    } else if (directive == "foreach" || directive == "concurrentforeach") {
      record.kind = RecordKind::kLoop;
      record.foreach = true;
      record.concurrent = directive == "concurrentforeach";
      if (params.size() < 2) fail("expected foreach NAME VALUE... (e.g. foreach t int bigint)");
      record.iterator = params[0];
      for (size_t i = 1; i < params.size(); i++) {
        if (!ExpandForeachToken(params[i], record.tokens)) record.tokens.push_back(params[i]);
      }
    } else if (directive == "endloop") {
      record.kind = RecordKind::kLoop;  // resolved by the caller
    } else if (directive == "require") {
      record.kind = RecordKind::kRequire;
      if (params.empty()) fail("require needs a parameter");
    } else if (directive == "require-env") {
      record.kind = RecordKind::kRequireEnv;
      if (params.size() != 1 && params.size() != 2) fail("expected require-env NAME [VALUE]");
    } else if (directive == "test-env") {
      record.kind = RecordKind::kTestEnv;
      if (params.size() != 2) fail("expected test-env NAME DEFAULT");
    } else if (directive == "load") {
      record.kind = RecordKind::kLoad;
      if (params.size() > 1 && Lower(params[1]) != "readonly" && Lower(params[1]) != "readwrite") {
        fail("load takes readonly or readwrite after the path, not '" + params[1] + "'");
      }
    } else if (directive == "restart") {
      record.kind = RecordKind::kRestart;
    } else if (directive == "reconnect") {
      record.kind = RecordKind::kReconnect;
    } else if (directive == "sleep") {
      record.kind = RecordKind::kSleep;
      if (params.size() != 2) fail("expected sleep N UNIT (e.g. sleep 1 second)");
    } else if (directive == "reset") {
      record.kind = RecordKind::kResetLabel;
      if (params.size() != 2 || Lower(params[0]) != "label") fail("expected reset label NAME");
    } else if (directive == "set") {
      record.kind = RecordKind::kSet;
      if (params.empty()) fail("set needs a parameter");
    } else if (directive == "hash-threshold") {
      record.kind = RecordKind::kHashThreshold;
      if (params.size() != 1) fail("expected hash-threshold N");
    } else if (directive == "mode") {
      record.kind = RecordKind::kMode;
      if (params.size() != 1) fail("mode takes one parameter");
    } else if (directive == "unzip") {
      record.kind = RecordKind::kUnzip;
      if (params.size() != 1 && params.size() != 2) fail("expected unzip IN.gz [OUT]");
    } else if (directive == "tags") {
      record.kind = RecordKind::kTags;
    } else {
      fail("unknown directive '" + directive + "'");
    }
    return record;
  }

  std::vector<std::string> lines_;
  size_t at_ = 0;
};

}  // namespace

ParsedFile ParseTestText(const std::string& text) { return Parser(text).Parse(); }

ParsedFile ParseTestFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ParsedFile file;
    file.error = "cannot read " + path;
    return file;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseTestText(buffer.str());
}

bool ExpandForeachToken(const std::string& word, std::vector<std::string>& out) {
  if (word.empty()) return true;
  const std::string name = Lower(Trim(word));
  if (name[0] == '!') {  // !value removes a value expanded earlier
    auto found = std::find(out.begin(), out.end(), word.substr(1));
    if (found == out.end()) return false;
    out.erase(found);
    return true;
  }
  auto add = [&out](std::initializer_list<const char*> values) {
    for (const char* value : values) out.emplace_back(value);
  };
  const bool all = name == "<alltypes>";
  const bool numeric = all || name == "<numeric>";
  const bool integral = numeric || name == "<integral>";
  bool expanded = false;
  if (integral || name == "<signed>") {
    add({"tinyint", "smallint", "integer", "bigint", "hugeint"});
    expanded = true;
  }
  if (integral || name == "<unsigned>") {
    add({"utinyint", "usmallint", "uinteger", "ubigint", "uhugeint"});
    expanded = true;
  }
  if (numeric) {
    add({"float", "double"});
    expanded = true;
  }
  if (all) add({"bool", "interval", "varchar"});
  if (name == "<compression>") {
    add({"none", "uncompressed", "rle", "bitpacking", "dictionary", "fsst", "dict_fsst", "alp",
         "alprd"});
    expanded = true;
  }
  return expanded;
}

std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  size_t at = 0;
  while ((at = text.find(from, at)) != std::string::npos) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

std::string SubstituteKeywords(std::string text, const SubstitutionContext& context) {
  for (const auto& [name, value] : context.variables) {
    text = ReplaceAll(std::move(text), "${" + name + "}", value);
    text = ReplaceAll(std::move(text), "{" + name + "}", value);
  }
  text = ReplaceAll(std::move(text), "{TEST_DIR}", context.test_dir);
  static const std::string kUuid = "{UUID}";
  for (size_t at = 0; (at = text.find(kUuid, at)) != std::string::npos;) {
    const std::string uuid = context.uuid ? context.uuid() : NewUuid();
    text.replace(at, kUuid.size(), uuid);
    at += uuid.size();
  }
  text = ReplaceAll(std::move(text), "{TEST_NAME}", context.test_name);
  text = ReplaceAll(std::move(text), "{BASE_TEST_NAME}", ReplaceAll(context.test_name, "/", "_"));
  text = ReplaceAll(std::move(text), "__TEST_DIR__", context.test_dir);
  text = ReplaceAll(std::move(text), "__WORKING_DIRECTORY__", context.working_directory);
  return text;
}

std::string SubstituteLoopVariables(std::string text, const std::vector<LoopBinding>& bindings) {
  for (const auto& binding : bindings) {
    if (binding.name.find(',') == std::string::npos) {
      text = ReplaceAll(std::move(text), "${" + binding.name + "}", binding.value);
      text = ReplaceAll(std::move(text), "{" + binding.name + "}", binding.value);
      continue;
    }
    const auto names = Split(binding.name, ",");
    const auto values = Split(binding.value, ",");
    if (names.size() != values.size()) {
      throw std::runtime_error("foreach: the iterator " + binding.name + " and the value " +
                               binding.value + " have different numbers of commas");
    }
    for (size_t i = 0; i < names.size(); i++) {
      text = ReplaceAll(std::move(text), "${" + names[i] + "}", values[i]);
      text = ReplaceAll(std::move(text), "{" + names[i] + "}", values[i]);
    }
  }
  return text;
}

bool ConditionsAllow(const std::vector<Condition>& conditions,
                     const std::vector<LoopBinding>& bindings) {
  for (const auto& condition : conditions) {
    const LoopBinding* binding = nullptr;
    for (const auto& candidate : bindings) {
      if (candidate.name == condition.variable) binding = &candidate;
    }
    if (binding == nullptr) {
      throw std::runtime_error("skipif/onlyif condition on '" + condition.variable +
                               "', which is not a running loop's iterator");
    }
    bool holds = false;
    if (condition.op == "=") {
      holds = binding->value == condition.value;
    } else if (condition.op == "<>") {
      holds = binding->value != condition.value;
    } else {
      const long long left = std::stoll(binding->value), right = std::stoll(condition.value);
      if (condition.op == "<") holds = left < right;
      if (condition.op == "<=") holds = left <= right;
      if (condition.op == ">") holds = left > right;
      if (condition.op == ">=") holds = left >= right;
    }
    if (holds == condition.skip_if) return false;
  }
  return true;
}

bool IsHashResult(const std::string& line) {
  static const std::string kMiddle = " values hashing to ";
  size_t digits = 0;
  while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits]))) digits++;
  if (digits == 0 || line.size() != digits + kMiddle.size() + 32) return false;
  if (line.compare(digits, kMiddle.size(), kMiddle) != 0) return false;
  for (size_t i = digits + kMiddle.size(); i < line.size(); i++) {
    if (!std::isdigit(static_cast<unsigned char>(line[i])) && !(line[i] >= 'a' && line[i] <= 'z')) {
      return false;
    }
  }
  return true;
}

}  // namespace moraine::cli::slt
