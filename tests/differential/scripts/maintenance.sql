-- Maintenance: compaction (merge_adjacent_files, rewrite_data_files),
-- expiring snapshots (by version and older_than), cleanup of old files,
-- files added from outside (ducklake_add_data_files), and a VARIANT column.
CREATE TABLE LAKE.t (id INTEGER, v VARCHAR);
INSERT INTO LAKE.t SELECT i, 'a' || i FROM range(0, 20) r(i);
INSERT INTO LAKE.t SELECT i, 'b' || i FROM range(20, 40) r(i);
INSERT INTO LAKE.t SELECT i, 'c' || i FROM range(40, 60) r(i);
DELETE FROM LAKE.t WHERE id % 4 = 0;
CALL ducklake_flush_inlined_data('LAKE');
CALL ducklake_merge_adjacent_files('LAKE');
INSERT INTO LAKE.t SELECT i, 'd' || i FROM range(60, 80) r(i);
DELETE FROM LAKE.t WHERE id % 5 = 0;
CALL ducklake_flush_inlined_data('LAKE');
CALL ducklake_rewrite_data_files('LAKE', 't', delete_threshold => 0);
-- Its result lists the expired snapshots; their commit times differ.
SELECT snapshot_id, schema_version, changes FROM ducklake_expire_snapshots('LAKE', versions => [2, 3]);
CALL ducklake_cleanup_old_files('LAKE', cleanup_all => true);
INSERT INTO LAKE.t SELECT i, 'e' || i FROM range(80, 100) r(i);
UPDATE LAKE.t SET v = 'upd' WHERE id % 7 = 0;
CALL ducklake_flush_inlined_data('LAKE');
CALL ducklake_merge_adjacent_files('LAKE', 't');
-- Files written outside DuckLake, added by path (no field ids: a name mapping).
COPY (SELECT i::INTEGER AS id, 'x' || i AS v FROM range(500, 520) r(i)) TO 'SCRATCH/external.parquet';
CALL ducklake_add_data_files('LAKE', 't', 'SCRATCH/external.parquet');
CREATE TABLE LAKE.other (a BIGINT, b DOUBLE);
COPY (SELECT i::BIGINT AS a, i / 2 AS b FROM range(0, 10) r(i)) TO 'SCRATCH/other.parquet';
CALL ducklake_add_data_files('LAKE', 'other', 'SCRATCH/other.parquet');
-- A VARIANT column: per-file variant statistics.
CREATE TABLE LAKE.var (id INTEGER, j VARIANT);
INSERT INTO LAKE.var SELECT i, (CASE WHEN i % 2 = 0 THEN i::VARIANT ELSE ('s' || i)::VARIANT END) FROM range(0, 30) r(i);
-- Shredded objects: one ducklake_file_variant_stats row per field.
INSERT INTO LAKE.var SELECT i, {'a': i, 'b': 's' || i}::VARIANT FROM range(30, 60) r(i);
SELECT snapshot_id, schema_version, changes FROM ducklake_expire_snapshots('LAKE', older_than => now());
CALL ducklake_cleanup_old_files('LAKE', cleanup_all => true);
INSERT INTO LAKE.t SELECT i, 'f' || i FROM range(100, 130) r(i);
