-- The errors users meet with tables: each names the table, column or value at fault, and a failed
-- statement changes nothing.
CREATE NAMESPACE floe.e;

CREATE TABLE floe.e.t (id INT NOT NULL, name STRING, day DATE) PARTITIONED BY (day);

INSERT INTO floe.e.t VALUES (1, 'one', DATE '2024-01-01');

-- The table exists.
CREATE TABLE floe.e.t (id INT);

ALTER TABLE floe.e.t RENAME TO floe.e.t;

CREATE TABLE floe.e.other (id INT);

ALTER TABLE floe.e.other RENAME TO e.t;

-- The table is missing.
SELECT * FROM floe.e.missing;

INSERT INTO floe.e.missing VALUES (1);

DROP TABLE floe.e.missing;

ALTER TABLE floe.e.missing SET TBLPROPERTIES ('k' = 'v');

ALTER TABLE floe.e.missing RENAME TO floe.e.missing2;

DESCRIBE floe.e.missing;

-- The namespace is missing.
CREATE TABLE floe.nope.t (id INT);

CREATE TABLE floe.nope.t AS SELECT 1 AS id;

SHOW TABLES IN floe.nope;

SELECT * FROM floe.nope.t;

ALTER TABLE floe.e.other RENAME TO nope.other;

-- A namespace that holds tables cannot be dropped without CASCADE.
DROP NAMESPACE floe.e;

SHOW TABLES IN floe.e;

-- Types Floe cannot store.
CREATE TABLE floe.e.bad_type (id INT, span INTERVAL DAY TO SECOND);

CREATE TABLE floe.e.bad_type (id INT, span INTERVAL YEAR TO MONTH);

CREATE TABLE floe.e.bad_type (id INT, payload VARIANT);

CREATE TABLE floe.e.bad_type (id INT, nested STRUCT<a: INT, span: INTERVAL DAY>);

CREATE TABLE floe.e.bad_type AS SELECT 1 AS id, INTERVAL '1' DAY AS span;

CREATE TABLE floe.e.bad_type (id INT, name STRING COLLATE UNICODE_CI);

SHOW TABLES IN floe.e;

-- Partition transforms that are not supported yet, and partitions by missing columns.
CREATE TABLE floe.e.bad_part (id BIGINT, ts TIMESTAMP) PARTITIONED BY (my_transform(ts));

CREATE TABLE floe.e.bad_part (id BIGINT, ts TIMESTAMP) PARTITIONED BY (missing_column);

CREATE TABLE floe.e.bad_part (id BIGINT, p STRUCT<a: INT>) PARTITIONED BY (p);

CREATE TABLE floe.e.bad_part (id BIGINT, flag BOOLEAN) PARTITIONED BY (bucket(4, flag));

SHOW TABLES IN floe.e;

-- Bad identifiers: nothing is created outside the warehouse.
CREATE TABLE floe.e.`a/b` (id INT);

CREATE TABLE floe.e.`..` (id INT);

CREATE TABLE floe.e.`a\\b` (id INT);

CREATE TABLE floe.e.`` (id INT);

CREATE TABLE floe.e.`.hidden` (id INT);

CREATE NAMESPACE floe.`x/y`;

CREATE NAMESPACE floe.`..`;

ALTER TABLE floe.e.other RENAME TO floe.e.`../escape`;

SHOW TABLES IN floe.e;

-- Invalid or unsupported format versions, and other reserved properties.
CREATE TABLE floe.e.bad_version (id INT) TBLPROPERTIES ('format-version' = '7');

CREATE TABLE floe.e.bad_version (id INT) TBLPROPERTIES ('format-version' = 'two');

ALTER TABLE floe.e.t SET TBLPROPERTIES ('format-version' = '1');

ALTER TABLE floe.e.t SET TBLPROPERTIES ('format-version' = 'x');

ALTER TABLE floe.e.t UNSET TBLPROPERTIES ('format-version');

CREATE TABLE floe.e.bad_version (id INT) TBLPROPERTIES ('format-version' = '1');

-- Values of known table properties are checked by the statement; keys of the user's own are not.
CREATE TABLE floe.e.bad_props (id INT) TBLPROPERTIES ('write.parquet.compression-codec' = 'brotli');

ALTER TABLE floe.e.t SET TBLPROPERTIES ('write.target-file-size-bytes' = 'abc');

ALTER TABLE floe.e.t SET TBLPROPERTIES ('write.target-file-size-bytes' = '-5');

ALTER TABLE floe.e.t SET TBLPROPERTIES ('write.metadata.metrics.default' = 'truncate(0)');

ALTER TABLE floe.e.t SET TBLPROPERTIES ('gc.enabled' = 'yes');

ALTER TABLE floe.e.t SET TBLPROPERTIES ('my.own.setting' = '-5');

SHOW TBLPROPERTIES floe.e.t ('write.target-file-size-bytes');

ALTER TABLE floe.e.t UNSET TBLPROPERTIES ('my.own.setting');

-- Write-audit-publish (docs/branches.md): spark.wap.id and spark.wap.branch together are refused.
CREATE TABLE floe.e.wap (id INT) TBLPROPERTIES ('write.wap.enabled' = 'true');

SET spark.wap.id = w1;

SET spark.wap.branch = b1;

INSERT INTO floe.e.wap VALUES (1);

DELETE FROM floe.e.wap WHERE id = 1;

RESET spark.wap.id;

RESET spark.wap.branch;

INSERT INTO floe.e.wap VALUES (1);

SELECT * FROM floe.e.wap;

DROP TABLE floe.e.wap;

CREATE TABLE floe.e.bad_provider (id INT) USING orc;

SHOW TABLES IN floe.e;

-- Data that does not fit the schema (ANSI mode: casts fail instead of writing NULL).
SET spark.sql.ansi.enabled=true;

INSERT INTO floe.e.t VALUES (2, 'two', 'not a date');

INSERT INTO floe.e.t SELECT 'abc', 'two', DATE '2024-01-02';

INSERT INTO floe.e.t SELECT CAST(s AS INT), 'two', DATE '2024-01-02' FROM VALUES ('abc') AS v(s);

INSERT INTO floe.e.t VALUES (3000000000, 'big', DATE '2024-01-02');

INSERT INTO floe.e.t VALUES (NULL, 'null id', DATE '2024-01-02');

INSERT INTO floe.e.t SELECT CAST(NULL AS INT), 'null id', DATE '2024-01-02';

INSERT INTO floe.e.t VALUES (2, 'two');

INSERT INTO floe.e.t VALUES (2, 'two', DATE '2024-01-02', 'extra');

INSERT INTO floe.e.t (id, missing_column) VALUES (2, 'two');

-- An overwrite condition must select whole partitions.
INSERT INTO floe.e.t REPLACE WHERE name = 'one' SELECT 5, 'five', DATE '2024-01-05';

-- Time travel to a snapshot or time the table does not have.
SELECT * FROM floe.e.t VERSION AS OF 12345;

SELECT * FROM floe.e.t TIMESTAMP AS OF '2000-01-01 00:00:00';

-- None of the failed writes changed the table.
SELECT * FROM floe.e.t ORDER BY id;

DROP NAMESPACE floe.e CASCADE;
