// Parsing of DuckDB's sqllogictest format (the `.test` files of DuckDB and
// DuckLake) into records, plus the text substitutions the format defines.
// Pure: no DuckDB, no I/O beyond reading the file.
//
// A file is a sequence of records separated by blank or `#` comment lines. A
// record starts with a directive line (`statement ok`, `query II rowsort`,
// `loop i 0 10`, `require parquet`, ...), optionally preceded by `skipif` /
// `onlyif` lines. `mode skip`/`mode unskip`, `skipif`/`onlyif <system>` and
// `halt` are resolved here: what they exclude never reaches the records. Statement and query text
// runs until a blank line, a comment line or `----`; expected results run from `----` to the next
// blank line.
//
// Thread-safety: plain data, and functions of their arguments (NewUuid keeps a
// generator per thread): safe from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "util/uuid.h"

namespace moraine::cli::slt {

enum class RecordKind {
  kStatement,      // statement ok|error|maybe [connection]
  kQuery,          // query <types> [sort|connection] [label]
  kLoop,           // loop / foreach / concurrentloop / concurrentforeach ... endloop
  kRequire,        // require <what> [args]
  kRequireEnv,     // require-env NAME [VALUE]
  kTestEnv,        // test-env NAME DEFAULT
  kLoad,           // load [path] [readonly|readwrite]
  kRestart,        // restart [no_extension_load]
  kReconnect,      // reconnect
  kSleep,          // sleep N unit
  kResetLabel,     // reset label NAME
  kSet,            // set ignore_error_messages|always_fail_error_messages|seed ...
  kHashThreshold,  // hash-threshold N
  kMode,           // mode output_result|output_hash|no_output|debug (skip/unskip are parse-time)
  kUnzip,          // unzip IN.gz [OUT]
  kTags,           // tags a b c (no-op for us)
};

enum class Expectation { kOk, kError, kMaybe };
enum class SortMode { kNone, kRow, kValue };

// A runtime condition of `skipif` / `onlyif` on a loop variable, e.g. `skipif i=2`.
struct Condition {
  std::string variable;
  std::string op;  // one of = <> < <= > >=
  std::string value;
  bool skip_if = true;  // skipif (true) or onlyif (false)
};

struct Record {
  RecordKind kind = RecordKind::kStatement;
  int line = 0;                     // 1-based line of the directive
  std::vector<std::string> params;  // the directive's words after the first
  std::vector<Condition> conditions;

  // statement / query
  std::string sql;
  std::string connection;  // a named connection; empty: the default one
  Expectation expectation = Expectation::kOk;
  std::string expected_error;  // statement error: text after ---- (may be empty)
  // query
  std::string types;  // e.g. "ITR"
  SortMode sort = SortMode::kNone;
  std::string label;
  std::vector<std::string> expected;  // result lines after ----

  // loop
  std::string iterator;  // may be "a,b" for foreach over comma-separated tuples
  bool foreach = false;
  bool concurrent = false;
  int64_t start = 0, end = 0;       // loop: [start, end)
  std::vector<std::string> tokens;  // foreach values
  std::vector<Record> body;
};

struct ParsedFile {
  std::vector<Record> records;
  std::string error;  // non-empty: the file is malformed ("line N: message")
  int error_line = 0;
  int test_records = 0;     // statement/query records kept for execution
  int skipped_records = 0;  // statement/query records dropped by mode skip or skipif/onlyif
};

ParsedFile ParseTestText(const std::string& text);
// Reads and parses a file; a file that cannot be read gives an error.
ParsedFile ParseTestFile(const std::string& path);

// foreach shorthands (<integral>, <numeric>, <alltypes>, <compression>, ...),
// following DuckDB's runner. Appends to `out` and returns true when `word` is one.
bool ExpandForeachToken(const std::string& word, std::vector<std::string>& out);

// --- substitutions ---------------------------------------------------------

std::string ReplaceAll(std::string text, const std::string& from, const std::string& to);
// A random version-4 UUID in canonical text form.
using util::NewUuid;

struct SubstitutionContext {
  std::vector<std::pair<std::string, std::string>> variables;  // test-env / require-env, in order
  std::string test_dir;                                        // __TEST_DIR__, {TEST_DIR}
  std::string test_name;                                       // {TEST_NAME}
  std::string working_directory;                               // __WORKING_DIRECTORY__
  std::function<std::string()> uuid = NewUuid;                 // {UUID}, called per occurrence
};

// ${NAME} and {NAME} for each variable, then {TEST_DIR}, {UUID} (fresh per
// occurrence), {TEST_NAME}, {BASE_TEST_NAME}, __TEST_DIR__, __WORKING_DIRECTORY__.
std::string SubstituteKeywords(std::string text, const SubstitutionContext& context);

// One running loop: its iterator name and current value.
struct LoopBinding {
  std::string name;
  std::string value;
};
// ${name} and {name} for each binding, outermost first. A name "a,b" binds ${a} and ${b}
// to the comma-separated parts of the value.
std::string SubstituteLoopVariables(std::string text, const std::vector<LoopBinding>& bindings);

// Whether `conditions` let a record run under the given loop bindings. Throws
// std::runtime_error when a condition names no running loop.
bool ConditionsAllow(const std::vector<Condition>& conditions,
                     const std::vector<LoopBinding>& bindings);

// "N values hashing to <32 hex digits>"
bool IsHashResult(const std::string& line);

}  // namespace moraine::cli::slt
