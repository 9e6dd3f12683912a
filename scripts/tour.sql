-- The moraine tour in the stock DuckDB CLI (`make run` runs it from the build
-- directory as `duckdb -unsigned -f tour.sql`): a DuckLake lake whose catalog
-- is a moraine store. Every line below is what a user types.
.echo on
-- Keep the tour's installs in the build tree (a user leaves this line out
-- and installs into ~/.duckdb/extensions).
SET extension_directory = 'tour/extensions';

-- moraine and the pinned DuckLake, from the local extension repository that
-- `make extension` lays out (moraine is unsigned: hence -unsigned).
INSTALL moraine FROM 'repository';
INSTALL ducklake FROM 'repository';
LOAD moraine;
LOAD ducklake;

-- Attach a lake: its catalog is a moraine store (a directory), its data Parquet files.
ATTACH 'ducklake:moraine:tour/lake.moraine' AS lake (DATA_PATH 'tour/files/');

-- Create a table, and insert rows (small inserts are inlined into the catalog itself).
CREATE TABLE lake.orders (id INTEGER, name VARCHAR);
INSERT INTO lake.orders VALUES (1, 'anvil'), (2, 'rope');

-- Evolve the schema: a new column with a default; a rename keeps the field id.
ALTER TABLE lake.orders ADD COLUMN status VARCHAR DEFAULT 'new';
ALTER TABLE lake.orders RENAME COLUMN name TO item;
INSERT INTO lake.orders VALUES (3, 'glue', 'shipped');
SELECT * FROM lake.orders ORDER BY id;

-- Time travel: the table as of snapshot 2, before both ALTERs.
SELECT * FROM lake.orders AT (VERSION => 2) ORDER BY id;
SELECT snapshot_id, schema_version, changes FROM lake.snapshots() ORDER BY snapshot_id;

-- Under the hood: every column change ended a version and began a new one.
SELECT column_id, column_name, column_type, begin_snapshot, end_snapshot
FROM __ducklake_metadata_lake.ducklake_column ORDER BY column_id, begin_snapshot;
