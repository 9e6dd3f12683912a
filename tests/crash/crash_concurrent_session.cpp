// A DuckLake session of several connections for the crash tiers: attaches
// the lake given on the command line, then N connections on N threads each
// insert 0, 1, 2, ... (one row, one commit each) into lake.c<connection>,
// printing "acknowledged <connection> <key>" as each commit returns, so that
// concurrent commits share group syncs when the store is cut.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "duckdb.hpp"
#include "ducklake_adapter/host.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: crash_concurrent_session ATTACH-STATEMENT CONNECTIONS COMMITS\n";
    return 2;
  }
  moraine::ducklake_adapter::Host host;
  auto first = host.Connect();
  if (auto attached = first->Query(argv[1]); attached->HasError()) {
    std::cerr << attached->GetError() << "\n";
    return 1;
  }
  const int connections = std::atoi(argv[2]);
  const int commits = std::atoi(argv[3]);
  std::mutex output;
  int failures = 0;
  std::vector<std::thread> threads;
  for (int c = 0; c < connections; ++c) {
    threads.emplace_back([&, c] {
      auto connection = host.Connect();
      for (int k = 0; k < commits; ++k) {
        auto result = connection->Query("INSERT INTO lake.c" + std::to_string(c) + " VALUES (" +
                                        std::to_string(k) + ")");
        std::lock_guard lock(output);
        if (result->HasError()) {
          std::cerr << "connection " << c << ": " << result->GetError() << "\n";
          ++failures;
          return;
        }
        std::printf("acknowledged %d %d\n", c, k);
        std::fflush(stdout);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  return failures == 0 ? 0 : 1;
}
