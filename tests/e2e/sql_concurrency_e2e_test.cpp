// Concurrency through DuckLake SQL: several connections of one process
// commit mixed work to one lake while a READ_ONLY process reads beside the
// writer; every commit lands (DuckLake retries the lost races), readers only
// ever see whole, growing states, and the final lake equals a serial replay.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "support/ducklake_session.h"
#include "support/lake_state.h"
#include "support/run_process.h"

namespace moraine {
namespace {

const std::string kMoraine = MORAINE_EXECUTABLE;
constexpr int kConnections = 4;
constexpr int kCommitsEach = 12;

std::string Table(int connection) { return "lake.t" + std::to_string(connection); }

// The k-th statement of one connection: inserts, with an update and a delete
// among them, all on the connection's own table.
std::string Statement(int connection, int k) {
  const std::string table = Table(connection);
  if (k % 6 == 4) return "UPDATE " + table + " SET v = v + 100 WHERE i % 2 = 0";
  if (k % 6 == 5) return "DELETE FROM " + table + " WHERE i = " + std::to_string(k - 5);
  return "INSERT INTO " + table + " VALUES (" + std::to_string(k) + ", " + std::to_string(k) + ")";
}

std::vector<std::string> CreateTables() {
  std::vector<std::string> setup;
  for (int c = 0; c < kConnections; ++c)
    setup.push_back("CREATE TABLE " + Table(c) + " (i INTEGER, v INTEGER)");
  return setup;
}

TEST(SqlConcurrency, ConnectionsAndAReadOnlyProcessEqualASerialReplay) {
  test::Lake lake;
  lake.Run(CreateTables(), CreateTables().size());

  test::DuckLakeSession session;
  session.Run(lake.Attach());
  // Lost races back off (100 ms x 1.5^k in DuckLake); allow enough retries
  // that none of these commits, which touch disjoint tables, gives up.
  session.Run("SET ducklake_max_retry_count = 100");
  session.Run("SET ducklake_retry_wait_ms = 5");
  session.Run("SET ducklake_retry_backoff = 1.2");

  std::atomic<bool> writing{true};
  std::vector<std::string> reads;
  std::thread reader([&] {
    // Another process, READ_ONLY beside the live writer.
    std::string sql = lake.Attach(", READ_ONLY") + "; SELECT count(*) AS snapshots FROM " +
                      "__ducklake_metadata_lake.ducklake_snapshot";
    for (int c = 0; c < kConnections; ++c) sql += "; SELECT count(*) FROM " + Table(c);
    while (writing.load()) {
      reads.push_back(test::RunCommand(kMoraine + " sql --csv -c \"" + sql + "\" 2>&1").output);
    }
  });

  std::vector<std::thread> writers;
  std::vector<std::string> failures(kConnections);
  for (int c = 0; c < kConnections; ++c) {
    writers.emplace_back([&, c] {
      auto connection = session.host().Connect();
      connection->Query("SET threads = 1");
      for (int k = 0; k < kCommitsEach; ++k) {
        auto result = connection->Query(Statement(c, k));
        if (result->HasError()) failures[c] += Statement(c, k) + ": " + result->GetError() + "\n";
      }
    });
  }
  for (auto& writer : writers) writer.join();
  writing = false;
  reader.join();
  for (const auto& failure : failures) EXPECT_TRUE(failure.empty()) << failure;

  // Every read saw a whole state: it succeeded, and snapshots only grew.
  ASSERT_FALSE(reads.empty());
  long last = 0;
  for (const auto& read : reads) {
    const auto header = read.find("snapshots\n");
    ASSERT_NE(header, std::string::npos) << read;
    const long snapshots = std::stol(read.substr(header + 10));
    EXPECT_GE(snapshots, last) << read;
    last = snapshots;
  }

  std::vector<std::string> serial = CreateTables();
  for (int c = 0; c < kConnections; ++c) {
    for (int k = 0; k < kCommitsEach; ++k) serial.push_back(Statement(c, k));
  }
  test::Lake replay;
  replay.Run(serial, serial.size());
  session.Run("DETACH lake");
  EXPECT_EQ(test::StateOf(lake), test::StateOf(replay));
}

}  // namespace
}  // namespace moraine
