-- Partition and sort keys, comments, nested columns and views on a lake
-- without macros. Every commit of a new table or table version reads the
-- whole catalog at its snapshot to diff the table's partition keys; with the
-- native manager these reads are moraine's answers to DuckLake's six catalog
-- queries, so a wrong partition, path, tag or column there writes other rows.
CREATE SCHEMA LAKE.s1;
CREATE TABLE LAKE.t (id INTEGER, part_key INTEGER, v VARCHAR, ts TIMESTAMP, s STRUCT(a INTEGER, b VARCHAR));
COMMENT ON TABLE LAKE.t IS 'the main table';
COMMENT ON COLUMN LAKE.t.v IS 'a value';
CREATE VIEW LAKE.v AS SELECT id, v FROM LAKE.t WHERE id % 2 = 0;
ALTER TABLE LAKE.t SET PARTITIONED BY (part_key);
INSERT INTO LAKE.t SELECT i, i % 3, 'p' || i, TIMESTAMP '2024-01-01' + INTERVAL (i) DAY, {'a': i, 'b': 'x' || i} FROM range(0, 30) r(i);
ALTER TABLE LAKE.t ADD COLUMN extra INTEGER;
ALTER TABLE LAKE.t SET SORTED BY (id DESC);
ALTER TABLE LAKE.t ADD COLUMN s.c INTEGER;
CREATE TABLE LAKE.s1.u (a INTEGER, b INTEGER);
ALTER TABLE LAKE.s1.u SET PARTITIONED BY (b);
INSERT INTO LAKE.s1.u SELECT i, i % 2 FROM range(0, 20) r(i);
ALTER TABLE LAKE.t SET PARTITIONED BY (year(ts), month(ts));
INSERT INTO LAKE.t SELECT i, 0, 'y' || i, TIMESTAMP '2023-12-30' + INTERVAL (i) DAY, NULL, i, NULL FROM range(30, 70) r(i);
ALTER TABLE LAKE.t RENAME COLUMN v TO w;
COMMENT ON COLUMN LAKE.t.w IS 'renamed';
ALTER TABLE LAKE.s1.u ADD COLUMN c VARCHAR DEFAULT 'd';
ALTER TABLE LAKE.s1.u DROP COLUMN a;
CREATE TABLE LAKE.s1.later (k INTEGER);
ALTER TABLE LAKE.t SET SORTED BY (part_key ASC NULLS LAST, w DESC);
ALTER TABLE LAKE.t RESET PARTITIONED BY;
ALTER TABLE LAKE.t ADD COLUMN late VARCHAR DEFAULT 'late';
INSERT INTO LAKE.t (id, part_key, w) SELECT i, 2, 'l' || i FROM range(70, 80) r(i);
ALTER TABLE LAKE.t RESET SORTED BY;
CREATE TABLE LAKE.t2 AS SELECT * FROM LAKE.t WHERE id < 10;
DROP TABLE LAKE.s1.later;
