-- Writing Floe tables with SQL: INSERT INTO, INSERT OVERWRITE (static, dynamic, unpartitioned),
-- CREATE TABLE AS SELECT, REPLACE TABLE, CREATE OR REPLACE TABLE, and reading the results back.
CREATE NAMESPACE floe.w;

CREATE TABLE floe.w.sales (id BIGINT, region STRING, amount INT) PARTITIONED BY (region);

-- INSERT INTO ... VALUES and INSERT INTO ... SELECT.
INSERT INTO floe.w.sales VALUES (1, 'eu', 10), (2, 'eu', 20), (3, 'us', 30), (4, 'apac', 40);

INSERT INTO floe.w.sales SELECT id + 10, region, amount + 1 FROM floe.w.sales WHERE region = 'us';

INSERT INTO floe.w.sales (region, id, amount) VALUES ('us', 20, 200);

SELECT * FROM floe.w.sales ORDER BY id;

-- Filters, aggregates and ORDER BY.
SELECT region, count(*) AS n, sum(amount) AS total, min(id), max(id)
FROM floe.w.sales GROUP BY region ORDER BY total DESC;

SELECT id, amount FROM floe.w.sales WHERE region = 'eu' AND amount > 10 ORDER BY id;

SELECT id FROM floe.w.sales WHERE region IN ('us', 'apac') AND id < 20 ORDER BY id DESC;

SELECT count(*) FROM floe.w.sales WHERE region IS NULL;

SELECT region, amount FROM floe.w.sales ORDER BY amount DESC LIMIT 2;

-- INSERT OVERWRITE with a static partition replaces only that partition.
INSERT OVERWRITE floe.w.sales PARTITION (region = 'eu') VALUES (5, 50), (6, 60);

SELECT * FROM floe.w.sales ORDER BY id;

-- Static mode (the default): INSERT OVERWRITE without PARTITION replaces the whole table.
INSERT OVERWRITE floe.w.sales VALUES (7, 'eu', 70), (8, 'us', 80);

SELECT * FROM floe.w.sales ORDER BY id;

INSERT INTO floe.w.sales VALUES (9, 'apac', 90), (10, 'us', 100);

-- Dynamic mode: only the partitions the query writes are replaced.
SET spark.sql.sources.partitionOverwriteMode=dynamic;

INSERT OVERWRITE floe.w.sales VALUES (11, 'us', 110), (12, 'latam', 120);

SELECT * FROM floe.w.sales ORDER BY id;

-- Dynamic mode with a static partition value is still a static overwrite of that partition.
INSERT OVERWRITE floe.w.sales PARTITION (region = 'eu') SELECT 13, 130;

SELECT * FROM floe.w.sales ORDER BY id;

-- A query that writes no rows replaces no partition in dynamic mode.
INSERT OVERWRITE floe.w.sales SELECT * FROM floe.w.sales WHERE id < 0;

SELECT count(*) FROM floe.w.sales;

SET spark.sql.sources.partitionOverwriteMode=static;

-- REPLACE WHERE replaces the partitions the condition selects.
INSERT INTO floe.w.sales REPLACE WHERE region IN ('us', 'latam') SELECT 14, 'us', 140;

SELECT * FROM floe.w.sales ORDER BY id;

-- INSERT OVERWRITE of an unpartitioned table replaces every row.
CREATE TABLE floe.w.plain (k STRING, v DOUBLE);

INSERT INTO floe.w.plain VALUES ('a', 1.0), ('b', 2.0);

INSERT OVERWRITE floe.w.plain VALUES ('c', 3.0);

SELECT * FROM floe.w.plain;

INSERT OVERWRITE floe.w.plain SELECT k, v FROM floe.w.plain WHERE false;

SELECT count(*) FROM floe.w.plain;

-- CREATE TABLE AS SELECT.
CREATE TABLE floe.w.big_sales AS SELECT id, region, amount FROM floe.w.sales WHERE amount >= 100;

DESCRIBE floe.w.big_sales;

SELECT * FROM floe.w.big_sales ORDER BY id;

-- CTAS with partitions, a comment and properties.
CREATE TABLE floe.w.by_region
PARTITIONED BY (region)
COMMENT 'totals per region'
TBLPROPERTIES ('source' = 'sales')
AS SELECT region, sum(amount) AS total, count(*) AS n FROM floe.w.sales GROUP BY region;

DESCRIBE floe.w.by_region;

SHOW TBLPROPERTIES floe.w.by_region ('source');

SELECT * FROM floe.w.by_region ORDER BY region;

SELECT total FROM floe.w.by_region WHERE region = 'apac';

-- CTAS of a table that exists fails, and IF NOT EXISTS leaves the table alone.
CREATE TABLE floe.w.by_region AS SELECT 1 AS x;

CREATE TABLE IF NOT EXISTS floe.w.by_region AS SELECT 1 AS x;

SELECT count(*) FROM floe.w.by_region;

-- REPLACE TABLE AS SELECT: new schema, new partitioning, new rows.
REPLACE TABLE floe.w.by_region AS SELECT id, amount * 2 AS doubled FROM floe.w.sales WHERE region = 'us';

DESCRIBE floe.w.by_region;

SELECT * FROM floe.w.by_region ORDER BY id;

-- REPLACE TABLE without AS SELECT leaves an empty table with the new schema.
REPLACE TABLE floe.w.by_region (code STRING NOT NULL, label STRING) PARTITIONED BY (code);

DESCRIBE floe.w.by_region;

SELECT count(*) FROM floe.w.by_region;

-- REPLACE of a table that does not exist fails.
REPLACE TABLE floe.w.missing AS SELECT 1 AS x;

-- CREATE OR REPLACE TABLE creates the table, then replaces it.
CREATE OR REPLACE TABLE floe.w.latest AS SELECT 'first' AS version, 1 AS n;

SELECT * FROM floe.w.latest;

CREATE OR REPLACE TABLE floe.w.latest USING floe PARTITIONED BY (version)
AS SELECT 'second' AS version, 2 AS n UNION ALL SELECT 'third', 3;

DESCRIBE floe.w.latest;

SELECT * FROM floe.w.latest ORDER BY n;

CREATE OR REPLACE TABLE floe.w.latest (only_column INT);

SELECT * FROM floe.w.latest;

INSERT INTO floe.w.latest VALUES (42);

SELECT * FROM floe.w.latest;

-- Joins across Floe tables.
SELECT s.id, s.region, b.amount FROM floe.w.sales s JOIN floe.w.big_sales b ON s.id = b.id
WHERE s.region <> 'latam' ORDER BY s.id;

DROP NAMESPACE floe.w CASCADE;
