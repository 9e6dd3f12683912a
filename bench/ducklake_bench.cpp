// ducklake_bench: the same DuckLake workload against a moraine catalog and
// against DuckLake's stock DuckDB-file catalog, in one run, on one machine,
// through DuckLake SQL only.
//
// Phases (each statement timed on its own; medians of wall and process CPU
// time are printed, with the moraine / stock ratio):
//   insert   single-row INSERT commits (inlined, the common small write)
//   alter    ALTER TABLE commits (ADD COLUMN / RENAME COLUMN alternating)
//   create   CREATE TABLE commits in a loop
//   attach   ATTACH of the resulting lake in a fresh database
//   history  single-row INSERT commits into a fresh table at ~0 snapshots and
//            again after the lake has grown to N snapshots (N one-row commits
//            into another table): how commit cost follows history
//   stmts    the statements DuckLake sends to its metadata catalog per commit,
//            counted with DuckDB's query log
//
//   moraine_ducklake_bench            1,000 inserts, 200 alters, 100 creates, 10,000 snapshots
//   moraine_ducklake_bench --quick    (or MORAINE_BENCH_QUICK=1) a tenth of that

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_sample.h"
#include "duckdb.hpp"
#include "ducklake_adapter/host.h"

namespace moraine::bench {
namespace {

struct Sizes {
  int inserts;
  int alters;
  int creates;
  int attaches;
  int history;  // snapshots the history phase grows the lake to
  int probes;   // measured commits at each end of the history phase
};

struct Catalog {
  const char* label;
  // The ATTACH target for a lake in `dir`.
  std::function<std::string(const std::filesystem::path& dir)> target;
};

struct Figures {
  Medians insert, alter, create, attach;
  Medians history_start, history_end;
  double history_build_s = 0;
  double stmts_insert = 0, stmts_alter = 0, stmts_create = 0;
};

void Run(duckdb::Connection& connection, const std::string& sql) {
  auto result = connection.Query(sql);
  if (result->HasError()) throw std::runtime_error(sql + ": " + result->GetError());
}

int64_t QueryCount(duckdb::Connection& connection, const std::string& sql) {
  auto result = connection.Query(sql);
  if (result->HasError()) throw std::runtime_error(sql + ": " + result->GetError());
  return result->GetValue(0, 0).GetValue<int64_t>();
}

Sample Time(duckdb::Connection& connection, const std::string& sql) {
  return TimeOne([&] { Run(connection, sql); });
}

std::string AttachSql(const Catalog& catalog, const std::filesystem::path& dir) {
  return "ATTACH '" + catalog.target(dir) + "' AS lake (DATA_PATH '" + (dir / "files").string() +
         "/')";
}

void FreshDir(const std::filesystem::path& dir) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "files");
}

std::string InsertSql(const std::string& table, int i) {
  return "INSERT INTO lake." + table + " VALUES (" + std::to_string(i) + ", 'event')";
}

std::string AlterSql(int i) {
  const std::string column = "c" + std::to_string(i / 2);
  return i % 2 == 0 ? "ALTER TABLE lake.evolving ADD COLUMN " + column + " INTEGER"
                    : "ALTER TABLE lake.evolving RENAME COLUMN " + column + " TO " + column + "_r";
}

std::string CreateSql(int i) {
  return "CREATE TABLE lake.t" + std::to_string(i) + " (id BIGINT, name VARCHAR)";
}

void MeasureWorkload(const Catalog& catalog, const Sizes& sizes, const std::filesystem::path& dir,
                     Figures& figures) {
  FreshDir(dir);
  {
    ducklake_adapter::Host host;
    auto connection = host.Connect();
    Run(*connection, AttachSql(catalog, dir));
    Run(*connection, "CREATE TABLE lake.events (id BIGINT, payload VARCHAR)");
    std::vector<Sample> samples;
    for (int i = 0; i < sizes.inserts; ++i)
      samples.push_back(Time(*connection, InsertSql("events", i)));
    figures.insert = MediansOf(samples);

    samples.clear();
    Run(*connection, "CREATE TABLE lake.evolving (id BIGINT)");
    for (int i = 0; i < sizes.alters; ++i) samples.push_back(Time(*connection, AlterSql(i)));
    figures.alter = MediansOf(samples);

    samples.clear();
    for (int i = 0; i < sizes.creates; ++i) samples.push_back(Time(*connection, CreateSql(i)));
    figures.create = MediansOf(samples);
  }
  std::vector<Sample> samples;
  for (int i = 0; i < sizes.attaches; ++i) {
    ducklake_adapter::Host host;
    auto connection = host.Connect();
    samples.push_back(Time(*connection, AttachSql(catalog, dir)));
    Run(*connection, "DETACH lake");
  }
  figures.attach = MediansOf(samples);
}

void MeasureHistory(const Catalog& catalog, const Sizes& sizes, const std::filesystem::path& dir,
                    Figures& figures) {
  FreshDir(dir);
  ducklake_adapter::Host host;
  auto connection = host.Connect();
  Run(*connection, AttachSql(catalog, dir));
  Run(*connection, "CREATE TABLE lake.probe (id BIGINT, payload VARCHAR)");
  Run(*connection, "CREATE TABLE lake.filler (id BIGINT, payload VARCHAR)");
  std::vector<Sample> samples;
  for (int i = 0; i < sizes.probes; ++i)
    samples.push_back(Time(*connection, InsertSql("probe", i)));
  figures.history_start = MediansOf(samples);

  const auto snapshots = [&] {
    return QueryCount(*connection, "SELECT count(*) FROM lake.snapshots()");
  };
  const Sample build = TimeOne([&] {
    for (int64_t i = snapshots(); i < sizes.history; ++i) {
      Run(*connection, InsertSql("filler", static_cast<int>(i)));
    }
  });
  figures.history_build_s = build.wall_ms / 1e3;

  samples.clear();
  for (int i = 0; i < sizes.probes; ++i) {
    samples.push_back(Time(*connection, InsertSql("probe", sizes.probes + i)));
  }
  figures.history_end = MediansOf(samples);
}

// The statements DuckLake sent to its metadata catalog per commit while
// `sqls` ran, from DuckDB's query log: everything logged (BEGIN and COMMIT
// included) except the user's own statements and the call that ends logging.
double StatementsPerCommit(duckdb::Connection& connection, const std::vector<std::string>& sqls) {
  Run(connection, "CALL truncate_duckdb_logs()");
  Run(connection, "CALL enable_logging('QueryLog')");
  for (const auto& sql : sqls) Run(connection, sql);
  Run(connection, "CALL disable_logging()");
  auto result = connection.Query(
      "SELECT trim(message) FROM duckdb_logs WHERE type = 'QueryLog' AND trim(message) NOT LIKE "
      "'CALL disable_logging()%'");
  if (result->HasError()) throw std::runtime_error(result->GetError());
  size_t count = 0;
  for (duckdb::idx_t row = 0; row < result->RowCount(); ++row) {
    const std::string message = result->GetValue(0, row).ToString();
    if (std::find(sqls.begin(), sqls.end(), message) == sqls.end()) ++count;
  }
  return static_cast<double>(count) / static_cast<double>(sqls.size());
}

void MeasureStatements(const Catalog& catalog, const std::filesystem::path& dir, Figures& figures) {
  FreshDir(dir);
  ducklake_adapter::Host host;
  auto connection = host.Connect();
  Run(*connection, AttachSql(catalog, dir));
  Run(*connection, "CREATE TABLE lake.events (id BIGINT, payload VARCHAR)");
  Run(*connection, "CREATE TABLE lake.evolving (id BIGINT)");
  Run(*connection, InsertSql("events", 0));  // the first insert creates the inlined table
  constexpr int kCommits = 6;
  std::vector<std::string> inserts, alters, creates;
  for (int i = 0; i < kCommits; ++i) {
    inserts.push_back(InsertSql("events", i + 1));
    alters.push_back(AlterSql(i));
    creates.push_back(CreateSql(i));
  }
  figures.stmts_insert = StatementsPerCommit(*connection, inserts);
  figures.stmts_alter = StatementsPerCommit(*connection, alters);
  figures.stmts_create = StatementsPerCommit(*connection, creates);
}

void PrintRow(const char* phase, const Medians& m, const Medians& s) {
  std::printf("  %-8s %9.3f %9.3f %7.2f   %9.3f %9.3f %7.2f\n", phase, m.cpu_ms, s.cpu_ms,
              m.cpu_ms / s.cpu_ms, m.wall_ms, s.wall_ms, m.wall_ms / s.wall_ms);
}

int Main(int argc, char** argv) {
  const bool quick = (argc > 1 && std::strcmp(argv[1], "--quick") == 0) ||
                     (std::getenv("MORAINE_BENCH_QUICK") != nullptr);
  const Sizes sizes = quick ? Sizes{100, 20, 10, 3, 1000, 21} : Sizes{1000, 200, 100, 9, 10000, 51};
  const std::filesystem::path root = std::filesystem::temp_directory_path() /
                                     ("moraine-ducklake-bench-" + std::to_string(getpid()));
  const Catalog moraine{"moraine", [](const std::filesystem::path& dir) {
                          return "ducklake:moraine:" + (dir / "lake.moraine").string();
                        }};
  const Catalog stock{"stock", [](const std::filesystem::path& dir) {
                        return "ducklake:" + (dir / "lake.ducklake").string();
                      }};
  std::printf(
      "ducklake_bench: %d inserts, %d alters, %d creates, %d attaches; history to %d snapshots "
      "(%d commits measured at each end); medians in ms\n",
      sizes.inserts, sizes.alters, sizes.creates, sizes.attaches, sizes.history, sizes.probes);
  Figures m, s;
  // Interleaved phase by phase, so a noisy spell on the shared machine hits
  // both catalogs alike rather than one of them.
  MeasureWorkload(moraine, sizes, root / "moraine", m);
  MeasureWorkload(stock, sizes, root / "stock", s);
  MeasureStatements(moraine, root / "moraine-stmts", m);
  MeasureStatements(stock, root / "stock-stmts", s);
  MeasureHistory(moraine, sizes, root / "moraine-history", m);
  MeasureHistory(stock, sizes, root / "stock-history", s);
  std::filesystem::remove_all(root);

  std::printf("  %-8s %9s %9s %7s   %9s %9s %7s\n", "phase", "cpu:mor", "cpu:stock", "ratio",
              "wall:mor", "wall:stock", "ratio");
  PrintRow("insert", m.insert, s.insert);
  PrintRow("alter", m.alter, s.alter);
  PrintRow("create", m.create, s.create);
  PrintRow("attach", m.attach, s.attach);
  PrintRow("hist@0", m.history_start, s.history_start);
  const std::string at_n = "hist@" + std::to_string(sizes.history / 1000) + "k";
  PrintRow(at_n.c_str(), m.history_end, s.history_end);
  std::printf(
      "  history growth (cpu @%d / @0): moraine %.2fx, stock %.2fx; building it took %.1f s "
      "(moraine), %.1f s (stock)\n",
      sizes.history, m.history_end.cpu_ms / m.history_start.cpu_ms,
      s.history_end.cpu_ms / s.history_start.cpu_ms, m.history_build_s, s.history_build_s);
  std::printf("  catalog statements per commit (query log): %-7s moraine %5.1f  stock %5.1f\n",
              "insert", m.stmts_insert, s.stmts_insert);
  std::printf("  catalog statements per commit (query log): %-7s moraine %5.1f  stock %5.1f\n",
              "alter", m.stmts_alter, s.stmts_alter);
  std::printf("  catalog statements per commit (query log): %-7s moraine %5.1f  stock %5.1f\n",
              "create", m.stmts_create, s.stmts_create);
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
