"""moraine_rollback on a wide lake where users run it: the stock DuckDB Python
package of the pinned release with moraine and DuckLake from the local
extension repository (issue #34).

usage: python rollback_bench.py REPOSITORY

It builds a lake of TABLES tables of three columns, each with one inlined
row, through DuckLake SQL (two commits: the tables, then their rows), then
repeats ROUNDS times: a one-row commit into one table, and a rollback to the
snapshot before it (which ends that row in one new snapshot). It prints the
median wall and process CPU milliseconds of each, and, side by side, of the
same one-row commit on DuckLake's stock DuckDB-file catalog holding the same
tables (which has no rollback). A rollback reads every versioned row of the
catalog to find what differs, so its cost grows with the catalog; a one-row
commit's does not.

Sizes: MORAINE_BENCH_ROLLBACK_TABLES (default 10000),
MORAINE_BENCH_ROLLBACK_ROUNDS (default 9). Nothing here asserts.
"""

import os
import shutil
import statistics
import sys
import tempfile
import time

import stock_duckdb

REPOSITORY = sys.argv[1]
TABLES = int(os.environ.get("MORAINE_BENCH_ROLLBACK_TABLES", "10000"))
ROUNDS = int(os.environ.get("MORAINE_BENCH_ROLLBACK_ROUNDS", "9"))


def timed(action):
    cpu, wall = time.process_time(), time.perf_counter()
    action()
    return (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000


def head(con, lake):
    return con.execute(
        f"SELECT max(snapshot_id) FROM ducklake_snapshots('{lake}')").fetchall()[0][0]


def main():
    work = tempfile.mkdtemp(prefix="moraine-rollback-bench-")
    try:
        con = stock_duckdb.connect(os.path.join(work, "extensions"), REPOSITORY)
        con.execute("SET enable_progress_bar = false")
        lakes = {
            "moraine": f"ducklake:moraine:{work}/lake.moraine",
            "stock": f"ducklake:{work}/lake.ducklake",
        }
        start = time.perf_counter()
        for name, location in lakes.items():
            con.execute(f"ATTACH '{location}' AS {name} (DATA_PATH '{work}/{name}-files/')")
            con.execute("BEGIN")
            for t in range(TABLES):
                con.execute(f"CREATE TABLE {name}.t{t} (i BIGINT, s VARCHAR, d DOUBLE)")
            con.execute("COMMIT")
            con.execute("BEGIN")
            for t in range(TABLES):
                con.execute(f"INSERT INTO {name}.t{t} VALUES ({t}, 'row', {t}.5)")
            con.execute("COMMIT")
        print(f"lakes: {TABLES} tables of 3 columns with one inlined row each, built in "
              f"{time.perf_counter() - start:.0f} s")

        timings = {"moraine one-row commit": [], "moraine_rollback": [],
                   "stock one-row commit": []}
        for r in range(ROUNDS):
            target = head(con, "moraine")
            timings["moraine one-row commit"].append(
                timed(lambda: con.execute(f"INSERT INTO moraine.t{r} VALUES (-1, 'more', 0)")))
            timings["stock one-row commit"].append(
                timed(lambda: con.execute(f"INSERT INTO stock.t{r} VALUES (-1, 'more', 0)")))
            timings["moraine_rollback"].append(timed(lambda: con.execute(
                f"CALL moraine_rollback('moraine', to_snapshot => {target})").fetchall()))
            assert con.execute(f"SELECT count(*) FROM moraine.t{r}").fetchall()[0][0] == 1

        print(f"| operation at {TABLES:,} tables | median wall ms | median CPU ms |")
        print("|---|---|---|")
        for label, samples in timings.items():
            cpu = statistics.median(s[0] for s in samples)
            wall = statistics.median(s[1] for s in samples)
            print(f"| {label} | {wall:.1f} | {cpu:.1f} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
