// Several DuckLake writer processes on one lake on etcd: each process its own
// DuckDB and its own ATTACH of the same prefix, committing one-row INSERTs
// through DuckLake SQL with DuckLake's retry backoff (see Writer()). Afterwards
// every acknowledged commit is in the lake exactly once, no failed one is,
// snapshot ids are dense, and the lake equals a serial replay of the
// acknowledged commits on RocksDB. Also: the leader killed -9 mid-load, and
// a reader in another process seeing each new commit on its next transaction,
// and writers and members on virtual hosts of their own (virtual_hosts.h).
//
// MORAINE_ETCD_WRITERS_COMMITS=N changes the commits per writer (default 200).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "distributed/etcd_store_fixture.h"
#include "support/attached_lake_state.h"
#include "support/ducklake_session.h"
#include "support/run_process.h"
#include "support/temp_dir.h"
#include "support/virtual_hosts.h"
#include "support/writer_processes.h"

namespace moraine::test {
namespace {

using Clock = std::chrono::steady_clock;

long CommitsPerWriter() {
  const char* value = std::getenv("MORAINE_ETCD_WRITERS_COMMITS");
  return value && *value ? std::atol(value) : 200;
}

class EtcdDuckLakeWritersTest : public EtcdStoreFixture {
 public:
  std::string Attach() const {
    return "ATTACH 'ducklake:moraine:" + (lake_.empty() ? Location() : lake_) +
           "' AS lake (DATA_PATH '" + files_.path("files") + "/')";
  }

  // Creates `tables` (w INTEGER, k INTEGER) in one session; the number of
  // setup snapshots (the lake's first one included) after it.
  int64_t CreateTables(const std::vector<std::string>& tables) {
    DuckLakeSession session;
    session.Run(Attach());
    for (const auto& table : tables) session.Run(CreateStatement(table));
    return session.Head() + 1;
  }
  static std::string CreateStatement(const std::string& table) {
    return "CREATE TABLE " + table + " (w INTEGER, k INTEGER)";
  }

  // DuckLake's retry settings stay at their defaults (100 ms x 1.5^k between
  // attempts) except the attempt count: every writer here commits in a tight
  // loop, so the lake's head is saturated and each retry wins against the
  // others' stream of commits with a chance near 1/e whatever a commit costs;
  // ten attempts then fail about one commit in a few hundred (on PostgreSQL
  // too; see bench/writers_bench.cpp). Starvation, not a conflict: the test
  // asserts that given attempts every commit lands.
  WriterSpec Writer(int writer, const std::string& table, long commits, double seconds = 0) const {
    return {writer, table, commits, seconds, {Attach(), "SET ducklake_max_retry_count = 100"}};
  }

  // Every acknowledged commit is there once, no failed one is, snapshot ids
  // are 0..n-1 with n = setup + acknowledged, and the lake equals a serial
  // replay of the creates and the acknowledged inserts on RocksDB. The
  // commits of `in_doubt` (table -> (writer, k)), whose writers were killed
  // before they could tell, may be there too, once each, and count as
  // acknowledged if they are.
  void ExpectLakeHoldsExactlyTheAcknowledged(
      const std::vector<std::string>& tables, int64_t setup_snapshots,
      std::vector<WriterResult> results,
      const std::map<std::string, std::set<std::pair<long, long>>>& in_doubt = {}) {
    std::map<std::string, std::set<std::pair<long, long>>> expected;
    size_t acknowledged = 0;
    for (const auto& result : results) {
      for (long k : result.Acknowledged()) expected[result.table].insert({result.writer, k});
      acknowledged += result.Acknowledged().size();
    }
    if (!in_doubt.empty()) {
      DuckLakeSession session;
      session.Run(Attach());
      for (const auto& [table, commits] : in_doubt) {
        for (const auto& [writer, k] : commits) {
          const auto found = session.Query("SELECT count(*) FROM " + table +
                                           " WHERE w = " + std::to_string(writer) +
                                           " AND k = " + std::to_string(k));
          if (found.at(0).at(0) == "0") continue;
          std::printf("[ in doubt ] writer %ld commit %ld landed before its writer was killed\n",
                      writer, k);
          expected[table].insert({writer, k});
          ++acknowledged;
          WriterCommit landed;
          landed.k = k;
          landed.ok = true;
          for (auto& result : results) {
            if (result.writer == writer && result.table == table) result.commits.push_back(landed);
          }
        }
      }
    }
    DuckLakeSession session;
    session.Run(Attach());
    for (const auto& table : tables) {
      std::set<std::pair<long, long>> present;
      for (const auto& row :
           session.Query("SELECT w, k, count(*) FROM " + table + " GROUP BY ALL")) {
        EXPECT_EQ(row[2], "1") << table << " holds (" << row[0] << ", " << row[1] << ") " << row[2]
                               << " times";
        present.insert({std::stol(row[0]), std::stol(row[1])});
      }
      EXPECT_EQ(present, expected[table]) << table << ": rows other than the acknowledged commits";
    }
    const auto ids = session.Query(
        "SELECT snapshot_id FROM __ducklake_metadata_lake.ducklake_snapshot ORDER BY 1");
    ASSERT_EQ(ids.size(), static_cast<size_t>(setup_snapshots) + acknowledged);
    for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i][0], std::to_string(i)) << "not dense";

    TempDir replay_dir;
    DuckLakeSession replay;
    replay.Run("ATTACH 'ducklake:moraine:" + replay_dir.path("lake.moraine") +
               "' AS lake (DATA_PATH '" + replay_dir.path("files") + "/')");
    for (const auto& table : tables) replay.Run(CreateStatement(table));
    for (const auto& result : results) {
      for (long k : result.Acknowledged()) {
        replay.Run("INSERT INTO " + result.table + " VALUES (" + std::to_string(result.writer) +
                   ", " + std::to_string(k) + ")");
      }
    }
    EXPECT_EQ(AttachedLakeState(session), AttachedLakeState(replay));
  }

  static void PrintFigures(const char* what, const std::vector<WriterResult>& results,
                           double seconds) {
    std::vector<double> latencies;
    size_t failed = 0, acknowledged = 0;
    long long by_groups = 0;
    for (const auto& result : results) {
      for (const auto& commit : result.commits) latencies.push_back(commit.latency_ms);
      failed += result.Failed().size();
      acknowledged += result.Acknowledged().size();
      if (const auto counted = result.counters.find("group_landed_commits");
          counted != result.counters.end()) {
        by_groups += counted->second;
      }
    }
    std::sort(latencies.begin(), latencies.end());
    const auto at = [&](double q) {
      return latencies.empty() ? 0.0 : latencies[static_cast<size_t>(q * (latencies.size() - 1))];
    };
    std::printf(
        "[ figures  ] %s: %zu acknowledged (%lld landed by another writer's group), %zu failed "
        "in %.1f s (%.1f commits/s), latency p50 %.1f ms, p99 %.1f ms\n",
        what, acknowledged, by_groups, failed, seconds, acknowledged / seconds, at(0.5), at(0.99));
  }

  TempDir files_;     // the lake's data files
  std::string lake_;  // the lake's location when not the fixture's cluster's
};

std::string Failures(const std::vector<WriterResult>& results) {
  std::string out;
  for (const auto& result : results) {
    if (result.exit_code != 0 || !result.unexpected.empty()) {
      out += "writer " + std::to_string(result.writer) + " exit " +
             std::to_string(result.exit_code) + ": " + result.unexpected + "\n";
    }
    const auto failed = result.Failed();
    for (size_t i = 0; i < failed.size() && i < 5; ++i) {
      out += "writer " + std::to_string(result.writer) + " commit " + std::to_string(failed[i]->k) +
             ": " + failed[i]->error + "\n";
    }
    if (failed.size() > 5) out += "... and " + std::to_string(failed.size() - 5) + " more\n";
  }
  return out;
}

// Four writer processes, writer w on tables[w % tables.size()], `commits`
// each; none fails and the lake holds exactly what they acknowledged.
void FourWritersLoseNothing(EtcdDuckLakeWritersTest& test, const char* what,
                            const std::vector<std::string>& tables, long commits) {
  const int64_t setup = test.CreateTables(tables);
  WriterProcesses writers(MORAINE_DUCKLAKE_WRITER);
  const auto start = Clock::now();
  for (int w = 0; w < 4; ++w) writers.Start(test.Writer(w, tables[w % tables.size()], commits));
  const auto results = writers.Collect();
  test.PrintFigures(what, results, std::chrono::duration<double>(Clock::now() - start).count());
  EXPECT_EQ(Failures(results), "");
  test.ExpectLakeHoldsExactlyTheAcknowledged(tables, setup, results);
}

TEST_F(EtcdDuckLakeWritersTest, FourProcessesOnFourTablesLoseNothing) {
  FourWritersLoseNothing(*this, "4 processes, 4 tables",
                         {"lake.t0", "lake.t1", "lake.t2", "lake.t3"}, CommitsPerWriter());
}

TEST_F(EtcdDuckLakeWritersTest, FourProcessesOnOneTableLoseNothing) {
  FourWritersLoseNothing(*this, "4 processes, 1 table", {"lake.t"}, CommitsPerWriter() / 2);
}

// The leader dies (kill -9) while three writers commit, and comes back
// later: no acknowledged commit is lost or doubled, no failed one landed,
// and every writer commits again after the new leader is elected.
TEST_F(EtcdDuckLakeWritersTest, LeaderKilledMidLoadLosesNothing) {
  const std::vector<std::string> tables = {"lake.t0", "lake.t1", "lake.t2"};
  const int64_t setup = CreateTables(tables);
  constexpr double kSeconds = 16;
  WriterProcesses writers(MORAINE_DUCKLAKE_WRITER);
  const auto start = Clock::now();
  for (int w = 0; w < 3; ++w) writers.Start(Writer(w, tables[w], 1000000, kSeconds));
  std::this_thread::sleep_for(std::chrono::seconds(5));
  const int leader = cluster().Leader();
  ASSERT_GE(leader, 0);
  cluster().Kill(leader);
  const auto killed_at = Clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(5));
  cluster().Restart(leader);
  auto results = writers.Collect();
  PrintFigures("3 processes, leader killed", results,
               std::chrono::duration<double>(Clock::now() - start).count());
  ASSERT_TRUE(cluster().WaitHealthy(std::chrono::seconds(20)));
  // Writers went on after the failure: each acknowledged commits that
  // returned well after the kill, so after a new leader was elected (etcd's
  // election timeout is 1 s).
  const auto reelected = killed_at + std::chrono::seconds(2);
  for (const auto& result : results) {
    EXPECT_EQ(result.exit_code, 0) << result.unexpected;
    const auto after = std::count_if(result.commits.begin(), result.commits.end(),
                                     [&](const auto& c) { return c.ok && c.done > reelected; });
    EXPECT_GT(after, 0) << "writer " << result.writer << " committed nothing after the kill";
    for (const auto* failed : result.Failed()) {
      std::printf("[ failed   ] writer %d commit %ld: %s\n", result.writer, failed->k,
                  failed->error.substr(0, 300).c_str());
    }
  }
  ExpectLakeHoldsExactlyTheAcknowledged(tables, setup, results);
}

// A writer process is killed (kill -9) while four commit into one table,
// most likely while it holds its turn or has its commit's intent queued
// (group commit): the others go on within the queue's stall bound, nothing
// acknowledged is lost or doubled, and the killed writer's last commit is
// there at most once.
TEST_F(EtcdDuckLakeWritersTest, AWriterKilledMidLoadHoldsNobodyUp) {
  const std::vector<std::string> tables = {"lake.t"};
  const int64_t setup = CreateTables(tables);
  constexpr double kSeconds = 6;
  WriterProcesses writers(MORAINE_DUCKLAKE_WRITER);
  const auto start = Clock::now();
  for (int w = 0; w < 4; ++w) writers.Start(Writer(w, tables[0], 1000000, kSeconds));
  std::this_thread::sleep_for(std::chrono::seconds(3));
  // Writer 0 of this test's lake: its ATTACH names this test's data path.
  // ("[0]": the pattern must not match the shell that runs pkill.)
  const auto killed = RunCommand("pkill -KILL -f -- '--writer [0] --table lake[.]t .*" +
                                 files_.path("files") + "'");
  ASSERT_EQ(killed.exit_code, 0) << "no writer 0 to kill: " << killed.output;
  const auto killed_at = Clock::now();
  auto results = writers.Collect();
  PrintFigures("4 processes, 1 table, one killed", results,
               std::chrono::duration<double>(Clock::now() - start).count());
  std::map<std::string, std::set<std::pair<long, long>>> in_doubt;
  for (const auto& result : results) {
    if (result.writer == 0) {
      EXPECT_NE(result.exit_code, 0) << "writer 0 was not killed";
      const auto acknowledged = result.Acknowledged();
      in_doubt[result.table].insert({0, acknowledged.empty() ? 0 : acknowledged.back() + 1});
      continue;
    }
    EXPECT_EQ(result.exit_code, 0) << result.unexpected;
    EXPECT_TRUE(result.Failed().empty()) << Failures({result});
    // Each went on: commits after the kill, none of them held up for long.
    double slowest_after_ms = 0;
    size_t after = 0;
    for (const auto& commit : result.commits) {
      if (commit.done <= killed_at + std::chrono::milliseconds(500)) continue;
      ++after;
      slowest_after_ms = std::max(slowest_after_ms, commit.latency_ms);
    }
    std::printf("[ figures  ] writer %d: %zu commits after the kill, the slowest %.1f ms\n",
                result.writer, after, slowest_after_ms);
    EXPECT_GT(after, 0u) << "writer " << result.writer << " committed nothing after the kill";
    // The dead writer's entry costs kStall; the bound leaves room for
    // DuckLake's own retry backoff (100 ms x 1.5^k) on a loaded 2-core host,
    // where one commit took 3 s once under ctest -j2.
    EXPECT_LT(slowest_after_ms, 5000) << "writer " << result.writer;
  }
  ExpectLakeHoldsExactlyTheAcknowledged(tables, setup, results, in_doubt);
}

// Three writer processes, each on a virtual host of its own that also runs
// one of the cluster's members: every commit crosses veth links to a leader
// on another host, none shares a loopback with the cluster; nothing is lost
// or doubled.
TEST_F(EtcdDuckLakeWritersTest, ThreeProcessesOnThreeHostsLoseNothing) {
  if (auto reason = VirtualHosts::UnavailableReason()) GTEST_SKIP() << *reason;
  VirtualHosts hosts(3);
  EtcdCluster on_hosts(EtcdCluster::Options{.hosts = &hosts});
  EXPECT_EQ(on_hosts.Endpoint(1).rfind(hosts.Address(1) + ":", 0), 0u) << on_hosts.Endpoint(1);
  lake_ = on_hosts.Location(prefix_);
  const std::vector<std::string> tables = {"lake.t0", "lake.t1", "lake.t2"};
  const int64_t setup = CreateTables(tables);
  WriterProcesses writers(MORAINE_DUCKLAKE_WRITER);
  const auto start = Clock::now();
  for (int w = 0; w < 3; ++w) {
    WriterSpec spec = Writer(w, tables[w], CommitsPerWriter() / 2);
    spec.host_prefix = hosts.Prefix(w);
    writers.Start(spec);
  }
  const auto results = writers.Collect();
  PrintFigures("3 processes on 3 hosts", results,
               std::chrono::duration<double>(Clock::now() - start).count());
  EXPECT_EQ(Failures(results), "");
  ExpectLakeHoldsExactlyTheAcknowledged(tables, setup, results);
}

// A process on a virtual host reaches only what its links do: the cluster
// on this process's loopback is out of its reach (so the test above crosses
// the links and is no loopback test in disguise).
TEST_F(EtcdDuckLakeWritersTest, AVirtualHostCannotReachThisLoopback) {
  if (auto reason = VirtualHosts::UnavailableReason()) GTEST_SKIP() << *reason;
  VirtualHosts hosts(1);
  const std::string endpoint = cluster().Endpoint(0);
  const std::string port = endpoint.substr(endpoint.rfind(':') + 1);
  const std::string connect = "bash -c 'exec 3<>/dev/tcp/127.0.0.1/" + port + "' 2>/dev/null";
  EXPECT_EQ(RunCommand(connect).exit_code, 0) << "the cluster is not on this loopback";
  EXPECT_NE(RunCommand(hosts.Prefix(0) + connect).exit_code, 0) << "the host reached " << endpoint;
}

// A session in this process, attached before any writer ran, sees each
// commit another process made on its next transaction.
TEST_F(EtcdDuckLakeWritersTest, ReaderInAnotherProcessSeesNewCommitsOnItsNextTransaction) {
  CreateTables({"lake.t"});
  DuckLakeSession reader;
  reader.Run(Attach());
  EXPECT_EQ(reader.Query("SELECT count(*) FROM lake.t"), (Rows{{"0"}}));
  for (int round = 1; round <= 3; ++round) {
    WriterProcesses writer(MORAINE_DUCKLAKE_WRITER);
    writer.Start(Writer(round, "lake.t", 1));
    const auto results = writer.Collect();
    ASSERT_EQ(results[0].Acknowledged().size(), 1u) << Failures(results);
    EXPECT_EQ(reader.Query("SELECT count(*), max(w) FROM lake.t"),
              (Rows{{std::to_string(round), std::to_string(round)}}));
  }
}

}  // namespace
}  // namespace moraine::test
