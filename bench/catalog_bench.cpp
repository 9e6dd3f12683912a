// moraine_bench: how commit latency and catalog-open time follow table width
// and history depth, on an on-disk store with the default synced writes.
//
// It drives the verb path (commit::Catalog), which stages DuckLake's rows on
// the same RowTransaction DuckLake's SQL drives, but without DuckDB and
// DuckLake in the loop: a unit benchmark of the core, not the product's
// figure (that is what DuckLake on moraine costs: bench/ducklake_bench.cpp,
// `make bench-stock`). Its lines say so.
//
// The design's claims (RFC 0012, invariant 2): a column commit costs what it
// touches, not the table's width or the lake's history, and opening a catalog
// scans `current` only. Each claim is printed as a flatness ratio (slowest
// case / fastest case; 1.00 is perfectly flat) on the last line:
//
//   flatness (verb path): width W history H open O
//
// W: add/rename commit medians across widths 10/1,000/10,000 at history 0
//    (the larger of the two ops' ratios); H: the same across history depths
//    0/10,000/100,000 at width 10; O: open medians across those depths.
//
// History is built fast and honestly: the same commits, on a store opened
// with sync=false, renaming a column of a small side table back and forth
// (each rename ends a version into history, the live catalog stays small);
// the store is flushed and reopened with sync=true before measuring.
//
//   moraine_bench            full sizes
//   moraine_bench --quick    (or MORAINE_BENCH_QUICK=1) small sizes, a smoke test

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

#include "commit/verbs/catalog.h"
#include "store/kv_store.h"
#include "store/rocksdb/rocksdb_store.h"

namespace moraine::bench {
namespace {

using catalog::ColumnDef;
using catalog::Id;
using commit::Catalog;
using commit::Transaction;
using Clock = std::chrono::steady_clock;

struct Sizes {
  std::vector<int> widths;
  std::vector<int> histories;
  int commits;  // measured commits per case
  int opens;    // measured opens per case
};

double Millis(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "moraine-bench-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    root_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  std::string path() const { return (root_ / "lake.moraine").string(); }

 private:
  std::filesystem::path root_;
};

std::vector<ColumnDef> Columns(int width) {
  std::vector<ColumnDef> columns;
  columns.reserve(width);
  for (int i = 0; i < width; ++i)
    columns.push_back(ColumnDef::Leaf("c" + std::to_string(i), "int32"));
  return columns;
}

// A store holding table `m` (`width` columns) and a two-column side table
// renamed `history` times. Built unsynced, then flushed and closed.
void BuildStore(const std::string& dir, int width, int history) {
  store::KvOptions options;
  options.location = dir;
  options.sync = false;
  std::shared_ptr<store::KvStore> kv = store::OpenKvStore(options);
  {
    auto catalog = Catalog::Open(kv);
    Id side = 0;
    catalog->Commit([&](Transaction& txn) {
      txn.CreateTable("main", "m", Columns(width));
      side = txn.CreateTable("main", "side",
                             {ColumnDef::Leaf("x", "int32"), ColumnDef::Leaf("k", "int64")});
    });
    for (int h = 0; h < history; ++h) {
      const bool even = h % 2 == 0;
      catalog->Commit(
          [&](Transaction& txn) { txn.RenameColumn(side, {even ? "x" : "y"}, even ? "y" : "x"); });
    }
  }
  if (auto* rocks = dynamic_cast<store::RocksDbStore*>(kv.get())) rocks->Flush();
}

std::unique_ptr<Catalog> OpenSynced(const std::string& dir) {
  return Catalog::Open(commit::CatalogOptions{.location = dir});  // sync = true by default
}

double MedianOpenMs(const std::string& dir, int opens) {
  OpenSynced(dir).reset();  // warm the page cache and recover once
  std::vector<double> samples;
  for (int i = 0; i < opens; ++i) {
    const auto start = Clock::now();
    auto catalog = OpenSynced(dir);
    samples.push_back(Millis(Clock::now() - start));
  }
  return Median(samples);
}

// Median of `commits` timed calls of `measured(i)`; `untimed(i)` follows each
// (it restores the table's width). A few warm-up rounds come first.
double MedianCommitMs(Catalog& catalog, int commits,
                      const std::function<void(Transaction&, int)>& measured,
                      const std::function<void(Transaction&, int)>& untimed) {
  std::vector<double> samples;
  constexpr int kWarmup = 5;
  for (int i = 0; i < kWarmup + commits; ++i) {
    const auto start = Clock::now();
    catalog.Commit([&](Transaction& txn) { measured(txn, i); });
    const auto elapsed = Clock::now() - start;
    if (i >= kWarmup) samples.push_back(Millis(elapsed));
    if (untimed) catalog.Commit([&](Transaction& txn) { untimed(txn, i); });
  }
  return Median(samples);
}

struct Row {
  int width;
  int history;
  double add_ms;
  double rename_ms;
  double open_ms;
};

Row Measure(int width, int history, const Sizes& sizes) {
  TempDir dir;
  BuildStore(dir.path(), width, history);
  Row row{width, history, 0, 0, 0};
  row.open_ms = MedianOpenMs(dir.path(), sizes.opens);
  auto catalog = OpenSynced(dir.path());
  const Id table = catalog->Head()->FindTable(0, "m")->id();
  // Add a column, then (untimed) drop it again: the width stays put.
  row.add_ms = MedianCommitMs(
      *catalog, sizes.commits,
      [&](Transaction& txn, int i) {
        txn.AddColumn(table, {}, ColumnDef::Leaf("added" + std::to_string(i), "int32"));
      },
      [&](Transaction& txn, int i) { txn.DropColumn(table, {"added" + std::to_string(i)}); });
  // Rename c0 back and forth.
  row.rename_ms = MedianCommitMs(
      *catalog, sizes.commits,
      [&](Transaction& txn, int i) {
        txn.RenameColumn(table, {i % 2 ? "c0_renamed" : "c0"}, i % 2 ? "c0" : "c0_renamed");
      },
      nullptr);
  std::printf(
      "  verb path  width %6d  history %7d   add %8.3f ms   rename %8.3f ms   open %9.3f ms\n",
      width, history, row.add_ms, row.rename_ms, row.open_ms);
  std::fflush(stdout);
  return row;
}

double Spread(const std::vector<double>& values) {
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  return *high / *low;
}

int Run(bool quick) {
  const Sizes sizes = quick ? Sizes{{10, 100, 1000}, {0, 500, 2000}, 15, 5}
                            : Sizes{{10, 1000, 10000}, {0, 10000, 100000}, 101, 15};
  std::printf(
      "moraine_bench%s: verb path (unit benchmark, not the product's figure); on-disk RocksDB "
      "store, synced writes; medians of %d commits, %d opens\n",
      quick ? " (quick)" : "", sizes.commits, sizes.opens);

  std::vector<Row> by_width, by_history;
  for (int width : sizes.widths) by_width.push_back(Measure(width, 0, sizes));
  by_history.push_back(by_width.front());  // width 10, history 0
  for (int history : sizes.histories) {
    if (history != 0) by_history.push_back(Measure(sizes.widths.front(), history, sizes));
  }

  auto column = [](const std::vector<Row>& rows, double Row::*field) {
    std::vector<double> values;
    for (const Row& row : rows) values.push_back(row.*field);
    return values;
  };
  const double width_flatness =
      std::max(Spread(column(by_width, &Row::add_ms)), Spread(column(by_width, &Row::rename_ms)));
  const double history_flatness = std::max(Spread(column(by_history, &Row::add_ms)),
                                           Spread(column(by_history, &Row::rename_ms)));
  const double open_flatness = Spread(column(by_history, &Row::open_ms));
  std::printf("flatness (verb path): width %.2f history %.2f open %.2f\n", width_flatness,
              history_flatness, open_flatness);
  return 0;
}

}  // namespace
}  // namespace moraine::bench

int main(int argc, char** argv) {
  bool quick = false;
  if (const char* env = std::getenv("MORAINE_BENCH_QUICK")) quick = std::strcmp(env, "1") == 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else {
      std::fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
      return 2;
    }
  }
  try {
    return moraine::bench::Run(quick);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "moraine_bench: %s\n", error.what());
    return 1;
  }
}
