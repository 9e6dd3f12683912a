// writers_bench: many DuckLake writer processes on one lake, moraine on etcd
// against DuckLake on PostgreSQL, in one run on one machine.
//
// For 1, 2, 4, 8 and 16 writer processes, each its own DuckDB with its own
// ATTACH, each committing one-row INSERTs (autocommit, through DuckLake SQL,
// DuckLake's default retry settings), for a fixed time, in three shapes: each
// writer into a table of its own (disjoint tables; every commit still takes
// the lake's next snapshot id), all into one table, and all into one table
// with every tenth commit of each writer an ALTER TABLE ADD COLUMN of it
// instead (the inserts in flight then conflict, in DuckLake's rules, on any
// catalog). Catalogs:
//   moraine/etcd   ducklake:moraine:etcd://... on a 3-member etcd cluster on
//                  loopback started here
//   etcd/no-group  the same with group commit off (MORAINE_ETCD_GROUP_COMMIT=off:
//                  every commit lands itself, in its turn)
//   moraine/etcds  the same on a secured cluster (TLS, client certificates,
//                  etcd's auth)
//   postgres       ducklake:postgres:... on a local PostgreSQL server started
//                  here (initdb, pg_ctl) with DuckDB's postgres extension
// With --hosts N (root; tests/support/virtual_hosts.h) the secured cluster
// gives way to the same two catalogs across N virtual hosts of this machine,
// each its own network namespace linked to the others by veth: moraine/etcd/Nh
// has etcd member i on host i % N, postgres/Nh the server on the hosts' router,
// and writer w runs on host w % N, so no writer shares a loopback with the
// catalog it commits to (or, for etcd, with all of its members).
// Printed per catalog and writer count: commits/s over one common window
// (every writer waits for its start, after all have attached), commits acknowledged and failed
// (after DuckLake's retries), and commit latency p50/p99 (retries included).
//
//   moraine_writers_bench [--seconds S]   (default 8 per configuration;
//                                          MORAINE_BENCH_QUICK=1: 3)
//                         [--writers N,N...] (default 1,2,4,8,16)
//                         [--tables each|shared|altered] (default all three)
//                         [--hosts N]  (see above)
//                         [--catalogs L,L...] (default all, by label)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/postgres_server.h"
#include "duckdb.hpp"
#include "ducklake_adapter/host.h"
#include "support/etcd_cluster.h"
#include "support/virtual_hosts.h"
#include "support/writer_processes.h"
#include "util/temp_dir.h"

namespace moraine::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Figures {
  double commits_per_s = 0;
  size_t acknowledged = 0;
  size_t failed = 0;
  size_t conflicts = 0;  // of `failed`, DuckLake's "Transaction conflict" errors
  double p50_ms = 0, p99_ms = 0;
  std::string first_error;
  // Every writer's moraine counters, summed (writer_processes.h).
  std::map<std::string, long long> counters;
};

// A catalog under test: the setup statements a session needs to reach a
// fresh lake (LOAD, ATTACH ... AS lake); a new lake on every call.
struct Catalog {
  std::string label;
  std::function<std::vector<std::string>(const std::string& data_path)> new_lake;
  const test::VirtualHosts* hosts = nullptr;  // the writers' hosts; null: this one
  // Set in this process's environment, which the writers inherit, while it runs.
  std::vector<std::pair<std::string, std::string>> environment = {};
};

// Sets a catalog's environment for as long as it lives.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const std::vector<std::pair<std::string, std::string>>& variables)
      : variables_(variables) {
    for (const auto& [name, value] : variables_) setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    for (const auto& [name, value] : variables_) unsetenv(name.c_str());
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::vector<std::pair<std::string, std::string>> variables_;
};

double Quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(q * static_cast<double>(values.size() - 1))];
}

// Commits acknowledged per second of the common window.
double WindowRate(const std::vector<test::WriterResult>& results, Clock::time_point begin,
                  Clock::time_point end) {
  size_t inside = 0;
  for (const auto& result : results) {
    for (const auto& commit : result.commits) {
      if (commit.ok && commit.done > begin && commit.done <= end) ++inside;
    }
  }
  return static_cast<double>(inside) / std::chrono::duration<double>(end - begin).count();
}

// How the writers share the lake: a table each, all one table (DuckLake
// allows concurrent inserts into one table), or one table with every tenth
// commit an ALTER of it (a true conflict for the inserts in flight).
enum class Tables { kOneEach, kOneShared, kOneSharedAltered };

std::string TableOf(Tables tables, int writer) {
  return "lake.t" + std::to_string(tables == Tables::kOneEach ? writer : 0);
}

const char* Describe(Tables tables) {
  switch (tables) {
    case Tables::kOneEach:
      return "one table per writer";
    case Tables::kOneShared:
      return "all on one table";
    case Tables::kOneSharedAltered:
      return "all on one table, every 10th commit an ALTER of it (failures are DuckLake's "
             "conflicts)";
  }
  return "";
}

Figures Run(const Catalog& catalog, Tables tables, int writers, double seconds) {
  const ScopedEnvironment environment(catalog.environment);
  const std::filesystem::path scratch = util::CreateTempDir("moraine-bench-files-");
  const std::string files = scratch.string() + "/";
  const std::vector<std::string> setup = catalog.new_lake(files);
  {
    ducklake_adapter::Host host;
    auto connection = host.Connect();
    std::vector<std::string> statements = setup;
    const int created = tables == Tables::kOneEach ? writers : 1;
    for (int w = 0; w < created; ++w) {
      statements.push_back("CREATE TABLE " + TableOf(tables, w) + " (w INTEGER, k INTEGER)");
    }
    for (const auto& statement : statements) {
      auto result = connection->Query(statement);
      if (result->HasError()) {
        throw std::runtime_error(statement + " -> " + result->GetError());
      }
    }
  }
  // Every writer commits over one window, opened once all have attached
  // (DuckDB and DuckLake load in each process first; 16 of them on 2 cores
  // took over 10 s once): each waits for the file `go` after attaching, and
  // commits for `seconds` from when it appears.
  const std::string go = scratch.string() + "/go";
  test::WriterProcesses processes(MORAINE_DUCKLAKE_WRITER);
  for (int w = 0; w < writers; ++w) {
    test::WriterSpec spec{w, TableOf(tables, w), 100000000, seconds, setup};
    if (tables == Tables::kOneSharedAltered) spec.alter_every = 10;
    if (catalog.hosts) spec.host_prefix = catalog.hosts->Prefix(w % catalog.hosts->size());
    spec.start_file = go;
    processes.Start(spec);
  }
  const bool ready = processes.AwaitReady();
  const auto start_at = Clock::now();
  const auto stop_at = start_at + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(seconds));
  std::ofstream(go).put('\n');
  const auto results = processes.Collect();
  if (!ready) {
    for (const auto& result : results) {
      if (result.exit_code != 0) {
        throw std::runtime_error("writer " + std::to_string(result.writer) +
                                 " did not attach: " + result.unexpected);
      }
    }
  }
  Figures figures;
  std::vector<double> latencies;
  for (const auto& result : results) {
    if (result.exit_code != 0) {
      throw std::runtime_error("writer " + std::to_string(result.writer) + " exited " +
                               std::to_string(result.exit_code) + ": " + result.unexpected);
    }
    for (const auto& [name, value] : result.counters) figures.counters[name] += value;
    for (const auto& commit : result.commits) {
      latencies.push_back(commit.latency_ms);
      if (commit.ok) {
        ++figures.acknowledged;
      } else {
        ++figures.failed;
        if (commit.error.find("Transaction conflict") != std::string::npos) ++figures.conflicts;
        if (figures.first_error.empty()) figures.first_error = commit.error.substr(0, 240);
      }
    }
  }
  figures.commits_per_s = WindowRate(results, start_at, stop_at);
  figures.p50_ms = Quantile(latencies, 0.5);
  figures.p99_ms = Quantile(latencies, 0.99);
  std::error_code ignored;
  std::filesystem::remove_all(scratch, ignored);
  return figures;
}

}  // namespace
}  // namespace moraine::bench

int main(int argc, char** argv) {
  using namespace moraine;
  double seconds = std::getenv("MORAINE_BENCH_QUICK") ? 3 : 8;
  std::vector<int> writer_counts = {1, 2, 4, 8, 16};
  int host_count = 0;
  std::string only_catalogs;  // ",label,label," or empty: all
  std::vector<bench::Tables> shapes = {bench::Tables::kOneEach, bench::Tables::kOneShared,
                                       bench::Tables::kOneSharedAltered};
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atof(argv[i + 1]);
    if (std::strcmp(argv[i], "--hosts") == 0) host_count = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--tables") == 0) {
      const std::string shape = argv[i + 1];
      if (shape == "each") shapes = {bench::Tables::kOneEach};
      if (shape == "shared") shapes = {bench::Tables::kOneShared};
      if (shape == "altered") shapes = {bench::Tables::kOneSharedAltered};
    }
    if (std::strcmp(argv[i], "--catalogs") == 0)
      only_catalogs = std::string(",") + argv[i + 1] + ",";
    if (std::strcmp(argv[i], "--writers") == 0) {
      writer_counts.clear();
      std::istringstream list(argv[i + 1]);
      for (std::string count; std::getline(list, count, ',');) {
        writer_counts.push_back(std::stoi(count));
      }
    }
  }
  std::printf(
      "writers_bench: one-row INSERT commits through DuckLake SQL by writer processes, "
      "%.0f s per configuration, DuckLake's default retry settings\n",
      seconds);
  std::fflush(stdout);
  try {
    if (auto why = test::EtcdUnavailableReason()) throw std::runtime_error(*why);
    std::unique_ptr<test::VirtualHosts> hosts;
    if (host_count > 0) {
      if (auto why = test::VirtualHosts::UnavailableReason()) throw std::runtime_error(*why);
      hosts = std::make_unique<test::VirtualHosts>(host_count);
    }
    // Limits as the README asks of a cluster serving moraine.
    const std::vector<std::string> limits = {"--max-txn-ops=4096", "--max-request-bytes=33554432"};
    test::EtcdCluster cluster(test::EtcdCluster::Options{.flags = limits});
    // The same secured: TLS on client and peer ports, --client-cert-auth,
    // etcd's auth on; the writers are its lake_writer, by password (the
    // MORAINE_ETCD_* environment, which the writer processes inherit). Or,
    // with --hosts, the same cluster on the virtual hosts.
    test::EtcdCluster other(
        hosts ? test::EtcdCluster::Options{.flags = limits, .hosts = hosts.get()}
              : test::EtcdCluster::Options{.flags = limits, .secured_prefix = "bench"});
    bench::PostgresServer postgres(hosts ? hosts->RouterAddress() : "",
                                   hosts ? hosts->Subnet() : "");
    int lakes = 0;
    const auto etcd_lake = [&](const test::EtcdCluster& etcd) {
      return [&lakes, etcd = &etcd](const std::string& files) {
        if (etcd->secured()) {
          etcd->ActAs(test::EtcdCluster::kWriter, /*by_password=*/true);
        } else {
          test::EtcdCluster::ActAsNobody();
        }
        return std::vector<std::string>{
            "ATTACH 'ducklake:moraine:" + etcd->Location("bench" + std::to_string(++lakes)) +
            "' AS lake (DATA_PATH '" + files + "')"};
      };
    };
    const auto postgres_lake = [&](std::string address) {
      return [&lakes, &postgres, address](const std::string& files) {
        const std::string dsn = postgres.CreateDatabase("lake" + std::to_string(++lakes), address);
        return std::vector<std::string>{
            "LOAD '" MORAINE_POSTGRES_EXTENSION "'",
            "ATTACH 'ducklake:postgres:" + dsn + "' AS lake (DATA_PATH '" + files + "')"};
      };
    };
    std::vector<bench::Catalog> catalogs = {
        {"moraine/etcd", etcd_lake(cluster)},
        {"etcd/no-group", etcd_lake(cluster), nullptr, {{"MORAINE_ETCD_GROUP_COMMIT", "off"}}}};
    if (hosts) {
      const std::string on = "/" + std::to_string(host_count) + "h";
      catalogs.push_back({"postgres", postgres_lake("127.0.0.1")});
      catalogs.push_back({"moraine/etcd" + on, etcd_lake(other), hosts.get()});
      catalogs.push_back({"postgres" + on, postgres_lake(hosts->RouterAddress()), hosts.get()});
      std::printf("on %d virtual hosts (network namespaces linked by veth to a bridge)\n",
                  host_count);
    } else {
      catalogs.push_back({"moraine/etcds", etcd_lake(other)});
      catalogs.push_back({"postgres", postgres_lake("127.0.0.1")});
    }
    for (const auto tables : shapes) {
      std::printf("\n%s\n%-8s %-14s %10s %8s %7s %9s %9s\n", bench::Describe(tables), "writers",
                  "catalog", "commits/s", "acked", "failed", "p50 ms", "p99 ms");
      std::map<int, std::map<std::string, double>> rates;  // writers -> catalog -> commits/s
      for (int writers : writer_counts) {
        for (const auto& catalog : catalogs) {
          if (!only_catalogs.empty() &&
              only_catalogs.find("," + catalog.label + ",") == std::string::npos) {
            continue;
          }
          bench::Figures f = bench::Run(catalog, tables, writers, seconds);
          std::printf("%-8d %-14s %10.1f %8zu %7zu %9.1f %9.1f\n", writers, catalog.label.c_str(),
                      f.commits_per_s, f.acknowledged, f.failed, f.p50_ms, f.p99_ms);
          if (!f.first_error.empty()) {
            std::printf("         failed: %zu DuckLake conflicts, %zu other; first: %s\n",
                        f.conflicts, f.failed - f.conflicts, f.first_error.c_str());
          }
          if (catalog.label.rfind("postgres", 0) != 0) {
            std::printf(
                "         commit loops %lld, DuckLake re-checks %lld, rebased %lld (landed by "
                "another writer's group %lld)\n",
                f.counters["in_catalog_commits"], f.counters["native_conflict_checks"],
                f.counters["rebased_commits"], f.counters["group_landed_commits"]);
          }
          std::fflush(stdout);
          rates[writers][catalog.label] = f.commits_per_s;
        }
      }
      for (auto& [writers, rate] : rates) {
        if (rate["postgres"] <= 0) continue;
        std::printf("%d writers: moraine/etcd / postgres = %.2f (without group commit %.2f)",
                    writers, rate["moraine/etcd"] / rate["postgres"],
                    rate["etcd/no-group"] / rate["postgres"]);
        if (hosts) {
          const std::string on = "/" + std::to_string(host_count) + "h";
          std::printf(", on %d hosts %.2f\n", host_count,
                      rate["moraine/etcd" + on] / std::max(rate["postgres" + on], 1e-9));
        } else if (rate["moraine/etcds"] > 0) {
          std::printf(", moraine/etcds / postgres = %.2f\n",
                      rate["moraine/etcds"] / rate["postgres"]);
        } else {
          std::printf("\n");
        }
      }
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "writers_bench: %s\n", error.what());
    return 1;
  }
  return 0;
}
