-- Structs inside lists and maps (fields addressed through element / value),
-- a list of integers widened, a map dropped and its name re-added; then drops
-- and re-creations of tables and schemas, a name reused, CREATE TABLE AS.
-- Upstream limitation kept out on purpose: the stock catalog's
-- ducklake_flush_inlined_data fails on a table whose inlined rows predate a
-- SET TYPE; flushes here name their table, and such a table is never flushed.

CREATE SCHEMA LAKE.s2;
-- s2.l: structs inside lists and maps, and a list of integers.
CREATE TABLE LAKE.s2.l (id INTEGER, l STRUCT(a INTEGER)[], m MAP(VARCHAR, STRUCT(p INTEGER)), ints INTEGER[]);
INSERT INTO LAKE.s2.l SELECT i, [{'a': i}], MAP {'k': {'p': i}}, [i, i + 1] FROM range(1, 25) r(i);
INSERT INTO LAKE.s2.l VALUES (100, [{'a': 100}, {'a': -100}], MAP {'k': {'p': 100}}, []);
ALTER TABLE LAKE.s2.l ADD COLUMN l.element.f INTEGER;
ALTER TABLE LAKE.s2.l ADD COLUMN m.value.q VARCHAR;
INSERT INTO LAKE.s2.l VALUES (101, [{'a': 101, 'f': 1}], MAP {'k': {'p': 101, 'q': 'q'}}, NULL);
ALTER TABLE LAKE.s2.l RENAME COLUMN l.element.a TO a2;
ALTER TABLE LAKE.s2.l RENAME COLUMN m.value.p TO p2;
ALTER TABLE LAKE.s2.l DROP COLUMN l.element.f;
CALL ducklake_flush_inlined_data('LAKE', schema_name => 's2', table_name => 'l');
-- Widen a2 and add g inside the list element.
ALTER TABLE LAKE.s2.l ALTER COLUMN l SET TYPE STRUCT(a2 BIGINT, g VARCHAR)[];
ALTER TABLE LAKE.s2.l ALTER COLUMN ints SET TYPE BIGINT[];
INSERT INTO LAKE.s2.l SELECT i, [{'a2': i * 10000000000, 'g': 'g'}], NULL, [i * 10000000000] FROM range(200, 225) r(i);
ALTER TABLE LAKE.s2.l DROP COLUMN m;
ALTER TABLE LAKE.s2.l ADD COLUMN m INTEGER;
DELETE FROM LAKE.s2.l WHERE id % 2 = 0;
-- Refusals.
ALTER TABLE LAKE.s2.l ALTER COLUMN l SET TYPE STRUCT(a2 INTEGER, g VARCHAR)[];
ALTER TABLE LAKE.s2.l ADD COLUMN l.element.a2 INTEGER;

-- Drops and re-creations of tables and schemas; a name reused.
CREATE TABLE LAKE.s2.tmp (id INTEGER);
INSERT INTO LAKE.s2.tmp VALUES (1);
DROP TABLE LAKE.s2.tmp;
CREATE TABLE LAKE.s2.tmp (id BIGINT, v VARCHAR);
INSERT INTO LAKE.s2.tmp SELECT i, 'v' || i FROM range(0, 30) r(i);
DROP TABLE LAKE.s2.tmp;
CREATE SCHEMA LAKE.s3;
CREATE TABLE LAKE.s3.x (id INTEGER);
DROP TABLE LAKE.s3.x;
DROP SCHEMA LAKE.s3;
CREATE SCHEMA LAKE.s3;
CREATE TABLE LAKE.s3.t AS SELECT i AS id, i * 2 AS v FROM range(0, 40) r(i);
INSERT INTO LAKE.s3.t VALUES (100, 200);
CALL ducklake_flush_inlined_data('LAKE');
