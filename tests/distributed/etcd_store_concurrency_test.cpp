// Many writers on one etcd lake: threads with their own handles, threads on
// one shared handle, and separate processes race on one head; every head
// value is won exactly once and every won commit is there, nothing else.
// Writers on disjoint anchors never lose, and their throughput and commit
// latency are printed.
//
// Own main(): the test re-executes itself as a writer process when
// MORAINE_ETCD_RACE_LOCATION is set.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <thread>

#include "distributed/etcd_commit_race.h"
#include "distributed/etcd_store_fixture.h"
#include "store/key.h"

namespace moraine::test {
namespace {

using Clock = std::chrono::steady_clock;
using EtcdStoreConcurrencyTest = EtcdStoreFixture;

constexpr auto kRaceBudget = std::chrono::seconds(40);

// Every head value 1..target won by exactly one writer, whose name its entry holds.
void ExpectEachValueWonOnce(store::KvStore& store, const std::map<std::string, RaceResult>& results,
                            uint64_t target) {
  auto snapshot = store.GetSnapshot();
  ASSERT_EQ(snapshot->Get(RaceHeadKey()), std::to_string(target));
  std::map<uint64_t, std::string> winner;
  uint64_t lost = 0;
  for (const auto& [writer, result] : results) {
    lost += result.lost;
    for (uint64_t n : result.won) {
      EXPECT_TRUE(winner.emplace(n, writer).second) << "head value " << n << " won twice";
    }
  }
  EXPECT_EQ(winner.size(), target);
  size_t entries = 0;
  for (auto it = snapshot->Scan(store::PrefixRange(store::Subspace::kCurrent, store::Kind::kTable));
       it->Valid(); it->Next(), ++entries) {
    const uint64_t n = store::Key::Decode(it->key()).component(0);
    EXPECT_EQ(winner[n], it->value()) << "entry " << n;
  }
  EXPECT_EQ(entries, target);
  std::printf("[ figures  ] %zu writers, %llu commits, %llu lost races\n", results.size(),
              static_cast<unsigned long long>(target), static_cast<unsigned long long>(lost));
}

TEST_F(EtcdStoreConcurrencyTest, ThreadsWithOwnHandlesWinEachHeadValueOnce) {
  constexpr int kWriters = 6;
  constexpr uint64_t kTarget = 120;
  std::map<std::string, RaceResult> results;
  std::vector<std::thread> threads;
  std::mutex mutex;
  const auto deadline = Clock::now() + kRaceBudget;
  for (int i = 0; i < kWriters; ++i) {
    threads.emplace_back([&, i] {
      auto store = Open();
      auto result = RaceOnHead(*store, "t" + std::to_string(i), kTarget, deadline);
      std::lock_guard lock(mutex);
      results["t" + std::to_string(i)] = std::move(result);
    });
  }
  for (auto& thread : threads) thread.join();
  ExpectEachValueWonOnce(*Open(), results, kTarget);
}

TEST_F(EtcdStoreConcurrencyTest, ThreadsSharingOneHandleWinEachHeadValueOnce) {
  constexpr int kWriters = 4;
  constexpr uint64_t kTarget = 80;
  auto store = Open();
  std::map<std::string, RaceResult> results;
  std::vector<std::thread> threads;
  std::mutex mutex;
  const auto deadline = Clock::now() + kRaceBudget;
  for (int i = 0; i < kWriters; ++i) {
    threads.emplace_back([&, i] {
      auto result = RaceOnHead(*store, "s" + std::to_string(i), kTarget, deadline);
      std::lock_guard lock(mutex);
      results["s" + std::to_string(i)] = std::move(result);
    });
  }
  for (auto& thread : threads) thread.join();
  ExpectEachValueWonOnce(*store, results, kTarget);
}

std::string SelfPath() {
  char path[4096];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
  return n > 0 ? std::string(path, n) : std::string();
}

TEST_F(EtcdStoreConcurrencyTest, ProcessesWinEachHeadValueOnce) {
  constexpr int kWriters = 3;
  constexpr uint64_t kTarget = 90;
  std::vector<FILE*> pipes;
  for (int i = 0; i < kWriters; ++i) {
    const std::string command = "MORAINE_ETCD_RACE_LOCATION='" + Location() +
                                "' MORAINE_ETCD_RACE_WRITER=p" + std::to_string(i) +
                                " MORAINE_ETCD_RACE_TARGET=" + std::to_string(kTarget) + " '" +
                                SelfPath() + "' 2>&1";
    pipes.push_back(::popen(command.c_str(), "r"));
    ASSERT_NE(pipes.back(), nullptr);
  }
  std::map<std::string, RaceResult> results;
  for (int i = 0; i < kWriters; ++i) {
    RaceResult& result = results["p" + std::to_string(i)];
    char line[256];
    std::string unexpected;
    while (std::fgets(line, sizeof(line), pipes[i])) {
      unsigned long long value;
      if (std::sscanf(line, "won %llu", &value) == 1) {
        result.won.push_back(value);
      } else if (std::sscanf(line, "lost %llu", &value) == 1) {
        result.lost = value;
      } else {
        unexpected += line;
      }
    }
    EXPECT_EQ(::pclose(pipes[i]), 0) << unexpected;
  }
  ExpectEachValueWonOnce(*Open(), results, kTarget);
}

// Writers on disjoint anchors (as commits to different tables would be if
// each had its own): no lost compare ever, and the figures of the cluster.
TEST_F(EtcdStoreConcurrencyTest, DisjointAnchorsNeverLoseAndFigures) {
  const std::string payload(100, 'v');
  for (int writers : {1, 4, 8}) {
    std::vector<std::vector<double>> latencies(writers);
    std::vector<uint64_t> lost(writers, 0);
    std::vector<std::thread> threads;
    const auto start = Clock::now();
    const auto stop = start + std::chrono::milliseconds(1500);
    for (int w = 0; w < writers; ++w) {
      threads.emplace_back([&, w] {
        auto store = Open();
        // Anchors and keys of their own in every round, which shares the lake.
        const uint64_t id = writers * 100 + w;
        const std::string anchor = store::Key::Current(store::Kind::kTable, {id}).Encode();
        std::optional<std::string> head;
        // At least one commit each: under a sanitizer the opens alone can
        // outlast the window.
        for (uint64_t n = 1; n == 1 || Clock::now() < stop; ++n) {
          // A commit the size the issue measured: an anchor and 19 keys of 100 B.
          store::WriteBatch batch;
          batch.Put(anchor, std::to_string(n));
          for (uint64_t k = 0; k < 19; ++k) {
            batch.Put(store::Key::Current(store::Kind::kColumn, {id, n * 19 + k}).Encode(),
                      payload);
          }
          const auto begin = Clock::now();
          if (store->WriteIfHeadUnchanged(anchor, head, batch)) {
            head = std::to_string(n);
          } else {
            ++lost[w];
          }
          latencies[w].push_back(
              std::chrono::duration<double, std::milli>(Clock::now() - begin).count());
        }
      });
    }
    for (auto& thread : threads) thread.join();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::vector<double> all;
    for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
    std::sort(all.begin(), all.end());
    ASSERT_FALSE(all.empty());
    for (int w = 0; w < writers; ++w) EXPECT_EQ(lost[w], 0u) << "writer " << w;
    std::printf(
        "[ figures  ] %d writers on disjoint anchors: %.0f commits/s, commit p50 %.2f ms, "
        "p99 %.2f ms (20-key CAS commits)\n",
        writers, all.size() / seconds, all[all.size() / 2], all[all.size() * 99 / 100]);
  }
}

// The writer process of ProcessesWinEachHeadValueOnce.
int RunRaceWriter(const char* location) {
  store::KvOptions options;
  options.location = location;
  auto store = store::OpenKvStore(options);
  const uint64_t target = std::stoull(std::getenv("MORAINE_ETCD_RACE_TARGET"));
  auto result = RaceOnHead(*store, std::getenv("MORAINE_ETCD_RACE_WRITER"), target,
                           Clock::now() + kRaceBudget);
  for (uint64_t n : result.won) std::printf("won %llu\n", static_cast<unsigned long long>(n));
  std::printf("lost %llu\n", static_cast<unsigned long long>(result.lost));
  return 0;
}

}  // namespace
}  // namespace moraine::test

int main(int argc, char** argv) {
  if (const char* location = std::getenv("MORAINE_ETCD_RACE_LOCATION")) {
    try {
      return moraine::test::RunRaceWriter(location);
    } catch (const std::exception& error) {
      std::printf("writer failed: %s\n", error.what());
      return 1;
    }
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
