// Crash shape (invariant 1: one commit = one atomic batch; synced writes): a
// child process commits in a loop on an on-disk catalog, acknowledging each
// landed commit on a pipe; the parent SIGKILLs it at a random moment, reopens
// the store and checks that every acknowledged commit is there, that the head
// is the last acknowledged commit or at most the one in flight after it, and
// that no commit is half visible at any snapshot.
//
// The child is this same executable, re-exec'd (fork + exec, never a bare
// fork: the parent has RocksDB's background threads after its first reopen).
// Each child commit adds two columns and registers one data file in one
// transaction, so at snapshot s the table holds exactly 1 + 2k columns and k
// files, where k is the number of commits up to s.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "commit/verbs/catalog.h"
#include "store/error.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using catalog::ColumnDef;
using catalog::Id;
using commit::Catalog;
using commit::Transaction;

constexpr int kRounds = 5;
constexpr int kAckFd = 3;  // the pipe's write end in the child

// One acknowledgement, written after Commit() returned. Smaller than
// PIPE_BUF, so a write is atomic and a record is never torn.
struct Ack {
  int32_t round;
  int32_t index;
  int64_t snapshot;
};

std::string ColumnName(int round, int index, char which) {
  return "r" + std::to_string(round) + "_" + std::to_string(index) + "_" + which;
}

// The child: commit until killed.
[[noreturn]] void RunChild(const std::string& dir, int round) {
  try {
    auto catalog = Catalog::Open(commit::CatalogOptions{.location = dir});
    const catalog::TableState* table = catalog->Head()->FindTable(0, "t");
    if (!table) throw std::runtime_error("table t missing");
    const Id table_id = table->id();
    for (int index = 0;; ++index) {
      const auto result = catalog->Commit([&](Transaction& txn) {
        txn.AddColumn(table_id, {}, ColumnDef::Leaf(ColumnName(round, index, 'a'), "int32"));
        txn.AddColumn(table_id, {}, ColumnDef::Leaf(ColumnName(round, index, 'b'), "varchar"));
        txn.RegisterDataFile(table_id, ColumnName(round, index, 'f') + ".parquet", index, 1);
      });
      const Ack ack{round, index, result.snapshot_id};
      if (write(kAckFd, &ack, sizeof ack) != static_cast<ssize_t>(sizeof ack)) _exit(3);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "crash child failed: %s\n", error.what());
    _exit(2);
  }
}

class CatalogCrashTest : public ::testing::Test {
 protected:
  // Spawns the child; returns its pid and the pipe's read end.
  std::pair<pid_t, int> Spawn(int round) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    const std::string round_arg = std::to_string(round);
    const std::string fd_arg = std::to_string(kAckFd);
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      // Only async-signal-safe calls between fork and exec.
      if (fds[1] == kAckFd) {
        fcntl(kAckFd, F_SETFD, 0);
      } else {
        dup2(fds[1], kAckFd);  // the duplicate does not carry O_CLOEXEC
      }
      const char* argv[] = {"/proc/self/exe", "--crash-child", dir_.c_str(), round_arg.c_str(),
                            nullptr};
      execv("/proc/self/exe", const_cast<char* const*>(argv));
      _exit(127);
    }
    close(fds[1]);
    return {pid, fds[0]};
  }

  // Reads whole acks from `fd` until `deadline` (or EOF when none).
  static void ReadAcks(int fd, std::string& buffer, std::vector<Ack>& acks,
                       std::optional<std::chrono::steady_clock::time_point> deadline) {
    char chunk[4096];
    for (;;) {
      int timeout_ms = -1;
      if (deadline) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            *deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        timeout_ms = static_cast<int>(left.count());
      }
      pollfd p{fd, POLLIN, 0};
      const int ready = poll(&p, 1, timeout_ms);
      if (ready == 0) break;
      if (ready < 0) continue;
      const ssize_t n = read(fd, chunk, sizeof chunk);
      if (n <= 0) break;  // EOF: the child is gone
      buffer.append(chunk, static_cast<size_t>(n));
      while (buffer.size() >= sizeof(Ack)) {
        Ack ack;
        std::memcpy(&ack, buffer.data(), sizeof ack);
        acks.push_back(ack);
        buffer.erase(0, sizeof ack);
      }
    }
  }

  test::TempDir temp_;
  std::string dir_ = temp_.path("lake.moraine");
};

TEST_F(CatalogCrashTest, KilledWriterLosesNoAcknowledgedCommitAndShowsNoHalfCommit) {
  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  RecordProperty("seed", static_cast<int>(seed));
  SCOPED_TRACE("seed " + std::to_string(seed));

  Id table_id = 0;
  Id base = 0;  // the snapshot that created the table
  {
    auto catalog = Catalog::Open(commit::CatalogOptions{.location = dir_});
    const auto result = catalog->Commit([&](Transaction& txn) {
      table_id = txn.CreateTable("main", "t", {ColumnDef::Leaf("id", "int64")});
    });
    base = result.snapshot_id;
  }

  std::map<Id, Ack> acked;  // every acknowledged commit, all rounds
  Id head_before = base;
  size_t total_acks = 0;
  for (int round = 0; round < kRounds; ++round) {
    const auto [pid, fd] = Spawn(round);
    const auto spawned = std::chrono::steady_clock::now();
    std::string buffer;
    std::vector<Ack> acks;
    if (round % 2 == 0) {
      // Kill at a random moment from spawn: open and recovery included.
      ReadAcks(fd, buffer, acks,
               spawned + std::chrono::milliseconds(std::uniform_int_distribution(20, 300)(rng)));
    } else {
      // Kill a writer that is surely committing: after its first ack.
      while (acks.empty() && std::chrono::steady_clock::now() - spawned < std::chrono::seconds(5)) {
        ReadAcks(fd, buffer, acks,
                 std::chrono::steady_clock::now() + std::chrono::milliseconds(50));
      }
      ReadAcks(fd, buffer, acks,
               std::chrono::steady_clock::now() +
                   std::chrono::milliseconds(std::uniform_int_distribution(0, 200)(rng)));
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ReadAcks(fd, buffer, acks, std::nullopt);  // what it wrote before dying
    close(fd);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "round " << round << ": the child exited on its own (status " << status << ")";
    EXPECT_TRUE(buffer.empty()) << "a torn acknowledgement";

    // Acknowledged snapshots continue the history without gaps.
    for (size_t i = 0; i < acks.size(); ++i) {
      EXPECT_EQ(acks[i].round, round);
      EXPECT_EQ(acks[i].index, static_cast<int32_t>(i));
      EXPECT_EQ(acks[i].snapshot, head_before + 1 + static_cast<Id>(i));
      acked[acks[i].snapshot] = acks[i];
    }
    total_acks += acks.size();
    const Id last_acked = acks.empty() ? head_before : acks.back().snapshot;

    auto catalog = Catalog::Open(commit::CatalogOptions{.location = dir_});
    auto head = catalog->Head();
    const Id head_id = head->snapshot_id();
    // At least every ack; at most the one commit in flight when killed.
    EXPECT_GE(head_id, last_acked) << "round " << round << " lost acknowledged commits";
    EXPECT_LE(head_id, last_acked + 1) << "round " << round;
    std::cout << "[ round " << round << " ] " << acks.size() << " acked, head " << head_id
              << (head_id > last_acked ? " (+1 landed unacknowledged)" : "") << "\n";

    // Every acknowledged commit, of every round, is whole at head with the
    // snapshot it was acknowledged at.
    const catalog::TableState& table = *head->Table(table_id);
    for (const auto& [snapshot, ack] : acked) {
      for (char which : {'a', 'b'}) {
        const catalog::ColumnRecord* column =
            table.FindColumn(catalog::ColumnPath{ColumnName(ack.round, ack.index, which)});
        ASSERT_NE(column, nullptr) << "acknowledged commit at " << snapshot << " lost";
        EXPECT_EQ(column->begin_snapshot(), snapshot);
      }
    }

    // No half commit at any snapshot of this round (about 20 sampled): k
    // commits after `base` show exactly 1 + 2k columns and k files.
    std::vector<Id> check;
    const Id span = head_id - head_before;
    const Id step = std::max<Id>(1, span / 20);
    for (Id s = head_before + 1; s <= head_id; s += step) check.push_back(s);
    if (head_id > head_before) check.push_back(head_id);
    for (Id s : check) {
      auto state = catalog->At(s);
      const catalog::TableState* at = state->Table(table_id);
      ASSERT_NE(at, nullptr);
      const size_t commits = static_cast<size_t>(s - base);
      EXPECT_EQ(at->columns.size(), 1 + 2 * commits) << "snapshot " << s;
      EXPECT_EQ(at->data_files.size(), commits) << "snapshot " << s;
      size_t begun_here = 0;
      at->columns.ForEach([&](Id, const catalog::ColumnRecord& column) {
        begun_here += column.begin_snapshot() == s;
        return true;
      });
      EXPECT_EQ(begun_here, 2u) << "snapshot " << s << " shows a partial commit";
    }
    head_before = head_id;
  }
  EXPECT_GT(total_acks, 0u) << "no round got as far as a commit";
}

}  // namespace
}  // namespace moraine

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--crash-child") == 0) {
    moraine::RunChild(argv[2], std::atoi(argv[3]));
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
