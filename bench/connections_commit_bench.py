"""DuckLake commits from several connections of one process, where users run
them: the stock DuckDB Python package of the pinned release, with moraine
loaded as the self-contained extension.

usage: python connections_commit_bench.py REPOSITORY

REPOSITORY is the local extension repository `make extension` lays out.
Each catalog is measured with 1 connection and with 8, every connection
committing one-row INSERTs into a table of its own (so no two commits truly
conflict: every lost race is one another commit won). Per catalog and
connection count it prints commits per second (wall), commits that failed
after DuckLake's retries, and p50/p99 commit latency; then the ratios the
issue asks for. DuckLake's retry settings stay at their defaults (10 retries,
100 ms x 1.5^k backoff), as a user has them. Nothing here asserts.

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
SECONDS = float(os.environ.get("MORAINE_BENCH_SECONDS", "20"))
EXTENSIONS = tempfile.mkdtemp(prefix="moraine-bench-extensions-")

CATALOGS = {
    "moraine": lambda d: f"ATTACH 'ducklake:moraine:{d}/lake.moraine' AS lake (DATA_PATH '{d}/files/')",
    "moraine-sql": lambda d: f"ATTACH 'ducklake:moraine:{d}/lake.moraine' AS lake "
    f"(DATA_PATH '{d}/files/', META_NATIVE_MANAGER false)",
    "duckdb-file": lambda d: f"ATTACH 'ducklake:{d}/lake.ducklake' AS lake (DATA_PATH '{d}/files/')",
}


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
            "landed": landed,
            "errors": errors,
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    print(f"DuckLake one-row INSERT commits from N connections of one process, {SECONDS:.0f} s each,")
    print("each connection on its own table, DuckLake's retry settings at their defaults")
    results = {}
    for name, attach in CATALOGS.items():
        for n in CONNECTIONS:
            r = run(attach, n)
            results[(name, n)] = r
            line = (
                f"  {name:12s} {n} conn: {r['commits_per_s']:7.1f} commits/s  failed {r['failed']:4d}  "
                f"p50 {r['p50_ms']:7.2f} ms  p99 {r['p99_ms']:8.2f} ms  ({r['commits']} acknowledged, "
                f"{r['landed']} rows in the lake)"
            )
            print(line, flush=True)
            for error in r["errors"]:
                print(f"      e.g. {error}")
    print("ratios:")
    for name in CATALOGS:
        one, eight = results[(name, 1)], results[(name, 8)]
        print(f"  {name:12s} 8 connections / 1: {eight['commits_per_s'] / one['commits_per_s']:.2f}x")
    stock = results[("duckdb-file", 8)]["commits_per_s"]
    for name in ("moraine", "moraine-sql"):
        print(f"  {name:12s} / duckdb-file at 8 connections: {results[(name, 8)]['commits_per_s'] / stock:.2f}x")
    shutil.rmtree(EXTENSIONS, ignore_errors=True)


if __name__ == "__main__":
    main()
