// The power-cut matrix (powercut_matrix.tsv): as the crash matrix, but dying
// at the point is a power cut — every byte, file and rename of the store that
// was not yet synced is taken back before the SIGKILL (MORAINE_TEST_POWER_CUT,
// src/store/rocksdb/power_cut_file_system.h) — so the store reopened is what a
// power cut, a kernel crash or a VM stop would have left.
//
// MORAINE_POWERCUT_SOAK_ROUNDS=N adds a randomized soak: N rounds of a random
// workload, cut point and arrival (not in the default run).
#include <gtest/gtest.h>

#include <cstdlib>

#include "crash/crash_harness.h"

namespace moraine::test {
namespace {

class PowerCutMatrix : public ::testing::TestWithParam<CrashCase> {};

TEST_P(PowerCutMatrix, LosesNothingAcknowledged) { RunCrashCase(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, PowerCutMatrix,
                         ::testing::ValuesIn(LoadCrashMatrix(POWERCUT_MATRIX_FILE, true)),
                         [](const auto& param_info) {
                           return CrashCaseTestName(param_info.param);
                         });

TEST(PowerCutSoak, RandomWorkloadsAndCutPoints) {
  const char* rounds = std::getenv("MORAINE_POWERCUT_SOAK_ROUNDS");
  if (rounds == nullptr) GTEST_SKIP() << "set MORAINE_POWERCUT_SOAK_ROUNDS=N to run N rounds";
  RunCrashSoak("power-cut", std::atoi(rounds),
               {"commit.before_write", "commit.torn_log_write", "commit.before_sync",
                "commit.before_high_water", "commit.after_write", "log.append", "log.sync",
                "manifest.append", "manifest.sync", "flush.sst.append", "flush.sst.sync",
                "compaction.sst.append", "open.sst.sync", "mark.write", "mark.sync", "dir.sync",
                "current.rename"},
               /*power_cut=*/true);
}

}  // namespace
}  // namespace moraine::test
