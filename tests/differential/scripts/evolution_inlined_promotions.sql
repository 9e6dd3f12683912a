-- Type promotions over rows that stay inlined in the catalog (never
-- flushed), in a second schema; read back at every snapshot.
-- Upstream limitation kept out on purpose: the stock catalog's
-- ducklake_flush_inlined_data fails on a table whose inlined rows predate a
-- SET TYPE; flushes here name their table, and such a table is never flushed.

CREATE SCHEMA LAKE.s1;
-- s1.p: promotions over rows that stay inlined (never flushed).
CREATE TABLE LAKE.s1.p (id INTEGER, v TINYINT, f FLOAT);
INSERT INTO LAKE.s1.p VALUES (1, 100, 1.5), (2, -5, NULL);
ALTER TABLE LAKE.s1.p ALTER COLUMN v SET TYPE SMALLINT;
INSERT INTO LAKE.s1.p VALUES (3, 30000, 2.5);
ALTER TABLE LAKE.s1.p ALTER COLUMN v SET TYPE INTEGER;
ALTER TABLE LAKE.s1.p ALTER COLUMN v SET TYPE BIGINT;
INSERT INTO LAKE.s1.p VALUES (4, 5000000000, 4.25);
ALTER TABLE LAKE.s1.p ALTER COLUMN f SET TYPE DOUBLE;
ALTER TABLE LAKE.s1.p ALTER COLUMN id SET TYPE BIGINT;
DELETE FROM LAKE.s1.p WHERE id = 2;
UPDATE LAKE.s1.p SET f = 9.5 WHERE id = 1;
ALTER TABLE LAKE.s1.p ADD COLUMN extra VARCHAR DEFAULT 'e';
ALTER TABLE LAKE.s1.p RENAME COLUMN v TO big;

CREATE TABLE LAKE.s1.q (id INTEGER, v SMALLINT);
INSERT INTO LAKE.s1.q VALUES (1, 1);
CALL ducklake_flush_inlined_data('LAKE', schema_name => 's1', table_name => 'q');
ALTER TABLE LAKE.s1.q ALTER COLUMN v SET TYPE INTEGER;
INSERT INTO LAKE.s1.q VALUES (2, 100000);
