-- ANALYZE TABLE on Floe tables runs compute_table_stats (statements whose output names a statistics
-- file vary from run to run: python-tests/test_analyze_table.py covers them). Without FOR COLUMNS
-- there is nothing to compute (row count and size are in Floe's metadata): no rows, no file.
CREATE NAMESPACE floe.an;

CREATE TABLE floe.an.t (id BIGINT, name STRING, point STRUCT<x: INT, y: INT>) USING floe;

-- No snapshot yet: nothing to sketch, no statistics file, no rows.
ANALYZE TABLE floe.an.t COMPUTE STATISTICS FOR ALL COLUMNS;

CALL floe.system.compute_table_stats(table => 'an.t');

INSERT INTO floe.an.t VALUES (1, 'a', named_struct('x', 1, 'y', 2)), (2, 'b', NULL);

ANALYZE TABLE floe.an.t COMPUTE STATISTICS;

ANALYZE TABLE floe.an.t COMPUTE STATISTICS NOSCAN;

-- Errors name the column and the table.
ANALYZE TABLE floe.an.t COMPUTE STATISTICS FOR COLUMNS id, nope;

ANALYZE TABLE floe.an.t COMPUTE STATISTICS FOR COLUMNS point;

CALL floe.system.compute_table_stats(table => 'an.t', columns => array('nope'));

CALL floe.system.compute_table_stats(table => 'an.t', snapshot_id => 1234567890123);

ANALYZE TABLE floe.an.t PARTITION (id = 1) COMPUTE STATISTICS;

ANALYZE TABLE floe.an.missing COMPUTE STATISTICS FOR ALL COLUMNS;
