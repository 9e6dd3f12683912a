// Conformance: moraine against a stock DuckLake catalog, snapshot by snapshot.
// Every script under tests/differential/scripts/ (one test each) and a few
// seeded random scripts run against a moraine lake and a stock DuckLake lake
// side by side; after every statement all metadata tables and every user
// table at every snapshot must agree (see differential_harness.h).
//
// MORAINE_DIFF_SEEDS=N (and MORAINE_DIFF_SEED_START=S, default 1000) runs N
// more random seeds in RandomScripts.FromEnvironment; MORAINE_DIFF_STATEMENTS
// sets their length (default 40). A failing seed is shrunk (bounded by
// MORAINE_DIFF_SHRINK_SECONDS, default 120) and its minimal script written to
// a file whose path is printed; that file is a valid script for scripts/.
// MORAINE_DIFF_KNOWN_DIVERGENCES=1 lets random scripts include what is known
// to diverge (see random_script.h). MORAINE_DIFF_SWEEP=end compares past
// snapshots only after the last statement (bulk runs); MORAINE_DIFF_CONTROL=1
// puts a second stock catalog in moraine's place (DuckLake's own noise).
// MORAINE_DIFF_COVERAGE_OUT=<file> writes the coverage table (which scripts
// give each metadata table at least one row) as Markdown when the binary ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "differential/differential_harness.h"
#include "differential/random_script.h"

namespace moraine::differential {
namespace {

// script -> metadata table -> most rows seen after any statement.
std::map<std::string, std::map<std::string, int64_t>>& Coverage() {
  static std::map<std::string, std::map<std::string, int64_t>> coverage;
  return coverage;
}

std::string Describe(const std::string& script, size_t total, const Mismatch& mismatch) {
  std::ostringstream out;
  out << script << ": moraine and the stock catalog disagree after statement #"
      << mismatch.statement_index + 1 << " of " << total << ":\n  " << mismatch.statement << "\n"
      << mismatch.report;
  return out.str();
}

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::stoll(value) : fallback;
}

// Removes statements while the script still disagrees somewhere; bounded by
// time. Returns the smallest failing script found.
std::vector<std::string> Shrink(std::vector<std::string> statements, const Mismatch& first) {
  statements.resize(first.statement_index + 1);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::seconds(EnvInt("MORAINE_DIFF_SHRINK_SECONDS", 120));
  size_t chunk = std::max<size_t>(1, statements.size() / 2);
  while (std::chrono::steady_clock::now() < deadline) {
    bool removed = false;
    for (size_t at = 0; at < statements.size() && std::chrono::steady_clock::now() < deadline;) {
      std::vector<std::string> candidate = statements;
      candidate.erase(
          candidate.begin() + static_cast<std::ptrdiff_t>(at),
          candidate.begin() + static_cast<std::ptrdiff_t>(std::min(at + chunk, candidate.size())));
      const RunResult result = RunDifferential(candidate, OptionsFromEnvironment());
      // The same disagreement (its first line), not any other one.
      const auto headline = [](const std::string& report) {
        return report.substr(0, report.find('\n'));
      };
      if (result.mismatch && headline(result.mismatch->report) == headline(first.report)) {
        candidate.resize(result.mismatch->statement_index + 1);
        statements = std::move(candidate);
        removed = true;
      } else {
        at += chunk;
      }
    }
    if (!removed) {
      if (chunk == 1) break;
      chunk /= 2;
    }
  }
  return statements;
}

// Runs one random seed; on a mismatch shrinks it, writes the reproducer and
// returns the failure's description (empty: the lakes agreed).
std::string RunSeed(uint64_t seed, size_t length,
                    const Options& options = OptionsFromEnvironment()) {
  const auto statements =
      GenerateRandomScript(seed, length, EnvInt("MORAINE_DIFF_KNOWN_DIVERGENCES", 0) != 1);
  const RunResult result = RunDifferential(statements, options);
  auto& coverage = Coverage()["random seeds"];
  for (const auto& [table, rows] : result.max_rows) {
    coverage[table] = std::max(coverage[table], rows);
  }
  if (!result.mismatch) return "";
  const std::string name = "seed " + std::to_string(seed);
  std::string description = Describe(name, statements.size(), *result.mismatch);
  const auto minimal = Shrink(statements, *result.mismatch);
  const RunResult again = RunDifferential(minimal, options);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("moraine-diff-seed-" + std::to_string(seed) + ".sql"))
                               .string();
  std::ofstream(path) << "-- moraine differential: minimal reproducer of random seed " << seed
                      << " (" << length << " statements)\n"
                      << RenderScript(minimal);
  description += "\nminimal reproducer (" + std::to_string(minimal.size()) +
                 " statements): " + path + "\n" + RenderScript(minimal);
  if (again.mismatch) description += Describe("reproducer", minimal.size(), *again.mismatch);
  return description;
}

std::vector<std::string> ScriptFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(MORAINE_DIFF_SCRIPTS_DIR)) {
    if (entry.path().extension() == ".sql") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Each script and seed runs twice: with moraine's native DuckLake metadata
// manager answering what it can, and with DuckLake's SQL answering all.
// Both must agree with the stock catalog, so they agree with each other.
enum class Manager { kNative, kSql };

Options WithManager(Manager manager) {
  Options options = OptionsFromEnvironment();
  options.native_manager = manager == Manager::kNative;
  return options;
}

std::string ManagerName(Manager manager) { return manager == Manager::kNative ? "native" : "sql"; }

class Scripts : public ::testing::TestWithParam<std::tuple<std::string, Manager>> {};

TEST_P(Scripts, AgreeSnapshotBySnapshot) {
  const std::string file = std::get<0>(GetParam());
  const std::string name = std::filesystem::path(file).stem().string();
  const auto statements = ParseScript(ReadFile(file));
  ASSERT_FALSE(statements.empty()) << file;
  const auto start = std::chrono::steady_clock::now();
  const RunResult result = RunDifferential(statements, WithManager(std::get<1>(GetParam())));
  const auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Coverage()[name] = result.max_rows;
  std::cout << "[differential] " << name << ": " << result.statements_run << "/"
            << statements.size() << " statements (" << result.statements_refused
            << " refused by both), " << seconds << " s (statements " << result.seconds_statements
            << ", catalogs " << result.seconds_catalog << ", snapshots " << result.seconds_snapshots
            << ")\n";
  for (const auto& refusal : result.refusals) std::cout << "  refused by both: " << refusal << "\n";
  if (result.mismatch) {
    std::string description = Describe(file, statements.size(), *result.mismatch);
    // MORAINE_DIFF_SHRINK_SCRIPTS=1: shrink a failing script file as well.
    if (EnvInt("MORAINE_DIFF_SHRINK_SCRIPTS", 0) == 1) {
      const auto minimal = Shrink(statements, *result.mismatch);
      const std::string path =
          (std::filesystem::temp_directory_path() / ("moraine-diff-" + name + ".sql")).string();
      std::ofstream(path) << RenderScript(minimal);
      description += "\nminimal reproducer: " + path + "\n" + RenderScript(minimal);
    }
    FAIL() << description;
  }
  // A script that mostly fails tests nothing: every refusal must be meant.
  EXPECT_LE(result.statements_refused * 5, statements.size())
      << "most statements of " << name << " were refused by both lakes";
}

INSTANTIATE_TEST_SUITE_P(
    Differential, Scripts,
    ::testing::Combine(::testing::ValuesIn(ScriptFiles()),
                       ::testing::Values(Manager::kNative, Manager::kSql)),
    [](const ::testing::TestParamInfo<std::tuple<std::string, Manager>>& param) {
      std::string name = std::filesystem::path(std::get<0>(param.param)).stem().string();
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name + "_" + ManagerName(std::get<1>(param.param));
    });

class RandomScripts : public ::testing::TestWithParam<std::tuple<uint64_t, Manager>> {};

// The fixed seeds CI runs: five scripts of 25 statements (every past snapshot
// is read after every statement, so the cost grows with the square of the
// length; 5 x 25 is about 40 s of CPU).
TEST_P(RandomScripts, Agree) {
  const std::string failure =
      RunSeed(std::get<0>(GetParam()), 25, WithManager(std::get<1>(GetParam())));
  EXPECT_TRUE(failure.empty()) << failure;
}

INSTANTIATE_TEST_SUITE_P(Differential, RandomScripts,
                         ::testing::Combine(::testing::Values(1, 2, 3, 4, 5),
                                            ::testing::Values(Manager::kNative, Manager::kSql)),
                         [](const ::testing::TestParamInfo<std::tuple<uint64_t, Manager>>& param) {
                           return std::to_string(std::get<0>(param.param)) + "_" +
                                  ManagerName(std::get<1>(param.param));
                         });

TEST(RandomScriptsFromEnvironment, Agree) {
  const int64_t seeds = EnvInt("MORAINE_DIFF_SEEDS", 0);
  if (seeds <= 0) GTEST_SKIP() << "set MORAINE_DIFF_SEEDS=N to run N random seeds";
  const int64_t first = EnvInt("MORAINE_DIFF_SEED_START", 1000);
  const auto length = static_cast<size_t>(EnvInt("MORAINE_DIFF_STATEMENTS", 40));
  int64_t failed = 0;
  for (int64_t seed = first; seed < first + seeds; seed++) {
    const std::string failure = RunSeed(static_cast<uint64_t>(seed), length);
    if (!failure.empty()) {
      failed++;
      ADD_FAILURE() << failure;
    }
    if ((seed - first + 1) % 10 == 0 || seed + 1 == first + seeds) {
      std::cout << "[differential] seeds " << first << ".." << seed << ": " << failed
                << " failed\n";
    }
  }
}

TEST(RandomScriptsGenerator, IsDeterministicAndValidLooking) {
  EXPECT_EQ(GenerateRandomScript(7, 40), GenerateRandomScript(7, 40));
  EXPECT_NE(GenerateRandomScript(7, 40), GenerateRandomScript(8, 40));
  const auto script = GenerateRandomScript(7, 40);
  EXPECT_EQ(script.size(), 40u);
  EXPECT_EQ(ParseScript(RenderScript(script)), script);
}

TEST(ScriptParser, SplitsAtLineEndSemicolonsAndSkipsComments) {
  EXPECT_EQ(ParseScript("-- a comment\nCREATE TABLE LAKE.t (a INTEGER);\n\nINSERT INTO LAKE.t\n"
                        "  VALUES (1); \n-- done\n"),
            (std::vector<std::string>{"CREATE TABLE LAKE.t (a INTEGER)",
                                      "INSERT INTO LAKE.t\nVALUES (1)"}));
  EXPECT_EQ(Substitute("SELECT * FROM __ducklake_metadata_LAKE.x, LAKE.t, LAKEX, 'SCRATCH/f'",
                       "lake", "/d"),
            "SELECT * FROM __ducklake_metadata_lake.x, lake.t, LAKEX, '/d/f'");
}

// Prints which scripts reach each metadata table, and writes it as Markdown
// to MORAINE_DIFF_COVERAGE_OUT when set.
class CoverageReport : public ::testing::Environment {
 public:
  void TearDown() override {
    const auto& coverage = Coverage();
    if (coverage.empty()) return;
    std::vector<std::string> tables = FixedCatalogTables();
    tables.push_back(CoverageName("ducklake_inlined_data_1_1"));
    tables.push_back(CoverageName("ducklake_inlined_delete_1"));
    std::ostringstream md;
    md << "| metadata table | scripts giving it at least one row (most rows seen) |\n"
       << "|---|---|\n";
    std::vector<std::string> unreached;
    for (const auto& table : tables) {
      std::string reached;
      for (const auto& [script, rows] : coverage) {
        const auto found = rows.find(table);
        if (found == rows.end() || found->second == 0) continue;
        if (!reached.empty()) reached += ", ";
        reached += script + " (" + std::to_string(found->second) + ")";
      }
      if (reached.empty()) {
        unreached.push_back(table);
        reached = "**none**";
      }
      md << "| " << table << " | " << reached << " |\n";
    }
    md << "\nReached by no script: " << (unreached.empty() ? "none" : "") << "\n";
    for (const auto& table : unreached) md << "- " << table << "\n";
    std::cout << "\n[differential] coverage\n" << md.str();
    if (const char* out = std::getenv("MORAINE_DIFF_COVERAGE_OUT"); out && *out) {
      std::ofstream(out) << md.str();
    }
  }
};

[[maybe_unused]] const auto* const kCoverage =
    ::testing::AddGlobalTestEnvironment(new CoverageReport);

}  // namespace
}  // namespace moraine::differential
