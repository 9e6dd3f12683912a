"""A connection of the stock DuckDB Python package with moraine and the pinned
DuckLake installed from the local extension repository `make extension` lays
out, and loaded. The benchmarks share one extension directory per run: DuckDB
loads an extension by its installed path, and two copies of moraine in one
process would register moraine's protobuf descriptors twice, which
libprotobuf refuses."""

import duckdb


def connect(extensions, repository):
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    con.execute(f"SET extension_directory = '{extensions}'")
    con.execute(f"INSTALL moraine FROM '{repository}'")
    con.execute(f"INSTALL ducklake FROM '{repository}'")
    con.execute("LOAD moraine")
    con.execute("LOAD ducklake")
    return con
