-- Schema evolution of top-level columns (seeds/003): ADD (plain, DEFAULT),
-- DROP and re-ADD of a name, RENAME back and forth, a promotion chain
-- int8 -> int16 -> int32 -> int64 and float -> double, SET/DROP DEFAULT,
-- table renames, refusals; over Parquet and inlined rows, with updates,
-- deletes and flushes in between.
-- Upstream limitation kept out on purpose: the stock catalog's
-- ducklake_flush_inlined_data fails on a table whose inlined rows predate a
-- SET TYPE; flushes here name their table, and such a table is never flushed.

-- t: top-level columns.
CREATE TABLE LAKE.t (id INTEGER, v INTEGER, name VARCHAR, k TINYINT, f FLOAT);
INSERT INTO LAKE.t SELECT i, i * 10, 'n' || i, (i % 100)::TINYINT, i / 4 FROM range(1, 30) r(i);
INSERT INTO LAKE.t VALUES (100, 1000, 'small', 1, 0.5);
ALTER TABLE LAKE.t ADD COLUMN c INTEGER;
ALTER TABLE LAKE.t ADD COLUMN d VARCHAR DEFAULT 'dflt';
INSERT INTO LAKE.t (id, v, name, k) VALUES (101, 1010, 'n101', 2);
CALL ducklake_flush_inlined_data('LAKE', table_name => 't');
-- A promotion chain, one step at a time: int8 -> int16 -> int32 -> int64.
ALTER TABLE LAKE.t ALTER COLUMN k SET TYPE SMALLINT;
INSERT INTO LAKE.t SELECT i, i, 'p' || i, (i * 100)::SMALLINT, NULL, NULL, 'x' FROM range(200, 230) r(i);
ALTER TABLE LAKE.t ALTER COLUMN k SET TYPE INTEGER;
INSERT INTO LAKE.t (id, k) VALUES (230, 2000000000);
CALL ducklake_flush_inlined_data('LAKE', table_name => 't');
ALTER TABLE LAKE.t ALTER COLUMN k SET TYPE BIGINT;
INSERT INTO LAKE.t (id, k) SELECT i, i * 10000000000 FROM range(300, 325) r(i);
ALTER TABLE LAKE.t ALTER COLUMN f SET TYPE DOUBLE;
-- Drop a column and add one of the same name back: a new column id.
ALTER TABLE LAKE.t DROP COLUMN name;
ALTER TABLE LAKE.t ADD COLUMN name VARCHAR;
INSERT INTO LAKE.t (id, name) SELECT i, 'again' || i FROM range(400, 425) r(i);
ALTER TABLE LAKE.t DROP COLUMN name;
ALTER TABLE LAKE.t ADD COLUMN name INTEGER DEFAULT 7;
-- Renames back and forth.
ALTER TABLE LAKE.t RENAME COLUMN v TO w;
ALTER TABLE LAKE.t RENAME COLUMN w TO v;
ALTER TABLE LAKE.t RENAME COLUMN v TO w;
-- Defaults: literal SET, DROP, expression on a CREATE TABLE column.
ALTER TABLE LAKE.t ALTER COLUMN w SET DEFAULT 42;
INSERT INTO LAKE.t (id) SELECT i FROM range(500, 525) r(i);
ALTER TABLE LAKE.t ALTER COLUMN w DROP DEFAULT;
ALTER TABLE LAKE.t ALTER COLUMN c SET DEFAULT -1;
ALTER TABLE LAKE.t ALTER COLUMN d DROP DEFAULT;
ALTER TABLE LAKE.t ALTER COLUMN id SET DEFAULT 6 * 7;
INSERT INTO LAKE.t (w) VALUES (1);
ALTER TABLE LAKE.t ALTER COLUMN id DROP DEFAULT;
-- Updates and deletes over Parquet and inlined rows.
UPDATE LAKE.t SET c = id * 2 WHERE id % 5 = 0;
DELETE FROM LAKE.t WHERE id % 3 = 0;
DELETE FROM LAKE.t WHERE id = 100;
CALL ducklake_flush_inlined_data('LAKE', table_name => 't');
UPDATE LAKE.t SET d = 'upd' WHERE id > 500;
-- Table renames back and forth; a SET TYPE after a rename.
ALTER TABLE LAKE.t RENAME TO t_renamed;
INSERT INTO LAKE.t_renamed (id) VALUES (600);
ALTER TABLE LAKE.t_renamed RENAME TO t;
ALTER TABLE LAKE.t ALTER COLUMN w SET TYPE BIGINT;
-- Refusals (both catalogs alike, nothing written).
ALTER TABLE LAKE.t ALTER COLUMN w SET TYPE INTEGER;
ALTER TABLE LAKE.t DROP COLUMN nope;
ALTER TABLE LAKE.t RENAME COLUMN w TO id;

