// Group commit on RocksDB (store/rocksdb/wal_group_sync.h): writes land unsynced and
// are synced together outside the write lock. What must hold:
//   - a batch that landed is seen by the next commit at once, and durable
//     for every commit once a later one's sync returns;
//   - no reader sees a batch before its sync, nor after its sync failed;
//   - a failed sync fails every batch it would have covered, and the store
//     writes nothing more until it has reopened the instance (which replays
//     the log: each batch is then there whole or not at all).
// The failure runs in a child of this executable (its own main below) with
// the store's fault hook armed, as a separate process must have it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "store/error.h"
#include "store/kv_store.h"
#include "store/write_batch.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace moraine::store {
namespace {

constexpr std::string_view kHead = "head";

WriteBatch Batch(std::string_view head, std::string_view key) {
  WriteBatch batch;
  batch.Put(kHead, head);
  batch.Put(key, "1");
  return batch;
}

std::unique_ptr<KvStore> OpenAt(const std::string& location) {
  KvOptions options;
  options.location = location;
  return OpenKvStore(options);
}

TEST(GroupSync, ALandedBatchIsSeenByTheNextCommitAndDurableOnceALaterSyncReturns) {
  test::TempDir dir;
  const std::string location = dir.path("lake.moraine");
  {
    auto store = OpenAt(location);
    auto a = store->LandIfHeadUnchanged(kHead, std::nullopt, Batch("1", "a"));
    ASSERT_NE(a, nullptr);
    // Not synced yet: no reader sees it.
    EXPECT_EQ(store->GetSnapshot()->Get(kHead), std::nullopt);
    // The next commit builds on it before it is durable, and lands on it.
    EXPECT_EQ(store->GetSnapshotForCommit()->Get(kHead), "1");
    EXPECT_EQ(store->LandIfHeadUnchanged(kHead, std::nullopt, Batch("x", "x")), nullptr);
    auto b = store->LandIfHeadUnchanged(kHead, std::string("1"), Batch("2", "b"));
    ASSERT_NE(b, nullptr);
    b->AwaitDurable();
    a->AwaitDurable();  // covered by b's sync
    auto reader = store->GetSnapshot();
    EXPECT_EQ(reader->Get(kHead), "2");
    EXPECT_EQ(reader->Get("a"), "1");
    EXPECT_EQ(reader->Get("x"), std::nullopt);
  }
  auto reopened = OpenAt(location);
  EXPECT_EQ(GetLatest(*reopened, "b"), "1");
}

TEST(GroupSync, ConcurrentCommitsAllLandOnceAndReadersSeeTheirHeadsInOrder) {
  test::TempDir dir;
  const std::string location = dir.path("lake.moraine");
  constexpr int kThreads = 6;
  constexpr int kCommitsEach = 60;
  {
    auto store = OpenAt(location);
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        int64_t last_seen = -1;
        for (int i = 0; i < kCommitsEach; ++i) {
          for (;;) {
            const auto head = store->GetSnapshot()->Get(kHead);
            const int64_t n = head ? std::stoll(*head) : 0;
            if (n < last_seen) ++failures;  // a reader went back in time
            last_seen = n;
            if (store->WriteIfHeadUnchanged(
                    kHead, head,
                    Batch(std::to_string(n + 1),
                          "t" + std::to_string(t) + "-" + std::to_string(i))))
              break;
          }
        }
      });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(GetLatest(*store, kHead), std::to_string(kThreads * kCommitsEach));
  }
  auto reopened = OpenAt(location);
  EXPECT_EQ(GetLatest(*reopened, kHead), std::to_string(kThreads * kCommitsEach));
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kCommitsEach; ++i) {
      EXPECT_EQ(GetLatest(*reopened, "t" + std::to_string(t) + "-" + std::to_string(i)), "1");
    }
  }
}

// The child: its second log sync fails (MORAINE_TEST_FAULT=eio@sync:2). One
// line per step, "<step> ok|error: <message>|<value>".
void RunFailedSyncChild(const std::string& location) {
  auto store = OpenAt(location);
  auto step = [](const std::string& name, auto&& body) {
    try {
      const std::string result = body();
      std::cout << name << " " << result << std::endl;
    } catch (const Error& error) {
      std::cout << name << " error: " << error.what() << std::endl;
    }
  };
  step("first", [&] {
    return std::string(store->WriteIfHeadUnchanged(kHead, std::nullopt, Batch("1", "w")) ? "ok"
                                                                                         : "lost");
  });
  auto a = store->LandIfHeadUnchanged(kHead, std::string("1"), Batch("2", "a"));
  auto b = store->LandIfHeadUnchanged(kHead, std::string("2"), Batch("3", "b"));
  std::cout << "landed " << (a && b ? "ok" : "lost") << std::endl;
  step("commit-view", [&] { return store->GetSnapshotForCommit()->Get(kHead).value_or("none"); });
  step("reader-before-sync", [&] { return store->GetSnapshot()->Get(kHead).value_or("none"); });
  // b's sync, for a and b, fails.
  step("await-b", [&] {
    b->AwaitDurable();
    return std::string("ok");
  });
  step("await-a", [&] {
    a->AwaitDurable();
    return std::string("ok");
  });
  step("reader-after-failure", [&] { return store->GetSnapshot()->Get(kHead).value_or("none"); });
  // The landed batches still hold the failed instance: it cannot reopen yet.
  step("write-while-held", [&] {
    return std::string(
        store->WriteIfHeadUnchanged(kHead, std::string("3"), Batch("4", "c")) ? "ok" : "lost");
  });
  a.reset();
  b.reset();
  step("reader-after-reopen", [&] { return store->GetSnapshot()->Get(kHead).value_or("none"); });
  step("write-after-reopen", [&] {
    auto snapshot = store->GetSnapshot();
    const auto head = snapshot->Get(kHead);
    snapshot.reset();
    const int64_t n = std::stoll(head.value_or("0"));
    return std::string(store->WriteIfHeadUnchanged(kHead, head, Batch(std::to_string(n + 1), "c"))
                           ? "ok"
                           : "lost");
  });
}

std::string SelfPath() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) throw std::runtime_error("readlink /proc/self/exe failed");
  return std::string(path, static_cast<size_t>(n));
}

std::string LineOf(const std::string& output, const std::string& step) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(step + " ")) return line.substr(step.size() + 1);
  }
  return "(no line)";
}

TEST(GroupSync, AFailedSyncFailsEveryBatchItCoveredAndNoReaderSeesThem) {
  test::TempDir dir;
  const std::string location = dir.path("lake.moraine");
  const auto child = test::RunCommand("MORAINE_TEST_FAULT=eio@sync:2 " + SelfPath() +
                                      " --failed-sync-child " + location + " 2>&1");
  ASSERT_EQ(child.exit_code, 0) << child.output;
  EXPECT_EQ(LineOf(child.output, "first"), "ok") << child.output;
  EXPECT_EQ(LineOf(child.output, "landed"), "ok") << child.output;
  EXPECT_EQ(LineOf(child.output, "commit-view"), "3") << child.output;
  // Readers see the last durable head, before and after the failed sync.
  EXPECT_EQ(LineOf(child.output, "reader-before-sync"), "1") << child.output;
  EXPECT_EQ(LineOf(child.output, "reader-after-failure"), "1") << child.output;
  // Neither commit is told anything but the failure, and nothing is written
  // before the store has recovered.
  for (const char* step : {"await-b", "await-a", "write-while-held"}) {
    const std::string line = LineOf(child.output, step);
    EXPECT_TRUE(line.starts_with("error: ")) << step << ": " << line;
    EXPECT_NE(line.find("injected EIO"), std::string::npos) << step << ": " << line;
  }
  // Reopened, the log holds both batches or neither of them whole (their
  // bytes reached the file; only the sync failed): never a torn one.
  const std::string reopened = LineOf(child.output, "reader-after-reopen");
  EXPECT_TRUE(reopened == "1" || reopened == "2" || reopened == "3") << child.output;
  EXPECT_EQ(LineOf(child.output, "write-after-reopen"), "ok") << child.output;
  auto store = OpenAt(location);
  EXPECT_EQ(GetLatest(*store, "c"), "1");
  EXPECT_EQ(GetLatest(*store, "w"), "1");
}

}  // namespace
}  // namespace moraine::store

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--failed-sync-child") == 0) {
    moraine::store::RunFailedSyncChild(argv[2]);
    return 0;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
