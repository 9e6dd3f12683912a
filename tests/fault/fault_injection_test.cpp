// Injected IO errors, ENOSPC, short writes and failed fsyncs (store layer
// test hooks) under a DuckLake session: the commit that meets the fault fails
// with a typed error and lands nothing, the process lives on, the session
// commits again right after, and a reopened store equals the serial replay of
// the acknowledged statements.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "support/lake_state.h"
#include "support/run_process.h"

namespace moraine {
namespace {

struct FaultCase {
  std::string name;
  std::string fault;    // MORAINE_TEST_FAULT
  std::string message;  // what the failed statement's error must say
};
void PrintTo(const FaultCase& fault, std::ostream* out) { *out << fault.fault; }

const std::vector<std::string> kSetup = {"CREATE TABLE lake.t (i INTEGER, s VARCHAR)"};
// Commit k of this workload is the k-th log append (and sync) of the child.
const std::vector<std::string> kWorkload = {
    "INSERT INTO lake.t VALUES (1, 'a')",
    "INSERT INTO lake.t SELECT range, 'p' FROM range(10, 2010)",
    "ALTER TABLE lake.t ADD COLUMN j INTEGER DEFAULT 7",
    "UPDATE lake.t SET s = 'u' WHERE i = 1",
    "INSERT INTO lake.t (i, s) VALUES (2, 'b')",
};
constexpr size_t kFaulted = 2;  // the third commit (1-based :3) meets the fault

std::string Quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

class FaultInjection : public ::testing::TestWithParam<FaultCase> {};

TEST_P(FaultInjection, TheFaultedCommitFailsTypedAndNothingAcknowledgedIsLost) {
  const FaultCase& fault = GetParam();
  test::Lake lake;
  lake.Run(kSetup, kSetup.size());

  std::string command =
      "MORAINE_TEST_FAULT=" + fault.fault + " " FAULT_SESSION " " + Quoted(lake.Attach());
  for (const auto& statement : kWorkload) command += " " + Quoted(statement);
  const auto child = test::RunCommand(command + " 2>&1");
  ASSERT_EQ(child.exit_code, 0) << "the session process did not survive:\n" << child.output;

  std::vector<std::string> lines;
  std::istringstream out(child.output);
  for (std::string line; std::getline(out, line);) {
    if (line == "ok" || line.starts_with("error: ")) lines.push_back(line);
  }
  ASSERT_EQ(lines.size(), kWorkload.size() + 1) << child.output;
  std::vector<std::string> acknowledged = kSetup;
  for (size_t i = 0; i < kWorkload.size(); ++i) {
    const std::string& line = lines[i + 1];  // lines[0] is the ATTACH
    if (i == kFaulted) {
      EXPECT_TRUE(line.starts_with("error: ")) << "commit " << i << " met no fault";
      EXPECT_NE(line.find(fault.message), std::string::npos) << line;
      EXPECT_EQ(line.find("moraine: "), std::string::npos) << line;
      continue;
    }
    EXPECT_EQ(line, "ok") << "statement " << i << " after the fault: " << kWorkload[i];
    acknowledged.push_back(kWorkload[i]);
  }

  // The faulted commit is absent. Only after a failed fsync may it also be
  // there whole: its record reached the log, and the reopen replays it (the
  // outcome of a failed fsync is unknown to any database).
  test::Lake replay;
  replay.Run(acknowledged, acknowledged.size());
  const auto state = test::StateOf(lake);
  bool matched = state == test::StateOf(replay);
  if (!matched && fault.fault.find("@sync") != std::string::npos) {
    std::vector<std::string> with = kSetup;
    with.insert(with.end(), kWorkload.begin(), kWorkload.end());
    test::Lake replay_with;
    replay_with.Run(with, with.size());
    matched = state == test::StateOf(replay_with);
  }
  EXPECT_TRUE(matched) << test::Describe(state) << "equals no serial replay";
}

INSTANTIATE_TEST_SUITE_P(
    Faults, FaultInjection,
    ::testing::Values(FaultCase{"EioOnAppend", "eio@append:3", "injected EIO"},
                      FaultCase{"EnospcOnAppend", "enospc@append:3", "injected ENOSPC"},
                      FaultCase{"ShortWrite", "short@append:3", "injected short write"},
                      FaultCase{"FailedFsync", "eio@sync:3", "injected EIO"}),
    [](const auto& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace moraine
