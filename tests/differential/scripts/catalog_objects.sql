-- Catalog objects beyond tables and columns: views, comments (tags and
-- column tags), macros, options (set_option at lake, schema and table
-- scope), partitioning and sort keys, and the rows they write.
CREATE SCHEMA LAKE.s1;
CREATE TABLE LAKE.t (id INTEGER, part_key INTEGER, v VARCHAR, ts TIMESTAMP);
INSERT INTO LAKE.t SELECT i, i % 3, 'v' || i, TIMESTAMP '2024-01-01' + INTERVAL (i) DAY FROM range(0, 30) r(i);
CREATE VIEW LAKE.v AS SELECT id, v FROM LAKE.t WHERE id % 2 = 0;
CREATE VIEW LAKE.s1.v2 AS SELECT count(*) AS n FROM LAKE.main.t;
CREATE OR REPLACE VIEW LAKE.v AS SELECT id FROM LAKE.t WHERE id < 10;
ALTER VIEW LAKE.s1.v2 RENAME TO v3;
COMMENT ON TABLE LAKE.t IS 'the main table';
COMMENT ON COLUMN LAKE.t.v IS 'a value';
COMMENT ON TABLE LAKE.t IS 'the main table, again';
COMMENT ON COLUMN LAKE.t.v IS NULL;
COMMENT ON VIEW LAKE.v IS 'a view';
ALTER TABLE LAKE.t RENAME COLUMN v TO w;
COMMENT ON COLUMN LAKE.t.w IS 'renamed';
DROP VIEW LAKE.s1.v3;
-- Macros.
CREATE MACRO LAKE.add_one(x) AS x + 1;
CREATE MACRO LAKE.s1.pick(a, b := 2) AS a * b;
-- Macro bodies name no lake: the lake's name would be part of the stored SQL.
CREATE MACRO LAKE.rows_above(k) AS TABLE SELECT * FROM range(k) r(i) WHERE i > 2;
DROP MACRO LAKE.add_one;
-- Options at every scope.
CALL LAKE.set_option('parquet_compression', 'zstd');
CALL LAKE.set_option('parquet_row_group_size', '1000', table_name => 't');
CALL LAKE.set_option('data_inlining_row_limit', 5, schema => 's1');
CALL LAKE.set_option('target_file_size', '1MB');
INSERT INTO LAKE.t SELECT i, i % 3, 'z' || i, NULL FROM range(30, 60) r(i);
-- Partitioning: identity, then by functions, then reset.
ALTER TABLE LAKE.t SET PARTITIONED BY (part_key);
INSERT INTO LAKE.t SELECT i, i % 3, 'p' || i, NULL FROM range(60, 90) r(i);
ALTER TABLE LAKE.t SET PARTITIONED BY (year(ts), month(ts));
INSERT INTO LAKE.t SELECT i, 0, 'y' || i, TIMESTAMP '2023-12-30' + INTERVAL (i) DAY FROM range(0, 40) r(i);
ALTER TABLE LAKE.t RESET PARTITIONED BY;
-- Sort keys.
ALTER TABLE LAKE.t SET SORTED BY (id DESC);
INSERT INTO LAKE.t SELECT i, 1, 's' || i, NULL FROM range(200, 230) r(i);
ALTER TABLE LAKE.t SET SORTED BY (part_key ASC NULLS LAST, w DESC);
ALTER TABLE LAKE.t RESET SORTED BY;
-- A table in s1 with its inlining limit.
CREATE TABLE LAKE.s1.small (id INTEGER);
INSERT INTO LAKE.s1.small SELECT i FROM range(0, 8) r(i);
DROP TABLE LAKE.t;
