// The crash and power-cut tiers' one harness: a lake built through DuckLake
// SQL, a child process that runs a workload's statements and dies at an armed
// point of the store layer (MORAINE_TEST_CRASH_AT; with MORAINE_TEST_POWER_CUT
// it first takes back everything not yet durable), and what must hold on the
// store it leaves (see crash_matrix.tsv for the checks).
//
// Not thread-safe: one case at a time, from the test's thread (the children
// may be running several connections of their own).
#pragma once

#include <cstddef>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace moraine::test {

// What the child runs.
enum class CrashChild {
  kSql,         // `moraine sql`: the statements, acknowledged one by one
  kMigrate,     // `moraine migrate` of a store whose format record was removed
  kRepair,      // `moraine repair`
  kConcurrent,  // crash_concurrent_session: connections inserting into tables of their own
};

struct CrashWorkload {
  std::vector<std::string> setup{};       // run in the test process, no hooks
  std::vector<std::string> statements{};  // run in the child
  CrashChild child = CrashChild::kSql;
  // Each setup statement in a session of its own: one table file each when
  // the session closes, for cuts in the compaction they add up to.
  bool setup_sessions_each = false;
  // Not empty: a first child runs the statements and dies (SIGKILL, no cut)
  // here; the armed point is then reached by a second child's read-write
  // open of the store that crash left: cuts during recovery.
  std::string first_kill{};
  // kConcurrent: so many connections, each committing so many one-row INSERTs.
  int connections = 0, commits = 0;
};

const std::map<std::string, CrashWorkload>& CrashWorkloads();

struct CrashCase {
  std::string name{}, point{}, workload{};
  std::vector<std::string> checks{};
  bool power_cut = false;
  bool point_must_be_reached = true;  // false: a soak's random point may lie beyond the workload
  bool Checks(const std::string& check) const;
};

// How gtest names a case in its messages.
void PrintTo(const CrashCase& crash, std::ostream* out);

// The rows of a matrix file (crash_matrix.tsv's format).
std::vector<CrashCase> LoadCrashMatrix(const std::string& file, bool power_cut);

// A case's name as gtest allows it.
std::string CrashCaseTestName(const CrashCase& crash);

struct CrashOutcome {
  // Statements (for kConcurrent, commits) the children acknowledged.
  size_t acknowledged = 0;
  bool died = false;  // false: the child ran past the point (a soak's may)
};

// Runs one case with gtest expectations.
CrashOutcome RunCrashCase(const CrashCase& crash);

// A soak: `rounds` rounds, half of them the long mixed session, each with a
// random point of `points` and a random arrival; prints the figure the notes
// quote.
void RunCrashSoak(const char* tier, int rounds, const std::vector<std::string>& points,
                  bool power_cut);

}  // namespace moraine::test
