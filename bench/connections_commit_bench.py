"""DuckLake commits from several connections of one process, where users run
them: the stock DuckDB Python package of the pinned release, with moraine
loaded as the self-contained extension.

usage: python connections_commit_bench.py REPOSITORY

REPOSITORY is the local extension repository `make extension` lays out.
Each catalog is measured with 1 connection and with 8, every connection
committing one-row INSERTs into a table of its own (so no two commits truly
conflict: every lost race is one another commit won). The runs alternate,
1 and 8 connections, for ROUNDS rounds (env MORAINE_BENCH_ROUNDS, default
3) of SECONDS each (env MORAINE_BENCH_SECONDS, default 8), each on a fresh
lake, so that a slow stretch of this shared machine falls on both sides.
Per catalog and connection count it prints each round's commits per second
(wall), their median, commits that failed after DuckLake's retries, p50/p99
commit latency and the process CPU per commit; then the ratios the issue
asks for, of the medians. DuckLake's retry settings stay at their defaults
(10 retries, 100 ms x 1.5^k backoff), as a user has them. Nothing here
asserts. MORAINE_BENCH_CATALOGS (comma-separated) picks catalogs; duckdb-file
always runs, since the ratios are against it.

  moraine        native manager on: lost races are retried inside the catalog
  moraine-sql    META_NATIVE_MANAGER false: DuckLake's client-side retry loop
  duckdb-file    DuckLake's stock DuckDB-file catalog
"""

import os
import shutil
import statistics
import sys
import tempfile
import threading
import time

import duckdb

import stock_duckdb

REPOSITORY = sys.argv[1]
CONNECTIONS = [1, 8]
SECONDS = float(os.environ.get("MORAINE_BENCH_SECONDS", "8"))
ROUNDS = int(os.environ.get("MORAINE_BENCH_ROUNDS", "3"))
EXTENSIONS = tempfile.mkdtemp(prefix="moraine-bench-extensions-")

CATALOGS = {
    "moraine": lambda d: f"ATTACH 'ducklake:moraine:{d}/lake.moraine' AS lake (DATA_PATH '{d}/files/')",
    "moraine-sql": lambda d: f"ATTACH 'ducklake:moraine:{d}/lake.moraine' AS lake "
    f"(DATA_PATH '{d}/files/', META_NATIVE_MANAGER false)",
    "duckdb-file": lambda d: f"ATTACH 'ducklake:{d}/lake.ducklake' AS lake (DATA_PATH '{d}/files/')",
}


CHOSEN = os.environ.get("MORAINE_BENCH_CATALOGS")
if CHOSEN:
    CATALOGS = {k: v for k, v in CATALOGS.items() if k in CHOSEN.split(",") or k == "duckdb-file"}


def connect():
    return stock_duckdb.connect(EXTENSIONS, REPOSITORY)


def run(attach, connections):
    scratch = tempfile.mkdtemp(prefix="moraine-bench-connections-")
    try:
        con = connect()
        con.execute(attach(scratch))
        for c in range(connections):
            con.execute(f"CREATE TABLE lake.t{c} (i INTEGER, v VARCHAR)")
        latencies = [[] for _ in range(connections)]
        failures = [0] * connections
        errors = []
        cpu = time.process_time()
        start = time.perf_counter()
        deadline = start + SECONDS

        def writer(c):
            cursor = con.cursor()
            cursor.execute("SET threads = 1")
            k = 0
            while time.perf_counter() < deadline:
                begin = time.perf_counter()
                try:
                    cursor.execute(f"INSERT INTO lake.t{c} VALUES ({k}, 'row {k}')")
                    latencies[c].append(time.perf_counter() - begin)
                except duckdb.Error as error:
                    failures[c] += 1
                    if len(errors) < 3:
                        errors.append(str(error).splitlines()[0])
                k += 1

        threads = [threading.Thread(target=writer, args=(c,)) for c in range(connections)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - start
        cpu = time.process_time() - cpu
        everything = sorted(x for per in latencies for x in per)
        commits = len(everything)
        # Every acknowledged commit must be in the lake exactly once.
        landed = sum(con.execute(f"SELECT count(*) FROM lake.t{c}").fetchone()[0] for c in range(connections))
        con.close()
        return {
            "commits_per_s": commits / wall,
            "failed": sum(failures),
            "p50_ms": 1000 * everything[len(everything) // 2] if everything else float("nan"),
            "p99_ms": 1000 * everything[int(len(everything) * 0.99)] if everything else float("nan"),
            "commits": commits,
            "cpu_ms": 1000 * cpu / commits if commits else float("nan"),
            "landed": landed,
            "errors": errors,
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    print(f"DuckLake one-row INSERT commits from N connections of one process, {ROUNDS} rounds of")
    print(f"{SECONDS:.0f} s, 1 and N alternating, each connection on its own table, DuckLake's retry")
    print("settings at their defaults")
    medians = {}
    for name, attach in CATALOGS.items():
        rounds = {n: [] for n in CONNECTIONS}
        for _ in range(ROUNDS):
            for n in CONNECTIONS:
                rounds[n].append(run(attach, n))
        for n in CONNECTIONS:
            rs = rounds[n]
            rates = [r["commits_per_s"] for r in rs]
            medians[(name, n)] = statistics.median(rates)
            line = (
                f"  {name:12s} {n} conn: {medians[(name, n)]:7.1f} commits/s (rounds "
                + " ".join(f"{x:.0f}" for x in rates)
                + f")  failed {sum(r['failed'] for r in rs):4d}  "
                f"p50 {statistics.median(r['p50_ms'] for r in rs):6.2f} ms  "
                f"p99 {statistics.median(r['p99_ms'] for r in rs):7.2f} ms  "
                f"cpu/commit {statistics.median(r['cpu_ms'] for r in rs):5.2f} ms  "
                f"({sum(r['commits'] for r in rs)} acknowledged, {sum(r['landed'] for r in rs)} rows "
                "in the lakes)"
            )
            print(line, flush=True)
            for error in [e for r in rs for e in r["errors"]][:3]:
                print(f"      e.g. {error}")
    print("ratios (of the medians):")
    for name in CATALOGS:
        print(f"  {name:12s} 8 connections / 1: {medians[(name, 8)] / medians[(name, 1)]:.2f}x")
    stock = medians[("duckdb-file", 8)]
    for name in CATALOGS:
        if name != "duckdb-file":
            print(f"  {name:12s} / duckdb-file at 8 connections: {medians[(name, 8)] / stock:.2f}x")
    shutil.rmtree(EXTENSIONS, ignore_errors=True)


if __name__ == "__main__":
    main()
