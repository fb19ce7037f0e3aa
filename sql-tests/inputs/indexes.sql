-- Secondary indexes (docs/indexes.md): CREATE INDEX and DROP INDEX through Spark's own parser, the
-- indexes metadata table, the index procedures, and their errors.
CREATE NAMESPACE floe.ix;

CREATE TABLE floe.ix.t (id BIGINT, name STRING, score DOUBLE, point STRUCT<x: INT, y: INT>) USING floe;

-- An index on a table without data: no segment yet; each later INSERT adds one (maintenance sync).
CREATE INDEX by_id ON floe.ix.t USING btree (id);

SELECT name, type, columns, covered_files, live_files, segments, problem FROM floe.ix.t.indexes;

INSERT INTO floe.ix.t VALUES (1, 'a', 1.0, named_struct('x', 1, 'y', 2)), (2, 'b', 2.0, NULL);

INSERT INTO floe.ix.t VALUES (3, 'c', 3.0, named_struct('x', 3, 'y', 4)), (4, NULL, 4.0, NULL);

-- The default type is inverted; nested struct fields can be indexed.
CREATE INDEX by_name ON TABLE floe.ix.t (name);

CREATE INDEX IF NOT EXISTS by_name ON floe.ix.t USING btree (id);

CREATE INDEX by_x ON floe.ix.t USING inverted (point.x) OPTIONS ('maintenance' = 'deferred');

SELECT name, type, columns, covered_files, live_files, segments, size_in_bytes > 0, problem
FROM floe.ix.t.indexes ORDER BY name;

SELECT * FROM floe.ix.t WHERE name = 'c';

SELECT id FROM floe.ix.t WHERE name IS NULL OR name LIKE 'a%' ORDER BY id;

SELECT id FROM floe.ix.t WHERE point.x BETWEEN 2 AND 5;

-- A rename keeps the index (indexes track field ids).
ALTER TABLE floe.ix.t RENAME COLUMN name TO label;

SELECT name, columns FROM floe.ix.t.indexes WHERE name = 'by_name';

SELECT id FROM floe.ix.t WHERE label = 'b';

-- An append after the build is covered by its own commit (sync); rewrite_index merges the segments.
INSERT INTO floe.ix.t VALUES (5, 'e', 5.0, named_struct('x', 5, 'y', 6));

SELECT name, covered_files, live_files FROM floe.ix.t.indexes WHERE name = 'by_name';

CALL floe.system.rewrite_index(table => 'ix.t', name => 'by_name');

SELECT name, covered_files, live_files, segments FROM floe.ix.t.indexes WHERE name = 'by_name';

CALL floe.system.create_index(table => 'ix.t', name => 'by_y', column => 'point.y');

CALL floe.system.drop_index(table => 'ix.t', name => 'by_y');

-- Dropping an indexed column drops its index.
ALTER TABLE floe.ix.t DROP COLUMN point;

DROP INDEX by_id ON floe.ix.t;

DROP INDEX IF EXISTS by_id ON floe.ix.t;

SELECT name, type, columns FROM floe.ix.t.indexes ORDER BY name;

-- Errors name the table, the index and the column.
CREATE INDEX by_name ON floe.ix.t (id);

CREATE INDEX bad ON floe.ix.t (nope);

CREATE INDEX bad ON floe.ix.t (score);

CREATE INDEX bad ON floe.ix.t USING hash (id);

CREATE INDEX bad ON floe.ix.t (id) OPTIONS ('pages' = '2');

DROP INDEX nope ON floe.ix.t;

CALL floe.system.drop_index(table => 'ix.t', name => 'nope');

CALL floe.system.create_index(table => 'ix.t', name => 'bad', column => 'nope');

ALTER TABLE floe.ix.t SET TBLPROPERTIES ('floe.indexes' = '/tmp/list.json');

ALTER TABLE floe.ix.t UNSET TBLPROPERTIES ('floe.indexes');
