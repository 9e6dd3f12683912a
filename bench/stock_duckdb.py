"""A connection of the stock DuckDB Python package with moraine and the pinned
DuckLake installed from the local extension repository `make extension` lays
out, and loaded. The benchmarks share one extension directory per run: DuckDB
loads an extension by its installed path, and two copies of moraine in one
process would register moraine's protobuf descriptors twice, which
libprotobuf refuses."""

import subprocess
import sys

import duckdb


def connect(extensions, repository):
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    con.execute(f"SET extension_directory = '{extensions}'")
    con.execute(f"INSTALL moraine FROM '{repository}'")
    con.execute(f"INSTALL ducklake FROM '{repository}'")
    con.execute("LOAD moraine")
    con.execute("LOAD ducklake")
    return con


_ATTACH_PROBE = """
import sys, time, duckdb
con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
con.execute("SET extension_directory = '%s'")
con.execute("SET enable_progress_bar = false")  # stdout carries the figures
for extension in sys.argv[3:]:
    con.execute("LOAD " + extension)
%s
cpu, wall = time.process_time(), time.perf_counter()
con.execute(sys.argv[1])
con.execute(sys.argv[2]).fetchall()
# VmHWM, not getrusage's ru_maxrss: Linux carries that over from the forking
# parent, whose resident set it would then report.
peak_kib = next(int(line.split()[1]) for line in open("/proc/self/status")
                if line.startswith("VmHWM:"))
print(time.process_time() - cpu, time.perf_counter() - wall, peak_kib)
"""


def attach_and_query(extensions, attach, query, loads=("moraine", "ducklake"), threads=None):
    """ATTACH plus a first query in a fresh process, as a user's session
    starts (extension loading excluded): (process CPU, wall) in seconds. The
    extensions in `loads` must be installed in `extensions` already. With
    `threads`, the process runs `SET threads = <threads>` before the timing
    (DuckDB's default otherwise: one per core)."""
    return attach_and_query_with_rss(extensions, attach, query, loads, threads)[:2]


def attach_and_query_with_rss(extensions, attach, query, loads=("moraine", "ducklake"),
                              threads=None):
    """attach_and_query's (process CPU s, wall s), and the process's peak
    resident set in MiB when it has run the query (interpreter and
    extensions included)."""
    setup = f'con.execute("SET threads = {int(threads)}")' if threads is not None else ""
    out = subprocess.run(
        [sys.executable, "-c", _ATTACH_PROBE % (extensions, setup), attach, query, *loads],
        check=True, capture_output=True, text=True,
    ).stdout.split()
    return float(out[0]), float(out[1]), float(out[2]) / 1024
