-- Schema evolution: ADD COLUMN(S) (nested, FIRST/AFTER), RENAME COLUMN, DROP COLUMN, ALTER COLUMN
-- TYPE (int -> bigint, float -> double, decimal precision), DROP NOT NULL, comments, positions.
-- Rows written before a change read through field ids afterwards; refused changes say why.
CREATE NAMESPACE floe.evo;

CREATE TABLE floe.evo.t (
  id INT NOT NULL,
  name STRING,
  f FLOAT,
  d DECIMAL(9, 2),
  point STRUCT<x: INT, y: INT>,
  tags ARRAY<STRUCT<k: STRING>>
) PARTITIONED BY (bucket(4, id));

INSERT INTO floe.evo.t VALUES
  (1, 'one', 1.5, 1.25, named_struct('x', 1, 'y', 2), array(named_struct('k', 'a'))),
  (2, 'two', -2.5, 9999999.99, NULL, NULL);

-- Added columns read as NULL in rows written before; new ids, never reused.
ALTER TABLE floe.evo.t ADD COLUMN added STRING COMMENT 'added later';

ALTER TABLE floe.evo.t ADD COLUMN first_col INT FIRST;

ALTER TABLE floe.evo.t ADD COLUMN after_id BOOLEAN AFTER id;

ALTER TABLE floe.evo.t ADD COLUMNS (point.z INT AFTER x, tags.element.v INT);

DESCRIBE floe.evo.t;

SELECT * FROM floe.evo.t ORDER BY id;

-- Renamed columns keep their values, nested ones too.
ALTER TABLE floe.evo.t RENAME COLUMN name TO title;

ALTER TABLE floe.evo.t RENAME COLUMN point.y TO why;

SELECT id, title, point FROM floe.evo.t ORDER BY id;

-- Promotions: old int, float and decimal(9, 2) values read at the new types.
ALTER TABLE floe.evo.t ALTER COLUMN id TYPE BIGINT;

ALTER TABLE floe.evo.t ALTER COLUMN f TYPE DOUBLE;

ALTER TABLE floe.evo.t ALTER COLUMN d TYPE DECIMAL(20, 2);

ALTER TABLE floe.evo.t ALTER COLUMN point.x TYPE BIGINT;

INSERT INTO floe.evo.t (first_col, id, after_id, title, f, d, point, tags, added) VALUES
  (30, 3000000000, true, 'three', 1.0E100, 123456789012345678.12,
   named_struct('x', 5000000000, 'z', 3, 'why', 4), array(named_struct('k', 'c', 'v', 5)), 'new');

SELECT id, f, d, point.x, typeof(id), typeof(f), typeof(d) FROM floe.evo.t ORDER BY id;

SELECT id FROM floe.evo.t WHERE id > 2147483647;

SELECT id FROM floe.evo.t WHERE f < 0;

-- A dropped then re-added name is a new column: old rows never show the old values.
ALTER TABLE floe.evo.t DROP COLUMN title;

ALTER TABLE floe.evo.t ADD COLUMN title STRING;

SELECT id, title FROM floe.evo.t ORDER BY id;

SELECT count(*) FROM floe.evo.t WHERE title = 'one';

-- NOT NULL can be dropped; comments change.
ALTER TABLE floe.evo.t ALTER COLUMN id DROP NOT NULL;

ALTER TABLE floe.evo.t ALTER COLUMN added COMMENT 'a better comment';

ALTER TABLE floe.evo.t ALTER COLUMN title AFTER first_col;

DESCRIBE floe.evo.t;

SELECT * FROM floe.evo.t ORDER BY id;

-- Refused: a partition source column, a required column, types the spec does not allow, SET NOT NULL.
ALTER TABLE floe.evo.t DROP COLUMN id;

ALTER TABLE floe.evo.t ADD COLUMN must INT NOT NULL;

ALTER TABLE floe.evo.t ALTER COLUMN first_col TYPE STRING;

ALTER TABLE floe.evo.t ALTER COLUMN first_col TYPE DOUBLE;

ALTER TABLE floe.evo.t ALTER COLUMN d TYPE DECIMAL(22, 4);

ALTER TABLE floe.evo.t ALTER COLUMN after_id SET NOT NULL;

ALTER TABLE floe.evo.t DROP COLUMN tags.element.k, tags.element.v;

-- Nothing above changed the table.
DESCRIBE floe.evo.t;

SELECT count(*) FROM floe.evo.t;

-- After dropping the partition field, its source column can go.
ALTER TABLE floe.evo.t DROP PARTITION FIELD bucket(4, id);

ALTER TABLE floe.evo.t DROP COLUMN id;

SELECT * FROM floe.evo.t ORDER BY first_col NULLS FIRST;

DROP TABLE floe.evo.t;

-- The table comment (an empty table, so that DESCRIBE EXTENDED shows no snapshot id).
CREATE TABLE floe.evo.c (id INT COMMENT 'first');

COMMENT ON TABLE floe.evo.c IS 'evolved';

ALTER TABLE floe.evo.c ALTER COLUMN id COMMENT 'second';

DESCRIBE EXTENDED floe.evo.c;

ALTER TABLE floe.evo.c SET TBLPROPERTIES ('comment' = 'set as a property');

DESCRIBE EXTENDED floe.evo.c;

DROP TABLE floe.evo.c;

DROP NAMESPACE floe.evo;
