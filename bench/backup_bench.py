"""Online backup of a lake on moraine where users run it: the stock DuckDB
Python package of the pinned release with moraine and DuckLake from the
local extension repository (issue #34).

usage: python backup_bench.py REPOSITORY

It builds a lake of SNAPSHOTS snapshots of which FILES wrote a Parquet file
(one-row inserts, inlined, make the rest), through DuckLake SQL, then times
`moraine_backup` into a new backup repository (full), and again after ten
more commits into the same repository (incremental): wall and process CPU
seconds, the catalog's bytes and keys, and the bytes the backup copied. Side
by side, the same statements build the lake on DuckLake's stock DuckDB-file
catalog, whose backup is a copy of its file (which DuckLake's guide says
must not race a writer): that file's size and the time to copy it.

Sizes: MORAINE_BENCH_BACKUP_SNAPSHOTS (default 100000) and
MORAINE_BENCH_BACKUP_FILES (default 10000). Building takes most of the run
(about 10 minutes at the defaults on 2 cores). Nothing here asserts.
"""

import os
import shutil
import sys
import tempfile
import time

import stock_duckdb

REPOSITORY = sys.argv[1]
SNAPSHOTS = int(os.environ.get("MORAINE_BENCH_BACKUP_SNAPSHOTS", "100000"))
FILES = int(os.environ.get("MORAINE_BENCH_BACKUP_FILES", "10000"))


def timed(action):
    cpu, wall = time.process_time(), time.perf_counter()
    result = action()
    return result, time.process_time() - cpu, time.perf_counter() - wall


def directory_bytes(path):
    return sum(
        os.path.getsize(os.path.join(root, name))
        for root, _, names in os.walk(path)
        for name in names
    )


def main():
    work = tempfile.mkdtemp(prefix="moraine-backup-bench-")
    try:
        con = stock_duckdb.connect(os.path.join(work, "extensions"), REPOSITORY)
        con.execute("SET enable_progress_bar = false")
        lakes = {
            "moraine": f"ducklake:moraine:{work}/lake.moraine",
            "stock": f"ducklake:{work}/lake.ducklake",
        }
        for name, location in lakes.items():
            con.execute(
                f"ATTACH '{location}' AS {name} (DATA_PATH '{work}/{name}-files/', "
                "DATA_INLINING_ROW_LIMIT 10)"
            )
            con.execute(f"CREATE TABLE {name}.facts (id BIGINT, note VARCHAR)")

        # The snapshots: every k-th commit writes a file of 100 rows (past the
        # inlining limit), the others insert one inlined row.
        built = 1  # CREATE TABLE
        every = max(1, (SNAPSHOTS - 1) // max(1, FILES))
        files = 0
        start = time.perf_counter()
        while built < SNAPSHOTS:
            for name in lakes:
                if files < FILES and built % every == 0:
                    con.execute(
                        f"INSERT INTO {name}.facts SELECT range, 'file' FROM range({built}, {built} + 100)"
                    )
                else:
                    con.execute(f"INSERT INTO {name}.facts VALUES ({built}, 'row')")
            files += 1 if files < FILES and built % every == 0 else 0
            built += 1
            if built % 10000 == 0:
                print(f"  built {built} snapshots ({files} files), "
                      f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
        print(f"lake: {built} snapshots, {files} data files, built in "
              f"{time.perf_counter() - start:.0f} s")

        backups = os.path.join(work, "backups")
        rows = []
        for label in ("full", "incremental"):
            if label == "incremental":
                for i in range(10):
                    con.execute(f"INSERT INTO moraine.facts VALUES ({-i - 1}, 'later')")
            result, cpu, wall = timed(lambda: con.execute(
                f"SELECT backup_id, snapshot_id, keys, bytes, bytes_copied "
                f"FROM moraine_backup('moraine', '{backups}')").fetchall()[0])
            backup_id, snapshot, keys, total, copied = result
            rows.append((label, backup_id, snapshot, keys, total, copied, cpu, wall))
            con.execute(f"SELECT * FROM moraine_release_backup('moraine', '{backups}')").fetchall()

        print("| backup | id | snapshot | keys | catalog bytes | bytes copied | CPU s | wall s |")
        print("|---|---|---|---|---|---|---|---|")
        for label, backup_id, snapshot, keys, total, copied, cpu, wall in rows:
            print(f"| moraine_backup, {label} | {backup_id} | {snapshot} | {keys:,} | "
                  f"{total:,} | {copied:,} | {cpu:.3f} | {wall:.3f} |")
        print(f"backup repository on disk: {directory_bytes(backups):,} bytes")
        print(f"moraine store on disk: {directory_bytes(os.path.join(work, 'lake.moraine')):,} bytes")

        con.execute("DETACH stock")
        stock_file = os.path.join(work, "lake.ducklake")
        _, cpu, wall = timed(lambda: shutil.copyfile(stock_file, stock_file + ".copy"))
        print(f"stock DuckDB-file catalog: {os.path.getsize(stock_file):,} bytes, copied "
              f"(detached, no writer) in {wall:.3f} s wall, {cpu:.3f} s CPU")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
