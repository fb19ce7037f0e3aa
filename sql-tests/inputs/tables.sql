-- Tables of the Floe catalog: CREATE TABLE with every type Floe stores, comments, properties,
-- NOT NULL and identity partitions; DESCRIBE, SHOW, ALTER TABLE and DROP TABLE.
CREATE NAMESPACE floe.db;

-- Every Spark primitive type; tinyint and smallint are stored as int.
CREATE TABLE floe.db.all_types (
  c_boolean BOOLEAN,
  c_tinyint TINYINT,
  c_smallint SMALLINT,
  c_int INT,
  c_bigint BIGINT,
  c_float FLOAT,
  c_double DOUBLE,
  c_decimal DECIMAL(10, 2),
  c_date DATE,
  c_timestamp TIMESTAMP,
  c_timestamp_ntz TIMESTAMP_NTZ,
  c_string STRING,
  c_binary BINARY
);

DESCRIBE floe.db.all_types;

INSERT INTO floe.db.all_types VALUES (
  true, 1, 2, 3, 4, 1.5, 2.25, 12345.67, DATE '2024-02-29',
  TIMESTAMP '2024-02-29 12:34:56.123456', TIMESTAMP_NTZ '2024-02-29 12:34:56.123456', 'floe', X'CAFE'
);

INSERT INTO floe.db.all_types VALUES (
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
);

SELECT c_boolean, c_tinyint, c_smallint, c_int, c_bigint, c_float, c_double, c_decimal, c_date,
  c_timestamp, c_timestamp_ntz, c_string, hex(c_binary)
FROM floe.db.all_types ORDER BY c_int NULLS LAST;

SELECT typeof(c_tinyint), typeof(c_smallint), typeof(c_timestamp), typeof(c_timestamp_ntz)
FROM floe.db.all_types LIMIT 1;

-- Nested types.
CREATE TABLE floe.db.nested (
  id BIGINT,
  point STRUCT<x: DOUBLE, y: DOUBLE, tag: STRUCT<name: STRING, weight: INT>>,
  tags ARRAY<STRING>,
  scores MAP<STRING, INT>,
  events ARRAY<STRUCT<kind: STRING, at: DATE>>,
  nested_map MAP<STRING, ARRAY<BIGINT>>
);

DESCRIBE floe.db.nested;

INSERT INTO floe.db.nested VALUES
  (1, named_struct('x', 1.0D, 'y', 2.0D, 'tag', named_struct('name', 'a', 'weight', 5)),
   array('red', 'blue'), map('math', 90, 'art', 75),
   array(named_struct('kind', 'open', 'at', DATE '2024-01-01')), map('k', array(1L, 2L))),
  (2, NULL, array(), map(), NULL, NULL);

SELECT id, point.x, point.tag.name, get(tags, 1), scores['math'], get(events, 0).kind, nested_map['k']
FROM floe.db.nested ORDER BY id;

SELECT * FROM floe.db.nested ORDER BY id;

-- Comments, table properties, NOT NULL and identity partitions.
CREATE TABLE floe.db.events (
  id BIGINT NOT NULL COMMENT 'event id',
  region STRING NOT NULL COMMENT 'sales region',
  day DATE,
  amount DECIMAL(12, 2) COMMENT 'in euros'
)
USING floe
PARTITIONED BY (region, day)
COMMENT 'sales events'
TBLPROPERTIES ('owner.team' = 'sales', 'write.target-file-size-bytes' = '134217728');

CREATE TABLE IF NOT EXISTS floe.db.events (id BIGINT);

DESCRIBE floe.db.events;

DESCRIBE EXTENDED floe.db.events;

DESCRIBE floe.db.events id;

SHOW TBLPROPERTIES floe.db.events;

SHOW TBLPROPERTIES floe.db.events ('owner.team');

SHOW CREATE TABLE floe.db.events;

INSERT INTO floe.db.events VALUES
  (1, 'eu', DATE '2024-01-01', 10.50),
  (2, 'eu', DATE '2024-01-02', 20.00),
  (3, 'us', DATE '2024-01-01', 5.25);

SELECT * FROM floe.db.events ORDER BY id;

SELECT region, count(*), sum(amount) FROM floe.db.events GROUP BY region ORDER BY region;

-- Aggregates over a small read are computed on the driver (FloeLocalAggregate): groups by an
-- expression, averages of decimals, and an empty input, which still gives one row.
SELECT upper(region) AS r, count(*), avg(amount), min(day), max(id) FROM floe.db.events
GROUP BY upper(region) ORDER BY r;

SELECT count(*), sum(amount), max(region) FROM floe.db.events WHERE amount < 0;

SHOW TABLES IN floe.db;

SHOW TABLES IN floe.db LIKE 'ev*';

-- ALTER TABLE SET and UNSET TBLPROPERTIES.
ALTER TABLE floe.db.events SET TBLPROPERTIES ('owner.team' = 'finance', 'retention.days' = '30');

SHOW TBLPROPERTIES floe.db.events ('owner.team');

SHOW TBLPROPERTIES floe.db.events ('retention.days');

ALTER TABLE floe.db.events UNSET TBLPROPERTIES ('retention.days');

SHOW TBLPROPERTIES floe.db.events ('retention.days');

ALTER TABLE floe.db.events UNSET TBLPROPERTIES IF EXISTS ('never.set');

-- RENAME TO: the target namespace with or without the catalog name.
ALTER TABLE floe.db.events RENAME TO db.events2;

SHOW TABLES IN floe.db;

SELECT * FROM floe.db.events2 ORDER BY id;

ALTER TABLE floe.db.events2 RENAME TO floe.db.events3;

SHOW TABLES IN floe.db;

SELECT count(*) FROM floe.db.events3;

-- The old name is gone.

SELECT * FROM floe.db.events;

-- RENAME TO another namespace.
CREATE NAMESPACE floe.archive;

ALTER TABLE floe.db.events3 RENAME TO archive.events;

SHOW TABLES IN floe.archive;

SELECT * FROM floe.archive.events WHERE region = 'eu' ORDER BY id;

ALTER TABLE floe.archive.events RENAME TO floe.db.events3;

DROP NAMESPACE floe.archive;

-- DROP TABLE, DROP TABLE PURGE, DROP TABLE IF EXISTS.
DROP TABLE floe.db.nested;

DROP TABLE floe.db.all_types PURGE;

DROP TABLE IF EXISTS floe.db.nested;

SHOW TABLES IN floe.db;

DROP TABLE floe.db.events3;

SHOW TABLES IN floe.db;

DROP NAMESPACE floe.db;
