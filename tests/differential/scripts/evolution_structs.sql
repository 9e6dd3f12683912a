-- Struct fields: nested ADD / RENAME (back and forth) / DROP, a dropped
-- field's name re-added, struct widening by SET TYPE (widen, drop and add
-- fields at once, fields listed in another order), a whole struct dropped and
-- another renamed into its place; refusals.
-- Upstream limitation kept out on purpose: the stock catalog's
-- ducklake_flush_inlined_data fails on a table whose inlined rows predate a
-- SET TYPE; flushes here name their table, and such a table is never flushed.

CREATE SCHEMA LAKE.s1;
-- s1.n: struct fields.
CREATE TABLE LAKE.s1.n (id INTEGER, s STRUCT(a INTEGER, b VARCHAR, k TINYINT));
INSERT INTO LAKE.s1.n SELECT i, {'a': i, 'b': 'b' || i, 'k': (i % 100)::TINYINT} FROM range(1, 25) r(i);
INSERT INTO LAKE.s1.n VALUES (100, {'a': 100, 'b': 'small', 'k': 1});
ALTER TABLE LAKE.s1.n ADD COLUMN s.f INTEGER;
INSERT INTO LAKE.s1.n VALUES (101, {'a': 101, 'b': 'b101', 'k': 2, 'f': 1});
ALTER TABLE LAKE.s1.n RENAME COLUMN s.a TO x;
ALTER TABLE LAKE.s1.n RENAME COLUMN s.x TO a;
ALTER TABLE LAKE.s1.n RENAME COLUMN s.a TO x;
ALTER TABLE LAKE.s1.n DROP COLUMN s.b;
CALL ducklake_flush_inlined_data('LAKE', schema_name => 's1', table_name => 'n');
-- Struct widening: widen x and k, drop f, add h, all in one SET TYPE.
ALTER TABLE LAKE.s1.n ALTER COLUMN s SET TYPE STRUCT(x BIGINT, k SMALLINT, h VARCHAR);
-- A dropped field's name comes back as a new field.
ALTER TABLE LAKE.s1.n ADD COLUMN s.b VARCHAR;
INSERT INTO LAKE.s1.n SELECT i, {'x': i * 10000000000, 'k': i * 100, 'h': 'h', 'b': 'again'} FROM range(200, 230) r(i);
-- Fields keep their order whatever order the target type lists them in.
ALTER TABLE LAKE.s1.n ALTER COLUMN s SET TYPE STRUCT(h VARCHAR, x BIGINT, y DOUBLE, k INTEGER, b VARCHAR);
ALTER TABLE LAKE.s1.n ALTER COLUMN s SET TYPE STRUCT(x BIGINT, k BIGINT, h VARCHAR, y DOUBLE, b VARCHAR);
UPDATE LAKE.s1.n SET s = {'x': -1, 'k': -1, 'h': 'u', 'y': 0.25, 'b': 'u'} WHERE id % 4 = 0;
DELETE FROM LAKE.s1.n WHERE id % 5 = 0;
ALTER TABLE LAKE.s1.n ADD COLUMN s2 STRUCT(p INTEGER, q INTEGER);
INSERT INTO LAKE.s1.n (id, s2) VALUES (300, {'p': 1, 'q': 2});
ALTER TABLE LAKE.s1.n DROP COLUMN s;
ALTER TABLE LAKE.s1.n RENAME COLUMN s2 TO s;
ALTER TABLE LAKE.s1.n RENAME COLUMN s.p TO pp;
-- Refusals.
ALTER TABLE LAKE.s1.n ADD COLUMN s.pp.z INTEGER;
ALTER TABLE LAKE.s1.n RENAME COLUMN s.q TO pp;
ALTER TABLE LAKE.s1.n DROP COLUMN s.nope;

