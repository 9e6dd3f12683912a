// The named crash matrix (crash_matrix.tsv): DuckLake SQL in a child that
// dies with SIGKILL at a named kill point of the store layer, and what must
// hold on the store it leaves. Each row is one test case.
//
// MORAINE_CRASH_SOAK_ROUNDS=N adds a randomized soak: N rounds of a random
// workload and a random kill point and arrival (not in the default run).
#include <gtest/gtest.h>

#include <cstdlib>

#include "crash/crash_harness.h"

namespace moraine::test {
namespace {

class CrashMatrix : public ::testing::TestWithParam<CrashCase> {};

TEST_P(CrashMatrix, LeavesAStoreEqualToASerialReplay) { RunCrashCase(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, CrashMatrix,
                         ::testing::ValuesIn(LoadCrashMatrix(CRASH_MATRIX_FILE, false)),
                         [](const auto& param_info) {
                           return CrashCaseTestName(param_info.param);
                         });

TEST(CrashSoak, RandomWorkloadsAndKillPoints) {
  const char* rounds = std::getenv("MORAINE_CRASH_SOAK_ROUNDS");
  if (rounds == nullptr) GTEST_SKIP() << "set MORAINE_CRASH_SOAK_ROUNDS=N to run N rounds";
  RunCrashSoak(
      "crash", std::atoi(rounds),
      {"commit.before_write", "commit.torn_log_write", "commit.before_sync", "commit.after_write"},
      /*power_cut=*/false);
}

}  // namespace
}  // namespace moraine::test
