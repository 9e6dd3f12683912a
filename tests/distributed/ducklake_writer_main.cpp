// moraine_ducklake_writer: one DuckLake writer process, for the multi-writer
// tests and the writer benchmark. It opens its own DuckDB (moraine registered,
// the pinned DuckLake loaded), runs the setup statements, then commits
// one-row INSERTs, one autocommit statement each, through DuckLake SQL:
//
//   moraine_ducklake_writer --writer W --table lake.t --commits N
//                           [--seconds S] [--start-file F]
//                           [--alter-every A] [--sql STATEMENT]...
//
// Every --sql statement runs first, in order (LOAD, ATTACH, SET ...); any
// failure there exits 2. Commit k (0-based) is `INSERT INTO <table> (w, k)
// VALUES (W, k)`, or with --alter-every A, when k % A == A - 1, the schema
// change `ALTER TABLE <table> ADD COLUMN c<W>_<k> INTEGER` (a true conflict
// for every other writer's commit in flight on that table). With --seconds it stops at N commits or
// after S seconds from its first commit, whichever comes first. Once attached it prints `ready`;
// with --start-file F its first commit then waits until the file F exists, so that several writers
// commit over one window that opens once all of them are ready, whatever attaching took. Then one
// line per commit on stdout, flushed as it happens:
//
//   ok <k> <latency in microseconds> <done at>
//   fail <k> <latency in microseconds> <done at> <DuckDB's error, on one line>
//
// <done at> is the steady clock (CLOCK_MONOTONIC, one clock for every process
// of the machine) in microseconds when the statement returned.
//
// A failed commit does not stop the writer: the next k is tried. After the
// loop, one line of moraine's native-manager counters (how the commits were
// settled: DuckLake's re-checks, rebases), zeros when DuckLake used no moraine
// catalog:
//
//   counters <name>=<value> ...
//
// The exit status is 0 once the loop ends, whatever the commits did; the
// caller judges.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "duckdb.hpp"
#include "ducklake_adapter/host.h"

namespace {

struct Args {
  int writer = 0;
  std::string table;
  long commits = 0;
  double seconds = 0;
  std::string start_file;  // "": no wait
  long alter_every = 0;    // 0: inserts only
  std::vector<std::string> sql;
};

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "moraine_ducklake_writer: %s\nusage: moraine_ducklake_writer --writer W --table T "
               "--commits N [--seconds S] [--start-file F] [--alter-every A] "
               "[--sql STATEMENT]...\n",
               why);
  std::exit(2);
}

Args Parse(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) Usage(("no value after " + flag).c_str());
    const std::string value = argv[++i];
    if (flag == "--writer") {
      args.writer = std::atoi(value.c_str());
    } else if (flag == "--table") {
      args.table = value;
    } else if (flag == "--commits") {
      args.commits = std::atol(value.c_str());
    } else if (flag == "--seconds") {
      args.seconds = std::atof(value.c_str());
    } else if (flag == "--start-file") {
      args.start_file = value;
    } else if (flag == "--alter-every") {
      args.alter_every = std::atol(value.c_str());
    } else if (flag == "--sql") {
      args.sql.push_back(value);
    } else {
      Usage(("unknown flag " + flag).c_str());
    }
  }
  if (args.table.empty() || args.commits <= 0) Usage("--table and --commits > 0 are required");
  return args;
}

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = Parse(argc, argv);
  moraine::ducklake_adapter::Host host;
  auto connection = host.Connect();
  // DuckLake's catalog cache has an upstream race with several threads.
  std::vector<std::string> setup = {"SET threads = 1"};
  setup.insert(setup.end(), args.sql.begin(), args.sql.end());
  for (const auto& statement : setup) {
    auto result = connection->Query(statement);
    if (result->HasError()) {
      std::fprintf(stderr, "moraine_ducklake_writer: %s -> %s\n", statement.c_str(),
                   result->GetError().c_str());
      return 2;
    }
  }
  using Clock = std::chrono::steady_clock;
  // Attached: a run waiting for all its writers (WriterProcesses::AwaitReady)
  // learns it here.
  std::printf("ready\n");
  std::fflush(stdout);
  // Every 1 ms: 16 waiting writers make 16,000 stat calls a second, a few
  // ms of CPU, and start within a millisecond of the file.
  while (!args.start_file.empty() && !std::filesystem::exists(args.start_file)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const auto stop = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(args.seconds));
  for (long k = 0; k < args.commits; ++k) {
    if (args.seconds > 0 && Clock::now() >= stop) break;
    const bool alter = args.alter_every > 0 && k % args.alter_every == args.alter_every - 1;
    const std::string statement =
        alter ? "ALTER TABLE " + args.table + " ADD COLUMN c" + std::to_string(args.writer) + "_" +
                    std::to_string(k) + " INTEGER"
              : "INSERT INTO " + args.table + " (w, k) VALUES (" + std::to_string(args.writer) +
                    ", " + std::to_string(k) + ")";
    const auto begin = Clock::now();
    auto result = connection->Query(statement);
    const auto end = Clock::now();
    const long long micros =
        std::chrono::duration_cast<std::chrono::microseconds>(end - begin).count();
    const long long done =
        std::chrono::duration_cast<std::chrono::microseconds>(end.time_since_epoch()).count();
    if (result->HasError()) {
      std::printf("fail %ld %lld %lld %s\n", k, micros, done, OneLine(result->GetError()).c_str());
    } else {
      std::printf("ok %ld %lld %lld\n", k, micros, done);
    }
    std::fflush(stdout);
  }
  auto counters = connection->Query(
      "SELECT in_catalog_commits, native_conflict_checks, rebased_commits, group_landed_commits "
      "FROM moraine_native_manager()");
  if (counters->HasError() || counters->RowCount() != 1) {
    std::fprintf(stderr, "moraine_ducklake_writer: moraine_native_manager() -> %s\n",
                 counters->HasError() ? counters->GetError().c_str() : "no row");
    return 2;
  }
  std::printf("counters");
  for (duckdb::idx_t column = 0; column < counters->ColumnCount(); ++column) {
    std::printf(" %s=%s", counters->ColumnName(column).c_str(),
                counters->GetValue(column, 0).ToString().c_str());
  }
  std::printf("\n");
  return 0;
}
