// ducklake_bench: the same DuckLake workload against a moraine catalog and
// against DuckLake's stock DuckDB-file catalog, in one run, on one machine.
//
// Phases (each statement timed on its own; the median is printed):
//   insert  single-row INSERT commits (inlined, the common small write)
//   alter   ALTER TABLE commits (ADD COLUMN / RENAME COLUMN alternating)
//   create  CREATE TABLE commits in a loop
//   attach  ATTACH of the resulting lake in a fresh database
//
//   moraine_ducklake_bench            1,000 inserts, 200 alters, 100 creates
//   moraine_ducklake_bench --quick    (or MORAINE_BENCH_QUICK=1) a tenth of that

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "duckdb.hpp"
#include "duckdb_shim/host.h"

namespace moraine::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Sizes {
  int inserts;
  int alters;
  int creates;
  int attaches;
};

struct Catalog {
  const char* label;
  // The ATTACH target for a lake in `dir`.
  std::function<std::string(const std::filesystem::path& dir)> target;
};

struct PhaseMedians {
  double insert = 0, alter = 0, create = 0, attach = 0;
};

double Median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

void Run(duckdb::Connection& connection, const std::string& sql) {
  auto result = connection.Query(sql);
  if (result->HasError()) throw std::runtime_error(sql + ": " + result->GetError());
}

double TimeOne(duckdb::Connection& connection, const std::string& sql) {
  const auto start = Clock::now();
  Run(connection, sql);
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string AttachSql(const Catalog& catalog, const std::filesystem::path& dir) {
  return "ATTACH '" + catalog.target(dir) + "' AS lake (DATA_PATH '" + (dir / "files").string() +
         "/')";
}

PhaseMedians Measure(const Catalog& catalog, const Sizes& sizes, const std::filesystem::path& dir) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "files");
  PhaseMedians medians;
  {
    duckdb_shim::Host host;
    auto connection = host.Connect();
    Run(*connection, AttachSql(catalog, dir));
    Run(*connection, "CREATE TABLE lake.events (id BIGINT, payload VARCHAR)");
    std::vector<double> samples;
    for (int i = 0; i < sizes.inserts; ++i) {
      samples.push_back(TimeOne(
          *connection, "INSERT INTO lake.events VALUES (" + std::to_string(i) + ", 'event')"));
    }
    medians.insert = Median(samples);

    samples.clear();
    Run(*connection, "CREATE TABLE lake.evolving (id BIGINT)");
    for (int i = 0; i < sizes.alters; ++i) {
      const std::string column = "c" + std::to_string(i / 2);
      samples.push_back(TimeOne(
          *connection, i % 2 == 0 ? "ALTER TABLE lake.evolving ADD COLUMN " + column + " INTEGER"
                                  : "ALTER TABLE lake.evolving RENAME COLUMN " + column + " TO " +
                                        column + "_r"));
    }
    medians.alter = Median(samples);

    samples.clear();
    for (int i = 0; i < sizes.creates; ++i) {
      samples.push_back(TimeOne(
          *connection, "CREATE TABLE lake.t" + std::to_string(i) + " (id BIGINT, name VARCHAR)"));
    }
    medians.create = Median(samples);
  }
  std::vector<double> samples;
  for (int i = 0; i < sizes.attaches; ++i) {
    duckdb_shim::Host host;
    auto connection = host.Connect();
    samples.push_back(TimeOne(*connection, AttachSql(catalog, dir)));
    Run(*connection, "DETACH lake");
  }
  medians.attach = Median(samples);
  return medians;
}

int Main(int argc, char** argv) {
  const bool quick = (argc > 1 && std::strcmp(argv[1], "--quick") == 0) ||
                     (std::getenv("MORAINE_BENCH_QUICK") != nullptr);
  const Sizes sizes = quick ? Sizes{100, 20, 10, 3} : Sizes{1000, 200, 100, 9};
  const std::filesystem::path root = std::filesystem::temp_directory_path() /
                                     ("moraine-ducklake-bench-" + std::to_string(getpid()));
  const Catalog moraine{"moraine", [](const std::filesystem::path& dir) {
                          return "ducklake:moraine:" + (dir / "lake.moraine").string();
                        }};
  const Catalog stock{"stock", [](const std::filesystem::path& dir) {
                        return "ducklake:" + (dir / "lake.ducklake").string();
                      }};
  std::printf("ducklake_bench: %d inserts, %d alters, %d creates, %d attaches; medians in ms\n",
              sizes.inserts, sizes.alters, sizes.creates, sizes.attaches);
  const PhaseMedians m = Measure(moraine, sizes, root / "moraine");
  const PhaseMedians s = Measure(stock, sizes, root / "stock");
  std::filesystem::remove_all(root);
  std::printf("  %-8s %10s %10s %8s\n", "phase", "moraine", "stock", "ratio");
  const auto row = [](const char* phase, double a, double b) {
    std::printf("  %-8s %10.3f %10.3f %8.2f\n", phase, a, b, a / b);
  };
  row("insert", m.insert, s.insert);
  row("alter", m.alter, s.alter);
  row("create", m.create, s.create);
  row("attach", m.attach, s.attach);
  return 0;
}

}  // namespace
}  // namespace moraine::bench

int main(int argc, char** argv) {
  try {
    return moraine::bench::Main(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ducklake_bench: %s\n", error.what());
    return 1;
  }
}
